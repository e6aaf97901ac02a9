#include "core/arena.hpp"

#include <cstdlib>

namespace oflow {

void* arena_alloc_host(std::size_t bytes) {
    void* p = nullptr;
    if (bytes == 0) bytes = kHostAlign;
    if (posix_memalign(&p, kHostAlign, bytes) != 0) return nullptr;
    return p;
}

void arena_free_host(void* block) { std::free(block); }

void* arena_buffer(const Plan& plan, void* block, std::size_t block_bytes, HostBuf id) {
    const BufferSpec& b = plan.host[id];
    if (b.offset > block_bytes || b.bytes > block_bytes - b.offset) return nullptr;
    if (b.offset % b.align != 0) return nullptr;
    return static_cast<unsigned char*>(block) + b.offset;
}

} // namespace oflow
