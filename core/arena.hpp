// The host arena: one block, either the caller's or one allocation made at of_create, carved
// into the buffers of a Plan. Carving checks that every buffer lies inside the planned size
// (used <= planned), so a plan/carve disagreement is caught at create, not as a stray write.
#ifndef OFLOW_CORE_ARENA_HPP
#define OFLOW_CORE_ARENA_HPP

#include "core/plan.hpp"

namespace oflow {

/// Allocates `bytes` aligned to kHostAlign; null on failure. Only of_create calls it.
void* arena_alloc_host(std::size_t bytes);
void arena_free_host(void* block);

/// Base pointer of buffer `id` inside `block`, or null when the buffer would end past
/// `block_bytes` (an internal error: the plan and the block disagree).
void* arena_buffer(const Plan& plan, void* block, std::size_t block_bytes, HostBuf id);

} // namespace oflow

#endif
