#include "core/context.hpp"

#include "core/selftest.hpp"

#include "core/arena.hpp"
#include "core/config_check.hpp"
#include "core/select.hpp"
#include "core/algorithm.hpp"
#include "core/flow_driver.hpp"
#include "core/init_dis.hpp"
#include "platform/table_load.hpp"

#if OF_HAVE_NEON
#include "neon/kernels_neon.hpp"
#endif

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

namespace oflow {

namespace {

// The table of config.tuning_path, read before the plan (the selection needs it) into a
// temporary; create copies it into the arena. Empty without a tuning_path.
struct LoadedTemp {
    std::unique_ptr<platform::LoadedTable> table;
    of_status load(const of_config& cfg, const ErrorSink& err) {
        if (!cfg.tuning_path) return OF_OK;
        table.reset(new (std::nothrow) platform::LoadedTable);
        if (!table) return err.fail(OF_ERR_OUT_OF_MEMORY, "of_create: cannot allocate the tuning table");
        return load_tuning_table(cfg.tuning_path, table.get(), err);
    }
    const platform::BoardTable* board() const { return table ? &table->board : nullptr; }
};

// cuda::CpuLevels::solve: the CPU half of a split frame.
of_status solve_coarse(void* user, int w, int h, int top, std::uint64_t* iterations) {
    return flow_solve_coarse_cpu(static_cast<of_context*>(user), w, h, top, iterations);
}

// cuda::CpuLevels::rows: row ranges on the context's pool (host output's copies out of the staging).
void pool_rows(void* user, int n, void (*fn)(void* arg, int y0, int y1), void* arg) {
    auto band = [&](int y0, int y1, int) { fn(arg, y0, y1); };
    static_cast<of_context*>(user)->pool->for_rows(n, band);
}

} // namespace

of_status select_for_config(const of_config& cfg, std::size_t context_bytes, const ErrorSink& err, Selection* out) {
    LoadedTemp tmp;
    of_status s = tmp.load(cfg, err);
    if (s != OF_OK) return s;
    return select_and_plan(cfg, context_bytes, tmp.board(), SelectFor::kCreate, err, out);
}

of_status context_create(const of_config* cfg, const ErrorSink& err, of_context** out, ThreadPool* borrow_pool) {
    *out = nullptr;
    of_status s = check_config(cfg, err);
    if (s != OF_OK) return s;
    LoadedTemp tmp;
    s = tmp.load(*cfg, err);
    if (s != OF_OK) return s;
    Selection sel;
    s = select_and_plan(*cfg, sizeof(of_context), tmp.board(), SelectFor::kCreate, err, &sel);
    if (s != OF_OK) return s;
    const Plan& plan = sel.plan;
    void* block = cfg->host_arena;
    const bool owns = block == nullptr;
    std::size_t block_bytes = plan.host_bytes;
    if (!owns) {
        if (cfg->host_arena_size < plan.host_bytes)
            return err.fail(OF_ERR_ARENA, "config: host_arena_size %zu < %zu bytes needed",
                            cfg->host_arena_size, plan.host_bytes);
        block_bytes = cfg->host_arena_size;
    } else {
        block = arena_alloc_host(plan.host_bytes);
        if (!block)
            return err.fail(OF_ERR_OUT_OF_MEMORY, "of_create: cannot allocate %zu host bytes",
                            plan.host_bytes);
    }
    void* slot = arena_buffer(plan, block, block_bytes, kBufContext);
    if (slot != block) {
        if (owns) arena_free_host(block);
        return err.fail(OF_ERR_INTERNAL, "of_create: context slot not at the arena start");
    }
    of_context* c = new (slot) of_context();
    c->cfg = sel.cfg;
    c->cfg.platform = nullptr;    // not retained: the caller's strings may not outlive create
    c->cfg.tuning_path = nullptr;
    c->plan = plan;
    c->block = block;
    c->owns_block = owns;
    c->error[0] = '\0';
    c->cuda = nullptr;
    c->pool = borrow_pool ? borrow_pool : &c->own_pool;
    c->init = nullptr;
    c->init_pass = borrow_pool != nullptr; // only config.init's DIS pass borrows its parent's pool
    c->algo = find_algorithm(cfg->algorithm); // registered: check_config passed
    c->table = sel.table;
    for (int i = 0; i < kHostBufCount; ++i) {
        c->buf[i] = arena_buffer(plan, block, block_bytes, static_cast<HostBuf>(i));
        if (!c->buf[i]) {
            of_status st = err.fail(OF_ERR_INTERNAL, "of_create: buffer %s outside the arena",
                                    plan.host[i].name);
            context_destroy(c);
            return st;
        }
    }
    if (tmp.table) { // the loaded table moves into the arena; the selection's pointer follows
        platform::LoadedTable* kept = static_cast<platform::LoadedTable*>(c->buf[kBufTable]);
        platform::copy_table(*tmp.table, kept);
        if (sel.table == tmp.board()) c->table = &kept->board;
        sel.table = c->table;
        tmp.table.reset();
    }
    kernel_table_init_ref(&c->kt);
    // NEON overrides the entries it vectorises; F16 arithmetic only where the CPU has it. A
    // CUDA frame split by level runs its coarse levels on this build's CPU path.
#if OF_HAVE_NEON
    if (plan.backend == OF_BACKEND_NEON || (plan.split_from > 0 && sel.cpu_backend == OF_BACKEND_NEON))
        kernel_table_init_neon(&c->kt, sel.cpu_f16);
#endif
    const bool cpu_runs = plan.backend != OF_BACKEND_CUDA || plan.split_from > 0;
    if (c->algo->kernels_init && cpu_runs)
        c->algo->kernels_init(c, plan.backend == OF_BACKEND_CUDA ? sel.cpu_backend : plan.backend, sel.cpu_f16);
    selftest_hooks::apply(&c->kt); // a no-op unless a test broke a kernel on purpose
    c->presmooth = make_gaussian(cfg->presmooth_sigma);
    c->robust_blur = make_gaussian(cfg->robust_sigma);
    // Anti-aliasing before downscaling by `factor` (IPOL: sigma = 0.6 sqrt(1/f^2 - 1)).
    const float f = cfg->scale_factor;
    c->level_blur = make_gaussian(0.6f * std::sqrt(1.0f / (f * f) - 1.0f));
    if (!borrow_pool && !c->own_pool.start(static_cast<int>(cfg->threads))) {
        of_status st = err.fail(OF_ERR_OUT_OF_MEMORY, "of_create: cannot start %u worker threads",
                                cfg->threads);
        context_destroy(c);
        return st;
    }
    if (plan.backend == OF_BACKEND_CUDA) {
        if (!c->algo->cuda) { // select_and_plan refuses this: an invariant
            of_status st = err.fail(OF_ERR_INTERNAL, "of_create: %s has no CUDA driver in this build", c->algo->name);
            context_destroy(c);
            return st;
        }
        cuda::CpuLevels cpu;
        std::memset(static_cast<void*>(&cpu), 0, sizeof cpu);
        cpu.from = plan.split_from;
        cpu.rows = &pool_rows;
        cpu.user = c;
        if (cpu.from > 0) {
            cpu.pyr[0] = static_cast<float*>(c->buf[kBufPyr0]);
            cpu.pyr[1] = static_cast<float*>(c->buf[kBufPyr1]);
            for (int l = 0; l < kMaxLevels; ++l) cpu.level_off[l] = plan.level_offset[l];
            cpu.flow_xy = static_cast<const float*>(c->buf[kBufSplitFlow]);
            cpu.solve = &solve_coarse;
            cpu.user = c;
        }
        s = c->algo->cuda->create(c->buf[kBufCudaState], c->buf[kBufStaging], c->cfg, &sel.launch, cpu,
                                  sel.init_device_bytes, err, &c->cuda);
        if (s != OF_OK) {
            context_destroy(c);
            return s;
        }
    }
    if (c->cfg.init == OF_INIT_DIS) { // the DIS pass (core/init_dis.hpp), in our arena, on our pool
        of_config pc = c->cfg;
        pc.platform = cfg->platform; // as select_and_plan planned it (c->cfg keeps no pointer)
        pc.tuning_path = cfg->tuning_path;
        of_config d = init_dis_config(pc, plan.backend);
        d.host_arena = c->buf[kBufInitArena];
        d.host_arena_size = plan.host[kBufInitArena].bytes;
#if OF_HAVE_CUDA
        if (plan.backend == OF_BACKEND_CUDA) { // on our stream, in our device arena (cuda/init_dis_cuda.cu)
            d.device_arena = cuda::init_device_arena(c->cuda);
            d.device_arena_size = sel.init_device_bytes;
            d.cuda_stream = cuda::stream_handle(c->cuda);
        }
#endif
        s = context_create(&d, err, &c->init, c->pool);
        if (s != OF_OK) {
            context_destroy(c);
            return s;
        }
#if OF_HAVE_CUDA
        if (plan.backend == OF_BACKEND_CUDA) cuda::attach_init(c->cuda, c->init->cuda);
#endif
    }
    selection_info(sel, &c->info);
    *out = c;
    return OF_OK;
}

void context_destroy(of_context* c) {
    if (!c) return;
    void* block = c->block;
    const bool owns = c->owns_block;
    if (c->init) context_destroy(c->init); // in our arena (CUDA: on our stream, in our device arena): first
    if (c->cuda && c->algo && c->algo->cuda) c->algo->cuda->destroy(c->cuda);
    c->~of_context();
    if (owns) arena_free_host(block);
}

} // namespace oflow
