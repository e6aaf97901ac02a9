#include "core/config_check.hpp"
#include "core/schedule.hpp"

#include "core/algorithm.hpp"
#include "core/confidence.hpp"
#include "core/enum_raw.hpp"
#include "core/robust.hpp"
#include "platform/tuning.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace oflow {

bool config_defaults(of_config* cfg, of_algorithm algo) {
    if (algo != OF_ALGO_TVL1 && algo != OF_ALGO_HS && algo != OF_ALGO_CLG && algo != OF_ALGO_LK &&
        algo != OF_ALGO_DIS)
        return false;
    std::memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(of_config);
    cfg->algorithm = algo;
    cfg->max_width = 640;
    cfg->max_height = 480;
    cfg->format = OF_PIXEL_U8;
    cfg->levels = 0;
    cfg->scale_factor = 0.5f;
    cfg->warps = 5;
    cfg->iterations = 300;
    cfg->epsilon = 0.01f;
    cfg->presmooth_sigma = 0.8f;
    cfg->backend = OF_BACKEND_AUTO;
    cfg->precision = OF_PRECISION_AUTO;
    cfg->threads = 1;
    cfg->time_budget_ms = 0.0f;
    cfg->tvl1.tau = 0.25f;
    cfg->tvl1.lambda = 0.15f;
    cfg->tvl1.theta = 0.3f;
    cfg->hs.alpha = 15.0f;
    cfg->hs.rho = algo == OF_ALGO_CLG ? 2.0f : 0.0f;
    cfg->hs.solver = OF_SOLVER_JACOBI;
    cfg->hs.omega = 1.4f; // core/hs_algorithm.cpp: (0, 1.5] converges
    // LK: window 11 and min_eigen 1, measured on the synthetic cases at 160x120 and 320x240
    // (docs/accuracy.md "Lucas-Kanade", tests/tools/lk_study): 11 is within 5 % of the lowest
    // mean EPE (15's) and better at motion boundaries; 1 is the smallest threshold that rejects a
    // textureless region with noise of sigma 1 after the local normalisation, a factor 10 below
    // where the coarse levels start to lose their valid windows.
    cfg->lk.window = 11;
    cfg->lk.min_eigen = 1.0f;
    // One solve a pair, robust by construction (docs/accuracy.md sections 23-24): the soft census
    // data term (gain, offset, smooth shading and noise divide out of each level's census) and the
    // coarse flow repaired from a DIS pass (large motion, fine texture that blurs flat on the coarse
    // levels). On the motion x photometry matrix no cell of any algorithm is worse than the former
    // default (OF_ROBUST_PICK, three or four solves a pair) by more than 15 % + 0.05 px; the
    // photograph set and the real pairs are better everywhere; the cost at fixed work is 1.2-1.5x
    // one robust-none solve against pick's 2.8-3.9x.
    cfg->robust = OF_ROBUST_CENSUS;
    cfg->robust_sigma = 3.0f;
    cfg->median_size = 5;
    cfg->min_texture = 1.0f;
    cfg->iteration_growth = 0.0f;
    cfg->warm_start = 0;
    cfg->min_confidence = kConfDefaultMin; // core/confidence.hpp: measured, docs/accuracy.md
    cfg->init = OF_INIT_DIS;
    if (algo == OF_ALGO_LK) {
        // LK has no warps (core/lk_algorithm.cpp); its Newton steps per level are the
        // iterations (10: within 0.001 px of 50 on the synthetic cases, docs/accuracy.md),
        // epsilon stops each pixel; no median unless asked for.
        cfg->warps = 1;
        cfg->iterations = 10;
        cfg->median_size = 0;
    }
    dis_preset_params(&cfg->dis, OF_DIS_MEDIUM);
    if (algo == OF_ALGO_DIS) {
        // DIS has no warps; its steps are config.dis.iterations (config.iterations, epsilon and
        // iteration_growth do not apply); its densification and refinement smooth the flow, so
        // no median filter unless asked for.
        cfg->warps = 1;
        cfg->median_size = 0;
        // One solve under LEVEL_NORM instead of robust pick's three: DIS is the real-time
        // algorithm, and on the accuracy matrix (MEDIUM) pick bought 0.90 px mean EPE against
        // LEVEL_NORM's 0.94 at three times the time (docs/accuracy.md, "Dense Inverse Search").
        cfg->robust = OF_ROBUST_LEVEL_NORM;
        cfg->init = OF_INIT_NONE; // DIS is its own search
        // No texture rule: a patch without texture keeps the coarser flow already (dis_solvable,
        // core/dis_kernels.hpp), while the rule cut a fine texture's pyramid to its finest
        // levels, where a patch cannot reach large motion (rotation-720p of the accuracy matrix,
        // MEDIUM: 21.05 px mean EPE with min_texture 1, 0.89 with 0).
        cfg->min_texture = 0.0f;
    }
    return true;
}

bool dis_preset_params(of_dis_params* d, int32_t id) {
    // OpenCV 4.6's presets (cv::DISOpticalFlow::create): finest scale, patch size, stride,
    // gradient descent iterations, variational refinement iterations.
    struct Row {
        uint32_t finest, patch, stride, iterations, refine;
    };
    static const Row rows[3] = {{2, 8, 4, 12, 0}, {2, 8, 4, 16, 5}, {1, 8, 3, 25, 5}};
    if (id < OF_DIS_ULTRAFAST || id > OF_DIS_MEDIUM) return false;
    const Row& r = rows[id];
    d->finest_level = r.finest;
    d->patch_size = r.patch;
    d->patch_stride = r.stride;
    d->iterations = r.iterations;
    d->refine_iterations = r.refine;
    // The refinement's weights are this library's (docs/accuracy.md, "Dense Inverse Search"):
    // OpenCV's alpha 20 is the weight of a robust (total-variation-like) smoothness; the
    // quadratic smoothness of the library's SOR needs more (on the accuracy matrix, MEDIUM under
    // LEVEL_NORM: mean EPE 0.93 px at 100 and 300, 1.03 at 20 and at 1000).
    d->refine_alpha = 300.0f;
    d->refine_delta = 5.0f;
    d->refine_gamma = 10.0f;
    return true;
}

of_status check_config(const of_config* cfg, const ErrorSink& err) {
    if (!cfg) return err.fail(OF_ERR_NULL_POINTER, "config is NULL");
    if (cfg->struct_size != sizeof(of_config))
        return err.fail(OF_ERR_STRUCT_SIZE, "config: struct_size %u, this library expects %u",
                        cfg->struct_size, static_cast<unsigned>(sizeof(of_config)));
    const int32_t id = raw_enum(cfg->algorithm);
    const Algorithm* algo = find_algorithm(id);
    if (!algo) {
        if (algorithm_known(id))
            return err.fail(OF_ERR_UNSUPPORTED, "config: algorithm %d (%s) is not implemented yet", id,
                            platform::algorithm_name(static_cast<of_algorithm>(id)));
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: unknown algorithm %d", id);
    }
    if (cfg->max_width < 1 || cfg->max_width > 32768 || cfg->max_height < 1 || cfg->max_height > 32768)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: max size %ux%u outside 1..32768 per side", cfg->max_width,
                        cfg->max_height);
    const int32_t format = raw_enum(cfg->format);
    if (format != OF_PIXEL_U8 && format != OF_PIXEL_U16 && format != OF_PIXEL_F32)
        return err.fail(OF_ERR_FORMAT, "config: unknown pixel format %d", format);
    if (cfg->levels > 16)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: levels %u > 16", cfg->levels);
    // A factor below 0.01 shrinks a level below 1% of the next: its anti-aliasing sigma
    // 0.6 sqrt(1/f^2 - 1) exceeds the blur radius the kernels hold, and near the smallest floats
    // 1/f^2 overflows. Above 0.99 levels barely shrink (16 levels cover less than 15%).
    if (!(cfg->scale_factor >= 0.01f && cfg->scale_factor <= 0.99f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: scale_factor %g not in [0.01, 0.99]",
                        static_cast<double>(cfg->scale_factor));
    if (cfg->warps < 1 || cfg->warps > 100)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: warps %u not in 1..100", cfg->warps);
    if (cfg->iterations < 1 || cfg->iterations > 100000)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: iterations %u not in 1..100000",
                        cfg->iterations);
    if (!(cfg->epsilon >= 0.0f) || !std::isfinite(cfg->epsilon))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: epsilon %g must be finite and >= 0",
                        static_cast<double>(cfg->epsilon));
    if (!(cfg->presmooth_sigma >= 0.0f && cfg->presmooth_sigma <= 8.0f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: presmooth_sigma %g not in [0, 8]",
                        static_cast<double>(cfg->presmooth_sigma));
    const int32_t robust = raw_enum(cfg->robust);
    if (robust < OF_ROBUST_NONE || robust > kRobustLast)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: unknown robust mode %d (0 none, 1 local-norm, 2 range-match, 3 level-norm, 4 pick, "
                        "5 shade-norm, 6 census)", robust);
    if (robust == OF_ROBUST_CENSUS && cfg->algorithm != OF_ALGO_TVL1 && cfg->algorithm != OF_ALGO_HS &&
        cfg->algorithm != OF_ALGO_CLG && cfg->algorithm != OF_ALGO_LK)
        return err.fail(OF_ERR_UNSUPPORTED,
                        "config: robust census is TV-L1's, HS's, CLG's and LK's only in this version (algorithm %d)",
                        static_cast<int>(raw_enum(cfg->algorithm)));
    if (!(cfg->robust_sigma >= 0.5f && cfg->robust_sigma <= 10.0f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: robust_sigma %g not in [0.5, 10]",
                        static_cast<double>(cfg->robust_sigma));
    if (cfg->median_size != 0 && cfg->median_size != 3 && cfg->median_size != 5)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: median_size %u not 0, 3 or 5", cfg->median_size);
    if (!(cfg->min_texture >= 0.0f && cfg->min_texture <= 1e6f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: min_texture %g not in [0, 1e6]",
                        static_cast<double>(cfg->min_texture));
    if (!(cfg->iteration_growth >= 0.0f && cfg->iteration_growth <= kMaxIterationGrowth))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: iteration_growth %g not in [0, %g]",
                        static_cast<double>(cfg->iteration_growth), static_cast<double>(kMaxIterationGrowth));
    if (cfg->warm_start > 1)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: warm_start %u not 0 or 1", cfg->warm_start);
    if (!(cfg->min_confidence >= 0.0f && cfg->min_confidence <= 1.0f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: min_confidence %g not in [0, 1]",
                        static_cast<double>(cfg->min_confidence));
    const int32_t init = raw_enum(cfg->init);
    if (init != OF_INIT_NONE && init != OF_INIT_DIS)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: unknown init %d (0 none, 1 dis)", init);
    if (init == OF_INIT_DIS && cfg->algorithm == OF_ALGO_DIS)
        return err.fail(OF_ERR_UNSUPPORTED, "config: init dis is for TV-L1, HS, CLG and LK (DIS is its own search)");
    // The algorithm's own parameters (config.tvl1, config.hs, ...).
    const of_status ps = algo->check_params(*cfg, err);
    if (ps != OF_OK) return ps;
    if (cfg->threads < 1 || cfg->threads > 64)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: threads %u not in 1..64", cfg->threads);
    if (!(cfg->time_budget_ms >= 0.0f) || !std::isfinite(cfg->time_budget_ms))
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: time_budget_ms %g must be finite and >= 0 (0 = no budget)",
                        static_cast<double>(cfg->time_budget_ms));
    const int32_t precision = raw_enum(cfg->precision);
    if (precision != OF_PRECISION_AUTO && precision != OF_PRECISION_F32 && precision != OF_PRECISION_F16)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: unknown precision %d", precision);
    // Availability of a known backend is decided by select_and_plan().
    const int32_t backend = raw_enum(cfg->backend);
    if (backend != OF_BACKEND_AUTO && backend != OF_BACKEND_REFERENCE && backend != OF_BACKEND_NEON &&
        backend != OF_BACKEND_CUDA)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: unknown backend %d", backend);
    const int32_t variant = raw_enum(cfg->variant);
    if (variant != OF_VARIANT_AUTO && variant != OF_VARIANT_GLOBAL && variant != OF_VARIANT_FUSED &&
        variant != OF_VARIANT_MULTI_ITER)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: unknown variant %d", variant);
    if (cfg->block_width > 1024 || cfg->block_height > 1024 ||
        cfg->block_width * cfg->block_height > 1024)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: block %ux%u exceeds 1024 threads", cfg->block_width, cfg->block_height);
    if (cfg->fused_depth > 16)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: fused_depth %u > 16", cfg->fused_depth);
    if (cfg->host_arena && (reinterpret_cast<std::uintptr_t>(cfg->host_arena) % 64) != 0)
        return err.fail(OF_ERR_ARENA, "config: host_arena %p is not 64-byte aligned", cfg->host_arena);
    if (cfg->device_arena && (reinterpret_cast<std::uintptr_t>(cfg->device_arena) % 256) != 0)
        return err.fail(OF_ERR_ARENA, "config: device_arena %p is not 256-byte aligned",
                        cfg->device_arena);
    return OF_OK;
}

} // namespace oflow
