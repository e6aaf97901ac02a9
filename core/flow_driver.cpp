#include "core/flow_driver.hpp"
#include "core/schedule.hpp"

#include "core/algorithm.hpp"
#include "core/confidence.hpp"
#include "core/init_dis.hpp"
#include "core/init_fuse_pixel.hpp"
#include "core/flow_format.hpp"
#include "core/level_trace.hpp"
#include "core/ref/kernels_ref.hpp"
#include "core/robust.hpp"
#include "core/stream.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <initializer_list>

namespace oflow {

Plane Frame::level(HostBuf pyr, int l) const {
    float* base = reinterpret_cast<float*>(static_cast<unsigned char*>(c->buf[pyr]) + c->plan.level_offset[l]);
    return Plane{base, dims[l].w, dims[l].h, dims[l].pitch};
}

Plane Frame::work(int b, int l) const {
    return Plane{static_cast<float*>(c->buf[b]), dims[l].w, dims[l].h, dims[l].pitch};
}

void fill_zero(of_context* c, Plane p) {
    for_rows(c, p.h, [&](int y0, int y1, int) {
        for (int y = y0; y < y1; ++y) std::memset(p.row(y), 0, sizeof(float) * static_cast<std::size_t>(p.w));
    });
}

void copy_plane(of_context* c, Plane src, Plane dst) {
    for_rows(c, src.h, [&](int y0, int y1, int) {
        for (int y = y0; y < y1; ++y)
            std::memcpy(dst.row(y), src.row(y), sizeof(float) * static_cast<std::size_t>(src.w));
    });
}

void blur_plane(of_context* c, const Gaussian1D& g, Plane src, Plane tmp, Plane dst) {
    const KernelTable& k = c->kt;
    for_rows(c, src.h, [&](int y0, int y1, int) { k.blur_h(src, tmp, g, y0, y1); });
    for_rows(c, src.h, [&](int y0, int y1, int) { k.blur_v(tmp, dst, g, y0, y1); });
}

double* band_sums(of_context* c) { return static_cast<double*>(c->buf[kBufBandSums]); }

double sum_bands(of_context* c, int h) {
    const double* s = band_sums(c);
    double n = 0.0;
    for (int b = 0; b < c->pool->bands(h); ++b) n += s[b * kBandSumStride];
    return n;
}

void median_flow(of_context* c, Plane u1, Plane u2, Plane tmp, int size) {
    const KernelTable& k = c->kt;
    const Plane both[2] = {u1, u2};
    for (const Plane& u : both) {
        for_rows(c, u.h, [&](int y0, int y1, int) { k.median_flow(u, tmp, size, y0, y1); });
        copy_plane(c, tmp, u);
    }
}

double census_level_noise(of_context* c, Plane p) {
    double* sums = band_sums(c);
    for_rows(c, p.h, [&](int y0, int y1, int band) { sums[band * kBandSumStride] = c->kt.census_noise_sum(p, y0, y1); });
    return census_noise_sigma(sum_bands(c, p.h), p.w, p.h);
}

namespace {

// Local contrast normalisation (core/robust.hpp) of level l of a pyramid, in place: level 0
// right after the conversion and before the presmoothing (OF_ROBUST_LOCAL_NORM), or every level
// of the finished pyramid at its own scale (OF_ROBUST_LEVEL_NORM). The algorithm's scratch work
// planes are free while the pyramid is built (core/algorithm.hpp kScratchPlanes): mean in work
// plane 0, variance in work plane 1.
// g: the window (the context's robust_blur unless stated).
void normalize_plane(const Frame& f, Plane img, int l, float floor, const Gaussian1D& g) {
    of_context* c = f.c;
    const KernelTable& k = c->kt;
    const Plane mean = f.algo(0, l), var = f.algo(1, l), tmp = f.work(kBufTmp, l);
    blur_plane(c, g, img, tmp, mean);
    for_rows(c, img.h, [&](int y0, int y1, int) { k.robust_sq(img, mean, var, y0, y1); });
    blur_plane(c, g, var, tmp, var);
    for_rows(c, img.h, [&](int y0, int y1, int) { k.robust_combine(img, mean, var, img, floor, y0, y1); });
}
void normalize_plane(const Frame& f, Plane img, int l, float floor) { normalize_plane(f, img, l, floor, f.c->robust_blur); }

void normalize_level(const Frame& f, HostBuf pyr, int l, float floor) { normalize_plane(f, f.level(pyr, l), l, floor); }

// Level 0 of a pyramid: the frame converted to 0..255 floats.
void convert_level0(const Frame& f, const of_image& img, HostBuf pyr) {
    const Plane l0 = f.level(pyr, 0);
    for_rows(f.c, l0.h, [&](int y0, int y1, int) { f.c->kt.convert(img, l0, y0, y1); });
}

// OF_ROBUST_SHADE_NORM (core/robust.hpp): level 0 of a pyramid, the converted frame, divided by its
// local mean (three box passes of radius shade_radius(), rows then columns), before the exposure
// match. The algorithm's scratch work planes 0 and 1 are free while the pyramids are built.
void shade_level0(const Frame& f, HostBuf pyr) {
    of_context* c = f.c;
    const Plane img = f.level(pyr, 0), tmp = f.algo(0, 0), mean = f.algo(1, 0);
    const int r = shade_radius(img.w, img.h);
    Plane src = img;
    for (int pass = 0; pass < 3; ++pass) {
        for_rows(c, img.h, [&](int y0, int y1, int) { shade_box_rows_ref(src, tmp, r, y0, y1); });
        for_rows(c, img.w, [&](int x0, int x1, int) { shade_box_cols_ref(tmp, mean, r, x0, x1); });
        src = mean;
    }
    for_rows(c, img.h, [&](int y0, int y1, int) { shade_divide_ref(img, mean, y0, y1); });
}

// Exposure range matching (core/robust.hpp) of the two converted frames: per-band histograms in
// kBufExposureHist, summed in band order (integers: the result does not depend on the banding),
// then each frame mapped as range_map() says (clamped to the range chosen; with
// OF_ROBUST_RANGE_MATCH frame 1 also onto frame 0's gain and offset). Returns the match.
ExposureMatch match_exposure(const Frame& f) {
    of_context* c = f.c;
    const KernelTable& k = c->kt;
    unsigned* hist = static_cast<unsigned*>(c->buf[kBufExposureHist]);
    const std::size_t per_band = 2u * static_cast<std::size_t>(kExposureBins);
    const Plane l0[2] = {f.level(kBufPyr0, 0), f.level(kBufPyr1, 0)};
    const int bands = c->pool->bands(l0[0].h);
    std::memset(hist, 0, sizeof(unsigned) * per_band * static_cast<std::size_t>(bands));
    for_rows(c, l0[0].h, [&](int y0, int y1, int band) {
        unsigned* mine = hist + per_band * static_cast<std::size_t>(band);
        k.exposure_hist(l0[0], mine, y0, y1);
        k.exposure_hist(l0[1], mine + kExposureBins, y0, y1);
    });
    for (int b = 1; b < bands; ++b)
        for (std::size_t i = 0; i < per_band; ++i) hist[i] += hist[per_band * static_cast<std::size_t>(b) + i];
    const unsigned long long n = static_cast<unsigned long long>(l0[0].w) * static_cast<unsigned long long>(l0[0].h);
    const ExposureMatch m = exposure_match(hist, hist + kExposureBins, n);
    for (int i = 0; i < 2; ++i) {
        const RangeMap t = range_map(m, i, c->cfg.robust);
        if (t.any) for_rows(c, l0[i].h, [&](int y0, int y1, int) { k.map_range(l0[i], t, y0, y1); });
    }
    return m;
}

// Levels from .. end - 1 of a pyramid from level from - 1: each the anti-aliased (level_blur)
// level above it, resampled. The algorithm's scratch work plane 2 is free while the pyramid is
// built.
void build_levels(const Frame& f, HostBuf pyr, int from, int end) {
    of_context* c = f.c;
    const KernelTable& k = c->kt;
    for (int l = from; l < end; ++l) {
        Plane src = f.level(pyr, l - 1);
        Plane smooth = f.algo(2, l - 1);
        blur_plane(c, c->level_blur, src, f.work(kBufTmp, l - 1), smooth);
        Plane dst = f.level(pyr, l);
        for_rows(c, dst.h, [&](int y0, int y1, int) { k.resample(smooth, dst, y0, y1); });
    }
}

// The rest of a pyramid whose level 0 holds the converted frame: normalisation, presmoothing,
// the coarser levels.
void finish_pyramid(const Frame& f, HostBuf pyr) {
    of_context* c = f.c;
    Plane l0 = f.level(pyr, 0);
    if (c->cfg.robust == OF_ROBUST_LOCAL_NORM) normalize_level(f, pyr, 0, kRobustFloor);
    if (c->presmooth.radius > 0) blur_plane(c, c->presmooth, l0, f.work(kBufTmp, 0), l0);
    build_levels(f, pyr, 1, f.levels);
}

// OF_ROBUST_LEVEL_NORM: every level of both pyramids, built from the range-matched frames,
// normalised at its own scale: the coarse levels keep the low frequencies that a
// full-resolution normalisation removes. Runs after the texture rule has judged the levels as
// they are (a level the normalisation would blow up from near-flat to full contrast stays cut).
// With Algorithm::level_norm_fine L > 0 (level_norm_fine_levels) the levels finer than L are
// instead rebuilt from level b = level_norm_fine_base normalised with the frame's window
// (robust_sigma frame px, floor kRobustFloor), and only the levels from L on are normalised at
// their own scale (DIS: docs/accuracy.md section 15).
// OF_ROBUST_CENSUS: the same from level 1 on (core/census.hpp; level 0's census reads the
// range-matched frames).
// m: the pair's exposure match (each frame's floor, level_norm_floor()).
void normalize_pyramids(const Frame& f, const ExposureMatch& m) {
    const of_config& cfg = f.c->cfg;
    if (cfg.robust != OF_ROBUST_LEVEL_NORM && cfg.robust != OF_ROBUST_CENSUS) return;
    // Levels finer than the finest the solver reads only carry the flow down: not normalised
    // unless a warm start judges its level's residual (Algorithm::finest_read_level).
    const Algorithm* a = f.c->algo;
    int first = a->finest_read_level && !cfg.warm_start ? static_cast<int>(a->finest_read_level(cfg)) : 0;
    if (cfg.robust == OF_ROBUST_CENSUS && first < 1) first = 1;
    if (cfg.robust == OF_ROBUST_LEVEL_NORM) {
        const int fine = level_norm_fine_levels(a->level_norm_fine, f.levels);
        if (first < fine) {
            const int b = level_norm_fine_base(first);
            const Gaussian1D g = make_gaussian(level_norm_fine_sigma(cfg.robust_sigma, b));
            for (HostBuf pyr : {kBufPyr0, kBufPyr1}) {
                normalize_plane(f, f.level(pyr, b), b, kRobustFloor, g); // the coarser levels are built already
                build_levels(f, pyr, b + 1, fine);
            }
            first = fine;
        }
    }
    for (int l = first; l < f.levels; ++l) {
        normalize_level(f, kBufPyr0, l, level_norm_floor(m, 0));
        normalize_level(f, kBufPyr1, l, level_norm_floor(m, 1));
    }
}

// The root mean square of a plane's central-difference gradient (KernelTable::texture_energy),
// its rows summed per band, bands in order.
double rms_gradient(of_context* c, Plane p) {
    double* sums = band_sums(c);
    for_rows(c, p.h, [&](int y0, int y1, int band) { sums[band * kBandSumStride] = c->kt.texture_energy(p, y0, y1); });
    return std::sqrt(sum_bands(c, p.h) / (static_cast<double>(p.w) * static_cast<double>(p.h)));
}

// Both pyramids of a pair; returns the exposure match (no_exposure_match() where the robust
// mode has none).
ExposureMatch build_pyramids(const Frame& f, const of_image& prev, const of_image& next) {
    convert_level0(f, prev, kBufPyr0);
    convert_level0(f, next, kBufPyr1);
    if (f.c->cfg.robust == OF_ROBUST_SHADE_NORM) {
        shade_level0(f, kBufPyr0);
        shade_level0(f, kBufPyr1);
    }
    const ExposureMatch m = robust_matches_exposure(f.c->cfg.robust) ? match_exposure(f) : no_exposure_match();
    finish_pyramid(f, kBufPyr0);
    finish_pyramid(f, kBufPyr1);
    const bool census = f.c->cfg.robust == OF_ROBUST_CENSUS;
    f.census_rms0[0] = census ? rms_gradient(f.c, f.level(kBufPyr0, 0)) : 0.0;
    f.census_rms0[1] = census ? rms_gradient(f.c, f.level(kBufPyr1, 0)) : 0.0;
    return m;
}

// The sanity bound (core/robust.hpp): clamps x + u of every pixel into the level's frame
// extended by margin m (level_margin()). Returns the number of pixels changed.
int bound_flow(of_context* c, Plane u1, Plane u2, float m) {
    double* sums = band_sums(c);
    for_rows(c, u1.h, [&](int y0, int y1, int band) {
        long n = 0;
        for (int y = y0; y < y1; ++y) {
            float* a = u1.row(y);
            float* b = u2.row(y);
            const float ylo = -m - static_cast<float>(y), yhi = static_cast<float>(u1.h - 1 - y) + m;
            for (int x = 0; x < u1.w; ++x) {
                const float xlo = -m - static_cast<float>(x), xhi = static_cast<float>(u1.w - 1 - x) + m;
                const float na = std::fmin(std::fmax(a[x], xlo), xhi);
                const float nb = std::fmin(std::fmax(b[x], ylo), yhi);
                n += (na != a[x]) | (nb != b[x]);
                a[x] = na;
                b[x] = nb;
            }
        }
        sums[band * kBandSumStride] = static_cast<double>(n);
    });
    return static_cast<int>(sum_bands(c, u1.h));
}

// The validity plane of `out` (api/oflow.h of_valid_format), when it asks for one: the residual
// confidence `res` (core/confidence.hpp), and where the algorithm has a plane of its own (`raw`
// not null: LK) the smaller of it and plane_confidence(raw, half). The mask: 255 where the
// confidence is at least config.min_confidence.
void write_validity(of_context* c, Plane res, const Plane* raw, float half, const of_flow& out) {
    if (out.valid_format == OF_VALID_NONE) return;
    unsigned char* base = static_cast<unsigned char*>(out.valid);
    const bool mask = out.valid_format == OF_VALID_MASK_U8;
    const float min_conf = c->cfg.min_confidence;
    const int w = static_cast<int>(out.width);
    for_rows(c, static_cast<int>(out.height), [&](int y0, int y1, int) {
        for (int y = y0; y < y1; ++y) {
            unsigned char* row = base + static_cast<std::size_t>(y) * out.valid_stride;
            const float* k = res.row(y);
            const float* q = raw ? raw->row(y) : nullptr;
            float* o = reinterpret_cast<float*>(row);
            for (int x = 0; x < w; ++x) {
                const float v = q ? combined_confidence(k[x], plane_confidence(q[x], half)) : k[x];
                if (mask)
                    row[x] = confidence_mask(v, min_conf);
                else
                    o[x] = v;
            }
        }
    });
}

// One row of w components in the 16-bit format F (flow_format.hpp), every `step` elements
// (1 planar, 2 interleaved).
template <uint16_t (*F)(float)>
void convert_row16(const float* src, int w, uint16_t* dst, int step) {
    for (int x = 0; x < w; ++x) dst[static_cast<std::ptrdiff_t>(x) * step] = F(src[x]);
}

uint16_t s10_5_bits(float v) { return static_cast<uint16_t>(flow_to_s10_5(v)); }

// The flow in out.format (F32 as is; F16 and S10.5 converted per element by flow_format.hpp,
// the same code the CUDA path runs on the device).
void write_output(of_context* c, Plane u1, Plane u2, const of_flow& out) {
    unsigned char* base_u = reinterpret_cast<unsigned char*>(out.u);
    unsigned char* base_v = reinterpret_cast<unsigned char*>(out.v);
    const bool inter = out.layout == OF_FLOW_INTERLEAVED;
    const of_flow_format fmt = out.format;
    for_rows(c, u1.h, [&](int y0, int y1, int) {
        for (int y = y0; y < y1; ++y) {
            const float* a = u1.row(y);
            const float* b = u2.row(y);
            unsigned char* ru = base_u + static_cast<std::size_t>(y) * out.stride;
            unsigned char* rv = inter ? nullptr : base_v + static_cast<std::size_t>(y) * out.stride;
            if (fmt != OF_FLOW_FORMAT_F32) {
                uint16_t* ou = reinterpret_cast<uint16_t*>(ru);
                uint16_t* ov = inter ? ou + 1 : reinterpret_cast<uint16_t*>(rv);
                const int step = inter ? 2 : 1;
                if (fmt == OF_FLOW_FORMAT_F16) {
                    convert_row16<flow_to_f16>(a, u1.w, ou, step);
                    convert_row16<flow_to_f16>(b, u1.w, ov, step);
                } else {
                    convert_row16<s10_5_bits>(a, u1.w, ou, step);
                    convert_row16<s10_5_bits>(b, u1.w, ov, step);
                }
            } else if (inter) {
                float* ou = reinterpret_cast<float*>(ru);
                for (int x = 0; x < u1.w; ++x) {
                    ou[2 * x] = a[x];
                    ou[2 * x + 1] = b[x];
                }
            } else {
                std::memcpy(ru, a, sizeof(float) * static_cast<std::size_t>(u1.w));
                std::memcpy(rv, b, sizeof(float) * static_cast<std::size_t>(u1.w));
            }
        }
    });
}

// Coarse-to-fine from level `top` (the coarsest solved: the texture rule may stop above the
// pyramid's last level) down to level `lo` on pyramids that are built: leaves level lo's flow
// in kBufU1/kBufU2 (and each finer-than-coarsest level's input in prev_u*), every level
// sanity-bounded before it is upsampled. Adds the inner iterations run to *total.
void solve_levels(const Frame& f, int top, int lo, uint64_t* total) {
    of_context* c = f.c;
    const KernelTable& k = c->kt;
    uint64_t total_iterations = 0;
    for (int l = top; l >= lo; --l) {
        const LevelDims& d = f.dims[l];
        Plane u1 = f.work(kBufU1, l), u2 = f.work(kBufU2, l);
        if (l == top) {
            fill_zero(c, u1);
            fill_zero(c, u2);
        } else {
            // Flow of level l+1 was saved in prev_u*; scale it to this level's pixels.
            Plane c1 = f.work(kBufPrevU1, l + 1), c2 = f.work(kBufPrevU2, l + 1);
            const float mx = static_cast<float>(d.w) / static_cast<float>(c1.w);
            const float my = static_cast<float>(d.h) / static_cast<float>(c1.h);
            for_rows(c, d.h, [&](int y0, int y1, int) {
                k.upsample_flow(c1, u1, mx, y0, y1);
                k.upsample_flow(c2, u2, my, y0, y1);
            });
        }
        if (c->init && init_fuses(l, init_level(f.levels), top)) init_fuse_cpu(f, l, u1, u2); // config.init
        warm_enter_cpu(f, l, u1, u2); // a stream's warm start (core/stream.hpp), else nothing
        const uint64_t level_start = total_iterations;
        c->algo->solve_level_cpu(
            LevelJob{&f, l, u1, u2, &total_iterations, level_iterations(c->cfg.iterations, c->cfg.iteration_growth, l)});
        const float margin = level_margin(l, d.w, d.h);
        const int clamped = bound_flow(c, u1, u2, margin);
        warm_keep_cpu(f, l, u1, u2);
        if (!c->init_pass) // the trace shows the solve's levels, not its DIS pass's (config.init)
            level_trace::emit(level_trace::Level{l, f.levels, u1, u2,
                                                 static_cast<unsigned long long>(total_iterations - level_start),
                                                 margin, clamped});
        if (l > lo) {
            copy_plane(c, u1, f.work(kBufPrevU1, l));
            copy_plane(c, u2, f.work(kBufPrevU2, l));
        }
    }
    *total += total_iterations;
}

// Frame geometry of a w x h frame; false (with the message) when it needs more levels than
// the plan holds.
bool frame_of(of_context* c, int w, int h, Frame* f) {
    const of_config& cfg = c->cfg;
    f->c = c;
    f->census_rms0[0] = f->census_rms0[1] = 0.0;
    f->levels = pyramid_dims(w, h, static_cast<int>(cfg.levels), cfg.scale_factor, f->dims, pyramid_min_side(cfg.robust));
    if (f->levels > c->plan.levels) {
        c->sink().fail(OF_ERR_INTERNAL, "%s: %d levels > %d planned", c->algo->name, f->levels, c->plan.levels);
        return false;
    }
    return true;
}

// Coarsest level to solve: the size rule's last level, or with automatic levels and
// config.min_texture > 0 the texture rule's (core/robust.hpp) on frame 0's pyramid. One thread,
// rows in order: the sums, and so the choice, do not depend on the thread count.
int coarsest_level(const Frame& f) {
    const of_config& cfg = f.c->cfg;
    if (!texture_rule_applies(cfg.levels, cfg.min_texture, cfg.robust)) return f.levels - 1;
    double energy[kMaxLevels];
    energy[0] = 0.0;
    for (int l = 1; l < f.levels; ++l) {
        const Plane p = f.level(kBufPyr0, l);
        energy[l] = f.c->kt.texture_energy(p, 0, p.h) / (static_cast<double>(p.w) * static_cast<double>(p.h));
    }
    return coarsest_textured(energy, f.levels, static_cast<double>(cfg.min_texture));
}


// OF_ROBUST_PICK's judge (core/robust.hpp): the mean over the pixels of |n0(x) - n1(x + u)|,
// n1 read bilinearly, kPickOutside where x + u leaves the frame. Rows in bands, each band's sum
// in its slot, the slots summed in order: the result does not depend on the thread count.
double pick_residual(of_context* c, Plane n0, Plane n1, Plane u1, Plane u2) {
    double* sums = band_sums(c);
    for_rows(c, n0.h, [&](int y0, int y1, int band) {
        double acc = 0.0;
        for (int y = y0; y < y1; ++y) {
            const float* a = n0.row(y);
            const float* du = u1.row(y);
            const float* dv = u2.row(y);
            for (int x = 0; x < n0.w; ++x)
                acc += pick_term(n1.data, n1.pitch, n1.w, n1.h, static_cast<float>(x) + du[x], static_cast<float>(y) + dv[x],
                                 a[x]);
        }
        sums[band * kBandSumStride] = acc;
    });
    return sum_bands(c, n0.h) / (static_cast<double>(n0.w) * static_cast<double>(n0.h));
}

// The solve of one pair under robust mode cfg.robust (every mode but OF_ROBUST_PICK): pyramids,
// the coarsest level, coarse to fine; level 0's flow in kBufU1/kBufU2. Returns the coarsest level.
int solve_pair(const Frame& f, const of_image& prev, const of_image& next, uint64_t* total) {
    const ExposureMatch m = build_pyramids(f, prev, next);
    const int top = coarsest_level(f);
    normalize_pyramids(f, m);
    solve_levels(f, top, 0, total);
    return top;
}

// OF_ROBUST_PICK (core/robust.hpp): the pair solved under each candidate mode, the judge's best
// flow (and the algorithm's confidence plane with it) left in kBufU1/kBufU2 as a plain solve
// leaves it. The context's cfg.robust reads as each candidate while it runs and is restored.
// Returns the winner's coarsest level.
int solve_pair_pick(const Frame& f, const of_image& prev, const of_image& next, uint64_t* total) {
    of_context* c = f.c;
    const int conf = c->algo->confidence_plane;
    const Plane n0 = f.work(kBufPickN0, 0), n1 = f.work(kBufPickN1, 0);
    const Plane u1 = f.work(kBufU1, 0), u2 = f.work(kBufU2, 0);
    const Plane b1 = f.work(kBufPickU1, 0), b2 = f.work(kBufPickU2, 0), bc = f.work(kBufPickConf, 0);
    // The judge images: both frames converted and normalised as LOCAL_NORM (floor kRobustFloor).
    convert_level0(f, prev, kBufPyr0);
    convert_level0(f, next, kBufPyr1);
    copy_plane(c, f.level(kBufPyr0, 0), n0);
    copy_plane(c, f.level(kBufPyr1, 0), n1);
    normalize_plane(f, n0, 0, kRobustFloor);
    normalize_plane(f, n1, 0, kRobustFloor);
    double best = 0.0;
    int best_top = 0;
    const float min_texture = c->cfg.min_texture;
    const uint32_t median = c->cfg.median_size;
    const of_robust* const cand = pick_candidates(c->cfg.algorithm);
    const int count = pick_count(c->cfg.algorithm);
    for (int i = 0; i < count; ++i) {
        c->cfg.robust = cand[i];
        c->cfg.min_texture = pick_min_texture(cand[i], min_texture);
        c->cfg.median_size = pick_median(c->cfg.algorithm, cand[i], median);
        const int top = solve_pair(f, prev, next, total);
        c->cfg.min_texture = min_texture;
        c->cfg.median_size = median;
        const double r = pick_residual(c, n0, n1, u1, u2) * pick_weight(cand[i], c->cfg.algorithm);
        if (i == 0 || r < best) {
            best = r;
            best_top = top;
            c->info.last_pick = cand[i];
            copy_plane(c, u1, b1);
            copy_plane(c, u2, b2);
            if (conf >= 0) copy_plane(c, f.algo(conf, 0), bc);
        }
    }
    c->cfg.robust = OF_ROBUST_PICK;
    copy_plane(c, b1, u1);
    copy_plane(c, b2, u2);
    if (conf >= 0) copy_plane(c, bc, f.algo(conf, 0));
    return best_top;
}

// The residual confidence (core/confidence.hpp) of the level-0 flow in kBufU1/kBufU2, after the
// solve: the judge images (robust pick's, already built under OF_ROBUST_PICK; else both frames
// converted and normalised here), the terms, the row means, the column means and the map. The
// algorithm's scratch work planes 0..2 and kBufTmp are free after the solve. Returns the plane
// that holds the confidence (work plane 0).
Plane residual_confidence_cpu(const Frame& f, const of_image& prev, const of_image& next) {
    of_context* c = f.c;
    const Plane n0 = f.work(kBufPickN0, 0), n1 = f.work(kBufPickN1, 0);
    if (c->cfg.robust != OF_ROBUST_PICK) {
        for_rows(c, n0.h, [&](int y0, int y1, int) {
            c->kt.convert(prev, n0, y0, y1);
            c->kt.convert(next, n1, y0, y1);
        });
        normalize_plane(f, n0, 0, kRobustFloor);
        normalize_plane(f, n1, 0, kRobustFloor);
    }
    const Plane u1 = f.work(kBufU1, 0), u2 = f.work(kBufU2, 0);
    const Plane r = f.algo(0, 0), g = f.algo(1, 0), mr = f.work(kBufTmp, 0), mg = f.algo(2, 0);
    for_rows(c, n0.h, [&](int y0, int y1, int) { conf_terms_ref(n0, n1, u1, u2, r, g, y0, y1); });
    for_rows(c, n0.h, [&](int y0, int y1, int) { conf_box_rows_ref(r, g, mr, mg, y0, y1); });
    for_rows(c, n0.h, [&](int y0, int y1, int) { conf_finish_ref(mr, mg, u1, u2, r, y0, y1); });
    return r;
}

} // namespace

of_status flow_process_cpu(of_context* c, const of_image& prev, const of_image& next,
                           const of_flow& out) {
    Frame f;
    if (!frame_of(c, static_cast<int>(prev.width), static_cast<int>(prev.height), &f)) return OF_ERR_INTERNAL;
    uint64_t total_iterations = 0;
    if (c->init) { // config.init OF_INIT_DIS: DIS's flow of the pair, fused in solve_levels
        const of_status s = init_dis_run_cpu(c, prev, next);
        if (s != OF_OK) return s;
    }
    const int top = c->cfg.robust == OF_ROBUST_PICK ? solve_pair_pick(f, prev, next, &total_iterations)
                                                    : solve_pair(f, prev, next, &total_iterations);
    write_output(c, f.work(kBufU1, 0), f.work(kBufU2, 0), out);
    if (out.valid_format != OF_VALID_NONE) {
        const Algorithm& a = *c->algo;
        const Plane raw = a.confidence_plane >= 0 ? f.algo(a.confidence_plane, 0) : Plane{};
        write_validity(c, residual_confidence_cpu(f, prev, next), a.confidence_plane >= 0 ? &raw : nullptr,
                       a.confidence_half ? a.confidence_half(c->cfg) : 0.0f, out);
    }
    c->info.last_coarsest = static_cast<uint32_t>(top);
    c->info.last_width = prev.width;
    c->info.last_height = prev.height;
    c->info.last_levels = static_cast<uint32_t>(f.levels);
    c->info.last_iterations = total_iterations;
    return OF_OK;
}

of_status flow_solve_coarse_cpu(of_context* c, int w, int h, int top, uint64_t* iterations) {
    Frame f;
    if (!frame_of(c, w, h, &f)) return OF_ERR_INTERNAL;
    const int from = c->plan.split_from;
    if (from <= 0 || from >= f.levels)
        return c->sink().fail(OF_ERR_INTERNAL, "%s: split at level %d of a %d-level frame", c->algo->name, from, f.levels);
    if (top < 0 || top >= f.levels)
        return c->sink().fail(OF_ERR_INTERNAL, "%s: coarsest level %d of a %d-level frame", c->algo->name, top, f.levels);
    if (top >= from) {
        solve_levels(f, top, from, iterations);
    } else { // the texture rule stopped below the CPU's levels: the GPU starts from zero
        fill_zero(c, f.work(kBufU1, from));
        fill_zero(c, f.work(kBufU2, from));
    }
    // Level `from`'s flow, interleaved, rows of 2w floats: what the GPU's u plane holds.
    const Plane u1 = f.work(kBufU1, from), u2 = f.work(kBufU2, from);
    of_flow xy;
    std::memset(&xy, 0, sizeof xy);
    xy.layout = OF_FLOW_INTERLEAVED;
    xy.format = OF_FLOW_FORMAT_F32; // internal: the GPU reads floats, whatever the caller's output format
    xy.u = static_cast<float*>(c->buf[kBufSplitFlow]);
    xy.stride = static_cast<std::size_t>(u1.w) * 2u * sizeof(float);
    write_output(c, u1, u2, xy);
    return OF_OK;
}

} // namespace oflow
