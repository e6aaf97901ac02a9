// Sizing of the CUDA path (see cuda_layout.hpp). Host code only.
#include "cuda/cuda_layout.hpp"

#include "core/dis_kernels.hpp"
#include "core/hs_kernels.hpp"
#include "core/schedule.hpp"

#include <cstdlib>
#include <cstring>
#include <limits>

namespace oflow {
namespace cuda {
namespace {

// OFLOW_CUDA_F16_ROWS: 4, 6 or 8 rows per thread for F16x2 MULTI_ITER (a tuning knob for
// oflow-bench / oflow-tune, read at plan time); 0 when unset or any other value.
int f16_rows_override() {
    const char* e = std::getenv("OFLOW_CUDA_F16_ROWS");
    if (e && (!std::strcmp(e, "4") || !std::strcmp(e, "6") || !std::strcmp(e, "8"))) return e[0] - '0';
    return 0;
}

// OFLOW_CUDA_MULTI_BOUND: 128, 256 or 512; 0 when unset or any other value.
int multi_bound_override() {
    const char* e = std::getenv("OFLOW_CUDA_MULTI_BOUND");
    if (e && (!std::strcmp(e, "128") || !std::strcmp(e, "256") || !std::strcmp(e, "512"))) return std::atoi(e);
    return 0;
}

const std::size_t kSizeMax = std::numeric_limits<std::size_t>::max();

bool mul(std::size_t a, std::size_t b, std::size_t* out) {
    if (a != 0 && b > kSizeMax / a) return false;
    *out = a * b;
    return true;
}

// Appends a region of `bytes` at 256-byte alignment to a running offset.
struct Carver {
    std::size_t off = 0;
    bool ok = true;
    std::size_t take(std::size_t bytes) {
        if (!ok) return 0;
        if (off > kSizeMax - (kDeviceAlign - 1)) {
            ok = false;
            return 0;
        }
        off = (off + kDeviceAlign - 1) / kDeviceAlign * kDeviceAlign;
        const std::size_t at = off;
        if (off > kSizeMax - bytes) {
            ok = false;
            return 0;
        }
        off += bytes;
        return at;
    }
    // The total, rounded up to kDeviceAlign (checked like every step: off + 255 could wrap).
    bool end(std::size_t* total) {
        take(0);
        *total = off;
        return ok;
    }
};

// Bytes of a level-0 plane with elements of `elem` bytes.
bool plane(const LevelDims& d, std::size_t elem, std::size_t* out) {
    return mul(static_cast<std::size_t>(d.pitch), static_cast<std::size_t>(d.h), out) &&
           mul(*out, elem, out);
}

// The block of HS's and LK's resolutions: the config's, else the table row's where it applies
// (row_block), else bw0 x bh0; rows, depth 1, no bound, no shared memory (the caller sets what its
// variant needs). Fails unless the block holds 1..1024 threads.
of_status base_shape(const of_config& cfg, const LaunchDefaults* d, bool row_block, int bw0, int bh0, Tuning* t,
                     const ErrorSink& err) {
    t->bw = cfg.block_width ? static_cast<int>(cfg.block_width) : (row_block ? d->bw : bw0);
    t->bh = cfg.block_height ? static_cast<int>(cfg.block_height) : (row_block ? d->bh : bh0);
    t->rows = 1;
    t->depth = 1;
    t->bound = 0;
    t->shared_bytes = 0;
    if (t->bw < 1 || t->bh < 1 || t->bw * t->bh > 1024)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: block %dx%d: 1..1024 threads", t->bw, t->bh);
    return OF_OK;
}

} // namespace

std::size_t format_bytes(of_pixel_format f) {
    return f == OF_PIXEL_U16 ? 2u : (f == OF_PIXEL_F32 ? 4u : 1u);
}

std::ptrdiff_t dev_pitch(int w) { return (static_cast<std::ptrdiff_t>(w) + 63) / 64 * 64; }

int dev_pyramid_dims(int w, int h, const of_config& cfg, LevelDims* dims) {
    const int n = pyramid_dims(w, h, static_cast<int>(cfg.levels), cfg.scale_factor, dims, pyramid_min_side(cfg.robust));
    for (int l = 0; l < n; ++l) dims[l].pitch = dev_pitch(dims[l].w);
    return n;
}

of_status resolve_tuning(const of_config& cfg, const LaunchDefaults* defaults, Tuning* t, const ErrorSink& err) {
    default_shape(tvl1_run_config(cfg), defaults, t);
    const int rows = t->rows;
    if (t->bw * t->bh > 1024)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: block %dx%d exceeds 1024 threads", t->bw,
                        t->bh);
    t->rows = 1;
    t->bound = 0;
    t->tile_w = t->region_w = t->bw;
    t->tile_h = t->region_h = t->bh;
    switch (t->variant) {
    case OF_VARIANT_GLOBAL:
        t->shared_bytes = 0;
        break;
    case OF_VARIANT_FUSED:
        t->shared_bytes = fused_shared_bytes(t->precision, t->bw, t->bh);
        break;
    case OF_VARIANT_MULTI_ITER:
    default: {
        // One lane per column: the block is one warp wide, block_height warps tall, and each
        // thread holds multi_rows(precision) rows.
        if (t->bw != 32 || t->bh < 1 || t->bh > multi_max_warps(t->precision))
            return err.fail(OF_ERR_INVALID_ARGUMENT,
                            "config: MULTI_ITER block %dx%d: the width must be 32 (one lane per "
                            "column) and the height 1..%d warps",
                            t->bw, t->bh, multi_max_warps(t->precision));
        t->rows = t->precision == OF_PRECISION_F16 && f16_rows_override() ? f16_rows_override() : rows;
        const bool rows_ok = t->precision == OF_PRECISION_F16 ? (t->rows == 4 || t->rows == 6 || t->rows == 8)
                                                              : t->rows == kMultiRowsF32;
        if (!rows_ok)
            return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: MULTI_ITER %s holds %s rows per thread, not %d",
                            t->precision == OF_PRECISION_F16 ? "F16x2" : "F32",
                            t->precision == OF_PRECISION_F16 ? "4, 6 or 8" : "8", t->rows);
        t->region_w = multi_region_w(t->precision);
        t->region_h = t->bh * t->rows;
        if (t->region_w <= 2 * t->depth || t->region_h <= 2 * t->depth)
            return err.fail(OF_ERR_INVALID_ARGUMENT,
                            "config: MULTI_ITER region %dx%d has no output pixels with fused_depth %d "
                            "(each side must exceed 2 x depth = %d)",
                            t->region_w, t->region_h, t->depth, 2 * t->depth);
        t->tile_w = t->region_w - 2 * t->depth;
        t->tile_h = t->region_h - 2 * t->depth;
        t->shared_bytes = 0; // two exchanged rows per warp, static shared memory
        const int threads = t->bw * t->bh;
        const bool table = defaults && defaults->has && defaults->variant == OF_VARIANT_MULTI_ITER;
        t->bound = multi_bound_for(t->precision, table ? defaults->bound : 0, threads);
        if (const int forced = multi_bound_override()) {
            if (!multi_bound_ok(t->precision, forced, threads))
                return err.fail(OF_ERR_INVALID_ARGUMENT,
                                "tuning: OFLOW_CUDA_MULTI_BOUND=%d cannot launch a MULTI_ITER %s block of %d threads",
                                forced, t->precision == OF_PRECISION_F16 ? "F16x2" : "F32", t->bw * t->bh);
            t->bound = forced;
        }
        break;
    }
    }
    if (t->shared_bytes > kMaxDynamicShared)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: block %dx%d needs %zu bytes of shared memory, more than the %zu "
                        "every board allows",
                        t->bw, t->bh, t->shared_bytes, kMaxDynamicShared);
    return OF_OK;
}

of_status hs_resolve_tuning(const of_config& cfg, const LaunchDefaults* d, Tuning* t, const ErrorSink& err) {
    const bool sor = cfg.hs.solver == OF_SOLVER_RED_BLACK_SOR;
    const bool table = d && d->has;
    // Under OF_ROBUST_CENSUS the solver runs F32 whatever was asked (as on the CPU, api/oflow.h).
    const bool f16 = cfg.precision == OF_PRECISION_F16 && cfg.robust != OF_ROBUST_CENSUS;
    t->precision = f16 ? OF_PRECISION_F16 : OF_PRECISION_F32;
    of_variant v = cfg.variant != OF_VARIANT_AUTO ? cfg.variant : (table ? d->variant : OF_VARIANT_MULTI_ITER);
    // Under OF_ROBUST_CENSUS, AUTO runs Jacobi as GLOBAL: MULTI_ITER tests the epsilon stop once
    // per launch of `depth` iterations, and the census tensor's Jacobi meets the reference's stop
    // within a few iterations a warp, so MULTI_ITER ran on past it (H200, 384x288 translation with
    // gain, offset and noise: 350 iterations and EPE 0.082 against the reference's 94 and 0.072;
    // GLOBAL: 94 and 0.072). An explicit MULTI_ITER is kept, with that stop.
    if (cfg.robust == OF_ROBUST_CENSUS && !sor && cfg.variant == OF_VARIANT_AUTO) v = OF_VARIANT_GLOBAL;
    if (sor && v == OF_VARIANT_MULTI_ITER) {
        if (cfg.variant == OF_VARIANT_MULTI_ITER)
            return err.fail(OF_ERR_UNSUPPORTED,
                            "config: red-black SOR has no MULTI_ITER variant (GLOBAL: one launch per half-sweep; "
                            "FUSED: red and black in one launch)");
        v = OF_VARIANT_FUSED; // the table's MULTI_ITER rows are Jacobi's
    }
    t->variant = v;
    const bool from_table = table && d->variant == v;
    const bool lanes32 = !sor && v != OF_VARIANT_GLOBAL; // the register-tiled Jacobi kernel
    // A table row's block applies when it is for this variant (and, for the 32-lane kernel, 32 wide:
    // the thesis's Shared_Fusion rows are 64x8, a shape that kernel cannot take).
    const bool row_block = from_table && (!lanes32 || d->bw == 32);
    const of_status s = base_shape(cfg, d, row_block, sor ? kHsSorBlockX : 32, sor ? kHsSorBlockY : 8, t, err);
    if (s != OF_OK) return s;
    if (lanes32) {
        if (t->bw != 32 || t->bh > kMultiMaxWarps)
            return err.fail(OF_ERR_INVALID_ARGUMENT,
                            "config: HS/CLG %s Jacobi block %dx%d: the width must be 32 (one lane per column) and "
                            "the height 1..%d warps",
                            v == OF_VARIANT_FUSED ? "FUSED" : "MULTI_ITER", t->bw, t->bh, kMultiMaxWarps);
        // FUSED (depth 1) gains nothing from tall strips: 4 rows, the kernel that fits every board
        // without spilling (k_hs_multi<__half2, 8> spills 136 B on sm_53/62: docs/jetson-resources.md).
        const int rows = v == OF_VARIANT_FUSED ? kHsRowsFused
                         : row_block && d->rows > 1 ? d->rows
                                                    : (f16 ? kHsRowsF16 : kHsRowsF32);
        if (rows != 4 && rows != 6 && rows != 8)
            return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: HS/CLG MULTI_ITER holds 4, 6 or 8 rows per thread, not %d",
                            rows);
        t->rows = rows;
        t->depth = v == OF_VARIANT_FUSED ? 1
                   : cfg.fused_depth ? static_cast<int>(cfg.fused_depth)
                   : row_block && d->depth > 0 ? d->depth
                                               : (f16 ? kHsDepthF16 : kHsDepthF32);
        t->region_w = 32 * hs_multi_cols(t->precision);
        t->region_h = t->bh * t->rows;
        if (t->region_w <= 2 * t->depth || t->region_h <= 2 * t->depth)
            return err.fail(OF_ERR_INVALID_ARGUMENT,
                            "config: HS/CLG MULTI_ITER region %dx%d has no output pixels with fused_depth %d (each "
                            "side must exceed 2 x depth = %d)",
                            t->region_w, t->region_h, t->depth, 2 * t->depth);
        t->tile_w = t->region_w - 2 * t->depth;
        t->tile_h = t->region_h - 2 * t->depth;
    } else if (sor) { // GLOBAL: bw slots (2 bw pixels) per block row; FUSED: 2 bw x bh pixels
        t->tile_w = t->region_w = 2 * t->bw;
        t->tile_h = t->region_h = t->bh;
        if (v == OF_VARIANT_FUSED) {
            t->region_w += 2;
            t->region_h += 2;
            t->shared_bytes = static_cast<std::size_t>(2 * t->bw + 2) * static_cast<std::size_t>(t->bh + 2) * (f16 ? 4u : 8u);
        }
    } else { // GLOBAL Jacobi
        t->tile_w = t->region_w = t->bw;
        t->tile_h = t->region_h = t->bh;
    }
    if (t->shared_bytes > kMaxDynamicShared)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: block %dx%d needs %zu bytes of shared memory, more than the %zu every board allows",
                        t->bw, t->bh, t->shared_bytes, kMaxDynamicShared);
    return OF_OK;
}

of_status lk_resolve_tuning(const of_config& cfg, const LaunchDefaults* d, Tuning* t, const ErrorSink& err) {
    const bool table = d && d->has;
    // Under OF_ROBUST_CENSUS the census steps run (lk_census_cuda.cuh): GLOBAL's shape (a thread
    // per pixel), F32, whatever is asked, so the Tuning and of_info say what runs.
    const bool census = cfg.robust == OF_ROBUST_CENSUS;
    t->precision = cfg.precision == OF_PRECISION_F16 && !census ? OF_PRECISION_F16 : OF_PRECISION_F32;
    // Without a table row: FUSED, the variant measured fastest (oflow-bench --lk, H100: FUSED F32
    // 16.7x GLOBAL F32 per step at 4096^2, window 11; MULTI_ITER 3-8 % slower in frames).
    const of_variant v = census                        ? OF_VARIANT_GLOBAL
                         : cfg.variant != OF_VARIANT_AUTO ? cfg.variant
                                                          : (table ? d->variant : OF_VARIANT_FUSED);
    t->variant = v;
    const bool lanes32 = v != OF_VARIANT_GLOBAL;
    const bool row_block = table && d->variant == v && (!lanes32 || d->bw == 32);
    const of_status s = base_shape(cfg, d, row_block, 32, 8, t, err);
    if (s != OF_OK) return s;
    const int r = (static_cast<int>(cfg.lk.window) - 1) / 2;
    t->tile_w = t->region_w = t->bw;
    t->tile_h = t->region_h = t->bh;
    if (lanes32) {
        if (t->bw != 32 || t->bh > kLkMaxWarps)
            return err.fail(OF_ERR_INVALID_ARGUMENT,
                            "config: LK %s block %dx%d: the width must be 32 (one lane per column) and the height "
                            "1..%d warps",
                            v == OF_VARIANT_FUSED ? "FUSED" : "MULTI_ITER", t->bw, t->bh, kLkMaxWarps);
        if (v == OF_VARIANT_FUSED) {
            // The update's tile (its launch reduces); the residual pass computes kLkFusedCols + 2r
            // columns for kLkFusedCols.
            t->tile_h = t->bh * kLkFusedRows;
            t->region_w = kLkFusedCols + 2 * r;
            t->region_h = 1;
            t->shared_bytes = lk_fused_shared_bytes(t->bh, r);
        } else {
            int rows = row_block && d->rows > 1 ? d->rows : kLkTileRows;
            if (rows != 1 && rows != 2 && rows != 4 && rows != 8)
                return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: LK MULTI_ITER holds 1, 2, 4 or 8 rows per thread, not %d",
                                rows);
            while (rows > 1 && lk_tile_shared_bytes(t->bh, rows, r) > kMaxDynamicShared) rows /= 2;
            t->rows = rows;
            t->tile_h = t->bh * rows;
            t->region_w = 32 + 2 * r;
            t->region_h = t->tile_h + 2 * r;
            t->shared_bytes = lk_tile_shared_bytes(t->bh, rows, r);
        }
    }
    if (t->shared_bytes > kMaxDynamicShared)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: LK block %dx%d with window %u needs %zu bytes of shared memory, more than the %zu every "
                        "board allows",
                        t->bw, t->bh, cfg.lk.window, t->shared_bytes, kMaxDynamicShared);
    return OF_OK;
}

of_status dis_resolve_tuning(const of_config& cfg, const LaunchDefaults* d, Tuning* t, const ErrorSink& err) {
    const bool table = d && d->has;
    const bool f16 = cfg.precision == OF_PRECISION_F16;
    t->precision = f16 ? OF_PRECISION_F16 : OF_PRECISION_F32;
    of_variant v = cfg.variant != OF_VARIANT_AUTO ? cfg.variant : (table ? d->variant : OF_VARIANT_FUSED);
    if (v == OF_VARIANT_MULTI_ITER) {
        if (cfg.variant == OF_VARIANT_MULTI_ITER)
            return err.fail(OF_ERR_UNSUPPORTED,
                            "config: DIS has no MULTI_ITER variant (GLOBAL: a thread per patch; FUSED: %d lanes per "
                            "patch, propagation and steps in one launch)",
                            kDisLanes);
        v = OF_VARIANT_FUSED;
    }
    t->variant = v;
    const bool row_block = table && d->variant == v;
    const of_status s = base_shape(cfg, d, row_block, kHsSorBlockX, kHsSorBlockY, t, err);
    if (s != OF_OK) return s;
    // The block is the refinement's SOR block (HS's kernels); the patch kernels have fixed blocks.
    t->tile_w = t->region_w = 2 * t->bw;
    t->tile_h = t->region_h = t->bh;
    if (v == OF_VARIANT_FUSED) {
        t->region_w += 2;
        t->region_h += 2;
        t->shared_bytes = static_cast<std::size_t>(2 * t->bw + 2) * static_cast<std::size_t>(t->bh + 2) * (f16 ? 4u : 8u);
    }
    if (t->shared_bytes > kMaxDynamicShared)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: DIS block %dx%d needs %zu bytes of shared memory, more than the %zu every board allows",
                        t->bw, t->bh, t->shared_bytes, kMaxDynamicShared);
    return OF_OK;
}

of_status make_layout(const of_config& cfg, const Tuning& t, DevLayout* l) {
    l->levels = dev_pyramid_dims(static_cast<int>(cfg.max_width), static_cast<int>(cfg.max_height),
                                 cfg, l->dims);
    const LevelDims& d0 = l->dims[0];
    l->pyr_elem = half_pyramids(cfg, t) ? 2u : 4u;
    // One pyramid: every level back to back, each 256-byte aligned.
    Carver pyr;
    for (int lv = 0; lv < kMaxLevels; ++lv) {
        l->level_off[lv] = 0;
        if (lv >= l->levels) continue;
        std::size_t b = 0;
        if (!plane(l->dims[lv], l->pyr_elem, &b)) return OF_ERR_OVERFLOW;
        l->level_off[lv] = pyr.take(b);
    }
    if (!pyr.ok) return OF_ERR_OVERFLOW;
    const std::size_t pyr_bytes = pyr.off;

    std::size_t f32 = 0, f2 = 0, f4 = 0, t2 = 0, raw = 0, flow = 0;
    const std::size_t pair = t.precision == OF_PRECISION_F16 ? 4u : 8u;
    const std::size_t w0 = cfg.max_width, h0 = cfg.max_height;
    if (!plane(d0, 4, &f32) || !plane(d0, 8, &f2) || !plane(d0, 16, &f4) || !plane(d0, pair, &t2) ||
        !mul(w0 * h0, format_bytes(cfg.format), &raw) || !mul(w0 * h0, 8, &flow))
        return OF_ERR_OVERFLOW;
    std::size_t scratch = 0;
    if (!mul(f32, 2, &scratch)) return OF_ERR_OVERFLOW;
    const bool pingpong_p = t.variant != OF_VARIANT_GLOBAL;

    // Blocks of one iteration launch at the largest level: one partial sum each. LK's
    // confidence launch (its valid count) has plane blocks.
    const bool hs = is_variational(cfg.algorithm), lk = is_lk(cfg.algorithm), dis = is_dis(cfg.algorithm),
               tvl1 = !hs && !lk && !dis;
    const auto blocks = [&](int tw, int th) {
        return ((w0 + static_cast<std::size_t>(tw) - 1) / static_cast<std::size_t>(tw)) *
               ((h0 + static_cast<std::size_t>(th) - 1) / static_cast<std::size_t>(th));
    };
    l->partial_count = blocks(t.tile_w, t.tile_h);
    if (lk && blocks(kPlaneBlockX, kPlaneBlockY) > l->partial_count) l->partial_count = blocks(kPlaneBlockX, kPlaneBlockY);

    Carver c;
    l->pyr[0] = c.take(pyr_bytes);
    l->pyr[1] = c.take(pyr_bytes);
    l->raw_bytes = raw;
    l->raw[0] = c.take(raw);
    l->raw[1] = c.take(raw);
    l->warm_bytes = 0;
    const bool pick = cfg.robust == OF_ROBUST_PICK; // no warm start under pick (api/oflow.h)
    if (cfg.warm_start && !pick && !plane(l->dims[warm_level(l->levels)], 8, &l->warm_bytes)) return OF_ERR_OVERFLOW;
    l->warm = c.take(l->warm_bytes);
    // TV-L1 reuses its solver planes for the frame's scratch (the schedule: solve() converts,
    // normalises and builds both pyramids before any level touches u, p, g or rc, and the
    // output runs after the last level): scratch = u[0] (2 F32 planes, exactly its bytes), the
    // normalisation's 3 planes from u[1] on, the output's 2 planes from px[0] on. Every slot is
    // a whole number of 256-byte units (pitches are multiples of 64 elements), so the work
    // planes lie back to back and those spans stay inside them (checked below).
    l->scratch = tvl1 ? 0 : c.take(scratch);
    const bool sor = (hs && cfg.hs.solver == OF_SOLVER_RED_BLACK_SOR) || dis; // DIS: its refinement's SOR
    l->u[0] = c.take(f2);
    l->u[1] = c.take(f2);
    l->px[0] = c.take(tvl1 ? t2 : 0);
    l->py[0] = c.take(tvl1 ? t2 : 0);
    l->px[1] = pingpong_p && tvl1 ? c.take(t2) : l->px[0];
    l->py[1] = pingpong_p && tvl1 ? c.take(t2) : l->py[0];
    l->g = c.take(tvl1 ? t2 : 0);
    l->rc = c.take(tvl1 ? f32 : 0);
    l->gr = c.take(!tvl1 || t.precision == OF_PRECISION_F16 ? 0 : f32);
    l->work_end = tvl1 ? c.off : 0;
    const bool census = cfg.robust == OF_ROBUST_CENSUS;
    l->tv_i1w = c.take(tvl1 && census ? f32 : 0);
    l->tv_census_g = c.take(tvl1 && census ? f2 : 0);
    l->tv_minor = c.take(tvl1 && census ? f2 : 0);
    if (tvl1) {
        std::size_t three = 0;
        if (!mul(f32, 3, &three)) return OF_ERR_OVERFLOW;
        l->scratch = l->u[0];
        l->robust = l->u[1];
        l->out_scratch = l->px[0];
        if (l->u[1] != l->u[0] + f2 || l->robust + three > l->work_end || l->out_scratch + scratch > l->work_end)
            return OF_ERR_INTERNAL; // the spans above left the solver planes: a layout bug
    } else {
        l->out_scratch = l->scratch;
    }
    // HS / CLG: an SOR slot holds both half planes (each hs_half_pitch rows: dev_pitch(ceil(w/2))).
    std::size_t slot = t2, split = 0, tensor = 0;
    if (sor) {
        if (!mul(static_cast<std::size_t>(dev_pitch((static_cast<int>(w0) + 1) / 2)) * 2, h0, &split) ||
            !mul(split, pair, &split))
            return OF_ERR_OVERFLOW;
        slot = split > t2 ? split : t2;
    }
    const bool blurred = hs && cfg.algorithm == OF_ALGO_CLG && make_gaussian(cfg.hs.rho).radius > 0;
    if ((blurred || (hs && census)) && !mul(f32, kHsChannels, &tensor)) return OF_ERR_OVERFLOW;
    l->hs_slot = hs || dis ? slot : 0;
    l->hs_i1w = c.take(hs || dis ? f32 : 0);
    l->hs_deriv = c.take(hs ? f4 : 0);
    l->hs_tensor = c.take(tensor);
    l->hs_census = c.take(blurred && census ? tensor : 0);
    for (int k = 0; k < 3; ++k) l->hs_coef[k] = c.take(l->hs_slot);
    for (int k = 0; k < 2; ++k) l->hs_du[k] = c.take(l->hs_slot);
    // LK: the gradient pairs, the box sums (4 planes: 3 tensor channels, or 2 float2 planes), the
    // tensor (3 planes), the confidence and the state bytes.
    std::size_t f32x3 = 0, f32x4 = 0, bytes = 0;
    if (!mul(f32, 3, &f32x3) || !mul(f32, 4, &f32x4) || !plane(d0, 1, &bytes)) return OF_ERR_OVERFLOW;
    l->lk_g = c.take(lk ? t2 : 0);
    l->lk_box = c.take(lk ? f32x4 : 0);
    l->lk_tensor = c.take(lk ? f32x3 : 0);
    l->lk_conf = c.take(lk ? f32 : 0);
    l->lk_state = c.take(lk ? bytes : 0);
    // DIS: the gradient pairs, the sparse patch planes (the largest grid of any level).
    l->dis_sp_pitch = 0;
    l->dis_sp_h = 0;
    l->dis_sp_plane = 0;
    if (dis) {
        int nx = 1, ny = 1;
        for (int lv = 0; lv < l->levels; ++lv) {
            const DisGrid g = dis_grid(l->dims[lv].w, l->dims[lv].h, static_cast<int>(cfg.dis.patch_size),
                                       static_cast<int>(cfg.dis.patch_stride));
            if (g.nx > nx) nx = g.nx;
            if (g.ny > ny) ny = g.ny;
        }
        l->dis_sp_pitch = static_cast<int>(dev_pitch(nx));
        l->dis_sp_h = ny;
        if (!mul(static_cast<std::size_t>(l->dis_sp_pitch) * static_cast<std::size_t>(ny), 4, &l->dis_sp_plane))
            return OF_ERR_OVERFLOW;
    }
    const std::size_t sp = l->dis_sp_plane;
    l->dis_g = c.take(dis ? t2 : 0);
    l->dis_sum = c.take(sp * kDisSums);
    l->dis_s = c.take(sp * 2);
    l->dis_t[0] = c.take(sp * 2);
    l->dis_t[1] = c.take(sp * 2);
    l->dis_md = c.take(sp);
    l->dis_err = c.take(sp);
    // DIS: the local normalisation's 3 F32 planes and the confidence's 4 in the refinement's
    // coefficient and increment slots (5 consecutive slots of at least one F32 plane each), free
    // before the first level and after the last.
    if (!tvl1) l->robust = hs ? l->hs_deriv : lk ? l->lk_box : l->hs_coef[0];
    l->ctrl = c.take(sizeof(Ctrl));
    std::size_t partial_bytes = 0;
    if (!mul(l->partial_count, sizeof(float), &partial_bytes)) return OF_ERR_OVERFLOW;
    l->partials = c.take(partial_bytes);
    l->red_partials = c.take(sor && t.variant == OF_VARIANT_GLOBAL ? partial_bytes : 0);
    const std::size_t pick_stop = pick ? static_cast<std::size_t>(pick_count(cfg.algorithm)) * kPickStopInts * sizeof(int) : 0;
    for (int f = 0; f < 2; ++f) l->pick_frame[f] = c.take(pick ? f32 : 0);
    for (int f = 0; f < 2; ++f) l->pick_judge[f] = c.take(pick ? f32 : 0);
    l->pick_u = c.take(pick ? f2 : 0);
    l->pick_conf = c.take(pick && lk ? f32 : 0);
    l->pick_stop = c.take(pick_stop);
    l->init_flow = c.take(cfg.init == OF_INIT_DIS ? f2 : 0);
    // The residual confidence's work planes (cuda_frame.cu conf_planes), carved nowhere: after
    // the solve every work plane but the flow's u[ucur] is free. TV-L1: kConfWorkPlanes F32
    // planes from px[0] on: the duals, g, rc and gr are per level or per warp and nothing reads
    // them after the last level; px[0] .. work_end is at least 4 F32 planes (F16 GLOBAL: px, py,
    // g, rc, one each) and lies after u[0] and u[1], so it holds neither flow plane. HS/CLG:
    // hs_deriv (float4: 4 F32 planes), the last warp's derivatives, read by nothing after it
    // (the flow is in u, the increments in hs_du). LK: lk_box (4 F32 planes of per-level box
    // sums; the lambda plane lk_conf the confidence combines with is a slot of its own). No device
    // memory more: the 1080p F16 target.
    l->conf_work = 0;
    if (tvl1) {
        std::size_t four = 0;
        if (!mul(f32, kConfWorkPlanes, &four)) return OF_ERR_OVERFLOW;
        l->conf_work = l->px[0];
        if (l->conf_work < l->u[1] + f2 || l->conf_work + four > l->work_end) return OF_ERR_INTERNAL;
    } else if (hs) {
        l->conf_work = l->hs_deriv; // f4 = kConfWorkPlanes F32 planes
    } else if (lk) {
        l->conf_work = l->lk_box; // LK: the box sums, per level (4 F32 planes); its lk_conf is kept
    } else {
        l->conf_work = l->hs_coef[0]; // DIS: hs_coef[0..2], hs_du[0] (at least 4 F32 planes)
    }
    if (!c.end(&l->device_bytes)) return OF_ERR_OVERFLOW;

    Carver s;
    l->stage_frame[0] = s.take(raw);
    l->stage_frame[1] = s.take(raw);
    const std::size_t frames_end = s.off;
    l->stage_flow = 0; // the flow comes back after the frames went up: same bytes
    s.off = frames_end > flow ? frames_end : flow;
    l->stage_ctrl = s.take((kStopSlots + 3) * sizeof(int));
    std::size_t valid = 0; // every algorithm: LK's lk_conf or the residual confidence conf
    if (!mul(w0 * h0, 4, &valid)) return OF_ERR_OVERFLOW;
    l->stage_valid = s.take(valid);
    l->stage_pick = s.take(pick ? pick_stop + sizeof(int) : 0);
    if (!s.end(&l->pinned_bytes)) return OF_ERR_OVERFLOW;
    return OF_OK;
}

void layout_rows(const DevLayout& l, LayoutRow* dev, int* ndev, LayoutRow* pinned, int* npinned) {
    const std::size_t plane0 = static_cast<std::size_t>(l.dims[0].pitch) * static_cast<std::size_t>(l.dims[0].h);
    const std::size_t pyr_bytes = l.pyr[1] - l.pyr[0];
    const bool tvl1 = l.work_end != 0;
    const bool pingpong = l.px[1] != l.px[0];
    // Bytes of each carved slot: the next slot's offset minus its own (slots are carved in this
    // order; zero-sized ones share the next offset).
    struct Slot {
        const char* name;
        const char* holds;
        std::size_t off;
        bool carved; // false: it reuses another slot's bytes (size given)
        std::size_t bytes;
    };
    const bool f16p = l.pyr_elem == 2;
    const Slot slots[] = {
        {"pyr[0]", f16p ? "frame 0's pyramid, every level, F16 (the frame)" : "frame 0's pyramid, every level, F32 (the frame)",
         l.pyr[0], true, 0},
        {"pyr[1]", f16p ? "frame 1's pyramid, every level, F16 (the frame)" : "frame 1's pyramid, every level, F32 (the frame)",
         l.pyr[1], true, 0},
        {"raw[0]", "an uploaded frame as given; a stream keeps its previous frame in one of the two", l.raw[0], true, 0},
        {"raw[1]", "the other uploaded frame", l.raw[1], true, 0},
        {"warm", "the warm level's flow kept for a stream's next pair (config.warm_start)", l.warm, true, 0},
        {"scratch", tvl1 ? "2 F32 planes: the converted frames, then the level blurs; reuses u[0]"
                         : "2 F32 planes: the converted frames, then the level blurs, then the host output",
         l.scratch, !tvl1, tvl1 ? plane0 * 8 : 0},
        {"u[0]", "float2 flow (u1, u2), ping-pong (the solve)", l.u[0], true, 0},
        {"u[1]", "float2 flow, the other half; after the solve, the one without the flow: the confidence (when asked)",
         l.u[1], true, 0},
        {"px[0]", "dual pair (p11, p21) (per level)", l.px[0], true, 0},
        {"py[0]", "dual pair (p12, p22) (per level)", l.py[0], true, 0},
        {"px[1]", "dual pair, ping-pong", pingpong ? l.px[1] : 0, pingpong, 0},
        {"py[1]", "dual pair, ping-pong", pingpong ? l.py[1] : 0, pingpong, 0},
        {"g", "warped gradient (I1wx, I1wy) (per warp)", l.g, true, 0},
        {"rc", "F32 rho_c (per warp)", l.rc, true, 0},
        {"gr", "F32 |grad I1w|^2 (per warp; F32 storage only)", l.gr, true, 0},
        {"tv_i1w", "TV-L1 under robust census: F32 frame 1 warped (per warp)", l.tv_i1w, true, 0},
        {"tv_census_g", "TV-L1 under robust census: frame 1's warped gradient pairs, the census channels' input (per warp)",
         l.tv_census_g, true, 0},
        {"tv_minor", "TV-L1 under robust census: the minor channel's (q, rho_c) pairs (per warp)", l.tv_minor, true, 0},
        {"robust", "3 F32 planes of the local normalisation (before the pyramids); reuses u[1] and px[0]", tvl1 ? l.robust : 0,
         false, tvl1 ? plane0 * 12 : 0},
        {"out_scratch", "2 F32 planes: the host output's packed rows (after the solve); reuses px[0] onwards",
         tvl1 ? l.out_scratch : 0, false, tvl1 ? plane0 * 8 : 0},
        {"hs_i1w", "HS/CLG (DIS: its refinement): F32 frame 1 warped (per warp)", l.hs_i1w, true, 0},
        {"hs_deriv", "HS/CLG: float4 (Ix, Iy, It) (per warp); the local normalisation's before, the confidence's work after",
         l.hs_deriv, true, 0},
        {"hs_tensor", "CLG: the smoothed tensor's channels; under robust census the census tensor (per warp)", l.hs_tensor,
         true, 0},
        {"hs_census", "CLG under robust census: the census tensor before its blur (per warp)", l.hs_census, true, 0},
        {"hs_coef[0]", "HS/CLG/DIS: coefficient pairs, diagonal (per warp)", l.hs_coef[0], true, 0},
        {"hs_coef[1]", "HS/CLG: coefficient pairs, off-diagonal (per warp)", l.hs_coef[1], true, 0},
        {"hs_coef[2]", "HS/CLG: coefficient pairs, right-hand side (per warp)", l.hs_coef[2], true, 0},
        {"hs_du[0]", "HS/CLG/DIS: increment (du, dv), ping-pong", l.hs_du[0], true, 0},
        {"hs_du[1]", "HS/CLG: increment, the other half of the ping-pong", l.hs_du[1], true, 0},
        {"lk_g", "LK: frame 0's gradient pairs (per level); robust census: J13, J23 (per step)", l.lk_g, true, 0},
        {"lk_box",
         "LK: 4 F32 planes of box sums (per level; robust census: 3 and I1w, per step); the local normalisation's "
         "before, the confidence's work after",
         l.lk_box, true, 0},
        {"lk_tensor", "LK: 3 F32 planes, the tensor or -G^-1 (per level; robust census: J11, J12, J22 per step)",
         l.lk_tensor, true, 0},
        {"lk_conf", "LK: F32 lambda, its own rule (per level; level 0's is combined into the validity output)", l.lk_conf, true, 0},
        {"lk_state", "LK: a byte per pixel, valid and stepping (per level)", l.lk_state, true, 0},
        {"dis_g", "DIS: frame 0's gradient pairs (per level)", l.dis_g, true, 0},
        {"dis_sum", "DIS: 5 sparse F32 planes, the patch sums (per level)", l.dis_sum, true, 0},
        {"dis_s", "DIS: sparse float2, the patches' starts (per round)", l.dis_s, true, 0},
        {"dis_t[0]", "DIS: sparse float2, the patches' flows after a round", l.dis_t[0], true, 0},
        {"dis_t[1]", "DIS: sparse float2, the other half of the rounds' ping-pong", l.dis_t[1], true, 0},
        {"dis_md", "DIS: sparse F32, the patches' mean error (per level)", l.dis_md, true, 0},
        {"dis_err", "DIS: sparse F32, the patches' E at their flow (per round)", l.dis_err, true, 0},
        {"ctrl", "control block: stop slots, exposure histograms and match, texture sums, warm-start sums", l.ctrl, true, 0},
        {"partials", "F32 per-block partial sums of the epsilon reduction", l.partials, true, 0},
        {"red_partials", "HS GLOBAL SOR: the red half-sweep's partial sums", l.red_partials, true, 0},
        {"pick_frame[0]", "robust pick: frame 0 as converted, where each candidate starts", l.pick_frame[0], true, 0},
        {"pick_frame[1]", "robust pick: frame 1 as converted", l.pick_frame[1], true, 0},
        {"pick_judge[0]", "robust pick: frame 0 normalised as local-norm, the candidates' judge and the confidence's N0",
         l.pick_judge[0], true, 0},
        {"pick_judge[1]", "robust pick: frame 1 normalised as local-norm (the judge's and the confidence's N1)",
         l.pick_judge[1], true, 0},
        {"pick_u", "robust pick: the kept candidate's float2 flow (level 0)", l.pick_u, true, 0},
        {"pick_conf", "robust pick, LK: the kept candidate's confidence (level 0)", l.pick_conf, true, 0},
        {"pick_stop", "robust pick: each candidate's stop slots and coarsest level", l.pick_stop, true, 0},
        {"init_flow", "init dis: DIS's float2 flow of the pair (level 0), read by the fusion at the fused level",
         l.init_flow, true, 0},
        {"conf_work", "4 F32 planes after the solve: the residual confidence's N0, N1 and normalisation scratch; reuses "
                      "px[0] onwards",
         tvl1 ? l.conf_work : 0, false, tvl1 ? plane0 * 4 * kConfWorkPlanes : 0},
    };
    const int n = static_cast<int>(sizeof(slots) / sizeof(slots[0]));
    // A carved slot ends where the next carved slot with a larger offset begins (or at the end).
    const auto end_of = [&](std::size_t off) {
        std::size_t e = l.device_bytes;
        for (const Slot& o : slots)
            if (o.carved && o.off > off && o.off < e) e = o.off;
        return e;
    };
    int k = 0;
    for (int i = 0; i < n && k < kMaxLayoutRows; ++i) {
        const Slot& sl = slots[i];
        std::size_t bytes = sl.bytes;
        if (sl.carved) {
            // Padding to the next 256-byte slot is counted with the slot before it.
            bytes = i < 2 ? pyr_bytes : end_of(sl.off) - sl.off;
        }
        if (bytes == 0) continue;
        if (sl.carved) {
            // An uncarved (zero-sized) slot shares its offset with the next one: skip it.
            bool shared = false;
            for (int j = i + 1; j < n; ++j)
                if (slots[j].carved && slots[j].off == sl.off) shared = true;
            if (shared) continue;
        }
        dev[k++] = LayoutRow{sl.name, sl.holds, sl.off, bytes};
    }
    *ndev = k;
    // The flow comes down after the frames went up: the frames reuse the flow's bytes.
    const LayoutRow st[] = {
        {"stage_flow", "pinned staging: the flow on its way down", l.stage_flow, l.stage_ctrl - l.stage_flow},
        {"stage_frame[0]", "pinned staging: a frame on its way up; reuses stage_flow", l.stage_frame[0],
         l.stage_frame[1] - l.stage_frame[0]},
        {"stage_frame[1]", "pinned staging: the other frame; reuses stage_flow", l.stage_frame[1], l.raw_bytes},
        {"stage_ctrl", "pinned staging: the stop slots, the finiteness flag, the coarsest level, the warm choice", l.stage_ctrl,
         l.stage_valid - l.stage_ctrl},
        {"stage_valid", "pinned staging: the level-0 confidence (the validity output) on its way down", l.stage_valid,
         l.stage_pick - l.stage_valid},
        {"stage_pick", "pinned staging, robust pick: each candidate's stop slots and coarsest level, the kept one",
         l.stage_pick, l.pinned_bytes - l.stage_pick},
    };
    k = 0;
    for (const LayoutRow& r : st)
        if (r.bytes && k < kMaxLayoutRows) pinned[k++] = r;
    *npinned = k;
}

} // namespace cuda
} // namespace oflow
