// accuracy: TV-L1 (reference path) on the synthetic pairs of core/synth.hpp with known flow,
// with the library's defaults but for the schedule; every case also holds the no-runaway invariant.
//
// Fixed schedule: 160x120, F32 input, levels 0 (automatic), factor 0.5, warps 5,
// iterations 100, epsilon 0.01, other parameters at their defaults. EPE = mean endpoint
// error against the ground truth, AAE = mean angular error (Barron: angle between (u,v,1)
// and (gu,gv,1)), both over all pixels ("all") and without a 4-pixel border ("int").
// Each case has a bound on both (the all-pixel number includes border pixels whose
// correspondence left the frame). Bounds are what the implementation achieves plus ~30 %
// margin; "EPE 0" is the EPE of a zero flow, for scale.
//
// Also: U8 / U16 / F32 inputs of the same (integer-valued) picture give the same flow;
// a zero-motion pair gives ~0 flow; flat images give finite (zero) flow; 1x1, 2x2, 1xN, Nx1
// frames process and give finite flow, with automatic and explicit levels.
#include "test_util.hpp"

#include <algorithm>

using namespace oftest;
using oflow::synth::Case;

namespace {

struct Bound {
    Case c;
    double epe_all; // bound on the mean EPE over all pixels
    double epe_int; // bound on the mean EPE without the 4-px border
};

// Calibrated on the reference path with the library's defaults (x86-64, gcc 12). Since 2026-12-07
// the defaults are census + init dis (one solve; docs/accuracy.md section 24); the bounds were
// set under robust pick (the "pick" column) and are kept where the new default is within them;
// noise-gain's is the new measurement + 30 %: census gives 0.043 px where pick kept local-norm's
// 0.026 (the 5 % gain with noise of sigma 1 on a fine texture: census's noise tolerance costs a
// few hundredths of a pixel, within the matrix's rule of 1.15 x + 0.05 px).
//   case           EPE all  EPE int   bounds all / int   (pick: all / int)
//   translation     0.0196   0.0092   0.024 / 0.016     (0.0181 / 0.0117)
//   rotation-zoom   0.0710   0.0336   0.12  / 0.065     (0.0923 / 0.0498)
//   smooth-field    0.0291   0.0201   0.080 / 0.065     (0.0615 / 0.0498)
//   occlusion       0.1018   0.1083   0.15  / 0.164     (0.1160 / 0.1261)
//   noise-gain      0.0431   0.0316   0.056 / 0.041     (0.0260 / 0.0216; robust none 0.4449 / 0.4337)
//   fine-texture    0.0595   0.0516   0.084 / 0.073     (0.0645 / 0.0555)
//   camera-motion   0.0264   0.0117   0.039 / 0.022     (0.0299 / 0.0163)
const Bound kBounds[] = {
    {Case::Translation, 0.024, 0.016},
    {Case::RotationZoom, 0.12, 0.065},
    {Case::SmoothField, 0.080, 0.065},
    {Case::Occlusion, 0.15, 0.164},
    {Case::NoiseGain, 0.056, 0.041},
    {Case::FineTexture, 0.084, 0.073},
    {Case::CameraMotion, 0.039, 0.022},
};

// Invariant on every case: no pixel's flow exceeds the largest true displacement by more than
// this (a runaway from the coarse levels breaks it by tens of pixels).
const double kMaxOvershootPx = 2.0;

const uint32_t kW = 160, kH = 120;
const int kBorder = 4;

of_config accuracy_cfg(uint32_t w, uint32_t h, of_pixel_format fmt) {
    of_config c = tvl1_config(w, h);
    c.backend = OF_BACKEND_REFERENCE;
    c.format = fmt;
    c.levels = 0;
    c.scale_factor = 0.5f;
    c.warps = 5;
    c.iterations = 100;
    c.epsilon = 0.01f;
    return c;
}

struct Errors {
    double epe_all = 0, epe_int = 0, aae_all = 0, max_epe = 0, epe_zero = 0, max_flow = 0, max_gt = 0;
};

Errors errors(const FlowBuf& f, const Pair& p) {
    Errors e;
    double sa = 0, si = 0, aa = 0, sz = 0;
    size_t ni = 0;
    for (uint32_t y = 0; y < p.h; ++y)
        for (uint32_t x = 0; x < p.w; ++x) {
            const size_t k = static_cast<size_t>(y) * p.w + x;
            const double u = f.u(x, y), v = f.v(x, y);
            const double gu = p.gu[k], gv = p.gv[k];
            const double d = std::sqrt((u - gu) * (u - gu) + (v - gv) * (v - gv));
            sa += d;
            sz += std::sqrt(gu * gu + gv * gv);
            e.max_epe = d > e.max_epe ? d : e.max_epe;
            e.max_flow = std::max(e.max_flow, std::sqrt(u * u + v * v));
            e.max_gt = std::max(e.max_gt, std::sqrt(gu * gu + gv * gv));
            const double dot = u * gu + v * gv + 1.0;
            const double nrm = std::sqrt(u * u + v * v + 1.0) * std::sqrt(gu * gu + gv * gv + 1.0);
            double cosang = dot / nrm;
            cosang = cosang > 1.0 ? 1.0 : (cosang < -1.0 ? -1.0 : cosang);
            aa += std::acos(cosang) * 180.0 / 3.14159265358979323846;
            const int xi = static_cast<int>(x), yi = static_cast<int>(y);
            if (xi >= kBorder && yi >= kBorder && xi < static_cast<int>(p.w) - kBorder &&
                yi < static_cast<int>(p.h) - kBorder) {
                si += d;
                ++ni;
            }
        }
    const double n = static_cast<double>(p.w) * p.h;
    e.epe_all = sa / n;
    e.aae_all = aa / n;
    e.epe_zero = sz / n;
    e.epe_int = ni ? si / static_cast<double>(ni) : 0.0;
    return e;
}

bool process(of_context* ctx, const Frame& a, const Frame& b, FlowBuf& f, const char* what) {
    of_status s = of_process(ctx, &a.img, &b.img, &f.f);
    CHECK_MSG(s == OF_OK, "%s: %s (%s)", what, st(s), of_last_error(ctx));
    if (s != OF_OK) return false;
    CHECK_MSG(all_finite(f.extract()), "%s: non-finite flow", what);
    return true;
}

void test_epe_table() {
    of_context* ctx = create_or_report(accuracy_cfg(kW, kH, OF_PIXEL_F32), "accuracy");
    CHECK(ctx != nullptr);
    if (!ctx) return;
    std::printf("TV-L1 reference, %ux%u F32, levels auto, factor 0.5, warps 5, iterations 100, epsilon 0.01\n",
                kW, kH);
    std::printf("%-14s %8s %8s %8s %8s %8s %8s %15s %6s %6s\n", "case", "EPE all", "EPE int", "AAE deg",
                "max EPE", "EPE 0", "max|u|", "bounds all/int", "iters", "result");
    for (const Bound& b : kBounds) {
        const char* name = oflow::synth::case_name(b.c);
        Pair p = synth_pair(b.c, kW, kH, 1);
        FramePair fp = frames_of(p, OF_PIXEL_F32);
        FlowBuf f = make_flow(kW, kH);
        if (!process(ctx, fp.prev, fp.next, f, name)) continue;
        of_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        of_get_info(ctx, &info);
        const Errors e = errors(f, p);
        const bool ok = e.epe_all <= b.epe_all && e.epe_int <= b.epe_int && e.max_flow <= e.max_gt + kMaxOvershootPx;
        std::printf("%-14s %8.4f %8.4f %8.3f %8.3f %8.3f %8.3f %7.3f/%-7.4f %6llu %6s\n", name, e.epe_all,
                    e.epe_int, e.aae_all, e.max_epe, e.epe_zero, e.max_flow, b.epe_all, b.epe_int,
                    static_cast<unsigned long long>(info.last_iterations), ok ? "ok" : "FAIL");
        CHECK_MSG(e.epe_all <= b.epe_all, "%s: EPE (all pixels) %.4f above the bound %.3f", name, e.epe_all,
                  b.epe_all);
        CHECK_MSG(e.epe_int <= b.epe_int, "%s: EPE (4-px border excluded) %.4f above the bound %.4f", name,
                  e.epe_int, b.epe_int);
        CHECK_MSG(e.max_flow <= e.max_gt + kMaxOvershootPx,
                  "%s: max |flow| %.3f exceeds the largest true displacement %.3f by more than %.0f px", name,
                  e.max_flow, e.max_gt, kMaxOvershootPx);
    }
    of_destroy(ctx);
}

// The same integer-valued picture as U8, U16 (x257) and F32 gives the same flow.
void test_format_consistency() {
    const uint32_t w = 96, h = 72;
    Pair p = synth_pair(Case::SmoothField, w, h, 3);
    for (float& x : p.i0) x = std::round(x);
    for (float& x : p.i1) x = std::round(x);
    const of_pixel_format fmts[] = {OF_PIXEL_U8, OF_PIXEL_U16, OF_PIXEL_F32};
    const char* names[] = {"U8", "U16", "F32"};
    std::vector<float> r[3];
    for (int i = 0; i < 3; ++i) {
        of_context* ctx = create_or_report(accuracy_cfg(w, h, fmts[i]), names[i]);
        CHECK(ctx != nullptr);
        if (!ctx) return;
        FramePair fp = frames_of(p, fmts[i]);
        FlowBuf f = make_flow(w, h);
        if (process(ctx, fp.prev, fp.next, f, names[i])) r[i] = f.extract();
        of_destroy(ctx);
    }
    if (r[0].empty() || r[1].empty() || r[2].empty()) return;
    for (int i = 1; i < 3; ++i) {
        float md = 0.0f;
        for (size_t k = 0; k < r[0].size(); ++k) md = std::max(md, std::fabs(r[i][k] - r[0][k]));
        const bool bitwise = std::memcmp(r[i].data(), r[0].data(), r[0].size() * sizeof(float)) == 0;
        std::printf("format consistency %s vs U8: max |diff| %.3g px%s\n", names[i], static_cast<double>(md),
                    bitwise ? " (bitwise equal)" : "");
        CHECK_MSG(md <= 1e-3f, "%s vs U8 on the same picture: max |diff| %.3g px", names[i],
                  static_cast<double>(md));
    }
    // Unquantised F32 vs its U8 rounding: close, not equal.
    Pair q = synth_pair(Case::SmoothField, w, h, 3);
    of_context* c8 = create_or_report(accuracy_cfg(w, h, OF_PIXEL_U8), "U8");
    of_context* c32 = create_or_report(accuracy_cfg(w, h, OF_PIXEL_F32), "F32");
    if (c8 && c32) {
        FramePair f8 = frames_of(q, OF_PIXEL_U8), f32 = frames_of(q, OF_PIXEL_F32);
        FlowBuf o8 = make_flow(w, h), o32 = make_flow(w, h);
        if (process(c8, f8.prev, f8.next, o8, "U8 rounded") && process(c32, f32.prev, f32.next, o32, "F32")) {
            const Errors e8 = errors(o8, q), e32 = errors(o32, q);
            std::printf("smooth-field %ux%u: EPE F32 %.4f, U8-rounded %.4f\n", w, h, e32.epe_all, e8.epe_all);
            CHECK_MSG(e8.epe_all <= e32.epe_all + 0.05, "U8 rounding costs %.4f px EPE (F32 %.4f)",
                      e8.epe_all, e32.epe_all);
        }
    }
    of_destroy(c8);
    of_destroy(c32);
}

void test_zero_motion_and_flat() {
    const uint32_t w = 64, h = 48;
    Pair p = synth_pair(Case::SmoothField, w, h, 5);
    const of_pixel_format fmts[] = {OF_PIXEL_U8, OF_PIXEL_F32};
    for (of_pixel_format fmt : fmts) {
        of_context* ctx = create_or_report(accuracy_cfg(w, h, fmt), "zero motion");
        CHECK(ctx != nullptr);
        if (!ctx) continue;
        {
            Frame a = make_frame(fmt, w, h, p.i0.data(), w);
            Frame b = make_frame(fmt, w, h, p.i0.data(), w);
            FlowBuf f = make_flow(w, h);
            if (process(ctx, a, b, f, "zero motion")) {
                const float m = max_abs(f.extract());
                CHECK_MSG(m <= 1e-3f, "zero motion (format %d): max |flow| %.3g", static_cast<int>(fmt),
                          static_cast<double>(m));
            }
        }
        struct Flat {
            const char* name;
            float a, b;
        };
        const Flat flats[] = {{"flat 100/100", 100.f, 100.f}, {"flat 100/120", 100.f, 120.f},
                              {"flat 0/0", 0.f, 0.f},         {"flat 255/255", 255.f, 255.f},
                              {"flat 0/255", 0.f, 255.f}};
        for (const Flat& fl : flats) {
            std::vector<float> va(static_cast<size_t>(w) * h, fl.a), vb(va.size(), fl.b);
            Frame a = make_frame(fmt, w, h, va.data(), w);
            Frame b = make_frame(fmt, w, h, vb.data(), w);
            FlowBuf f = make_flow(w, h);
            if (process(ctx, a, b, f, fl.name)) {
                const float m = max_abs(f.extract());
                CHECK_MSG(m <= 1e-3f, "%s (format %d): max |flow| %.3g, expected 0", fl.name,
                          static_cast<int>(fmt), static_cast<double>(m));
            }
        }
        of_destroy(ctx);
    }
}

void test_tiny_frames() {
    struct Sz {
        uint32_t w, h;
    };
    const Sz sizes[] = {{1, 1}, {2, 2}, {1, 50}, {50, 1}, {2, 1}, {1, 2}, {3, 3}, {2, 64}, {64, 2}};
    const uint32_t levels[] = {0, 5};
    const float factors[] = {0.5f, 0.8f};
    const of_pixel_format fmts[] = {OF_PIXEL_U8, OF_PIXEL_F32};
    for (of_pixel_format fmt : fmts)
        for (uint32_t lv : levels)
            for (float fa : factors) {
                of_config c = accuracy_cfg(64, 64, fmt);
                c.levels = lv;
                c.scale_factor = fa;
                c.iterations = 30;
                of_context* ctx = create_or_report(c, "tiny");
                CHECK(ctx != nullptr);
                if (!ctx) continue;
                for (const Sz& s : sizes) {
                    Pair p = synth_pair(Case::Translation, s.w, s.h, 2);
                    FramePair fp = frames_of(p, fmt);
                    FlowBuf f = make_flow(s.w, s.h);
                    char what[96];
                    std::snprintf(what, sizeof what, "%ux%u format %d levels %u factor %.1f", s.w, s.h,
                                  static_cast<int>(fmt), lv, static_cast<double>(fa));
                    process(ctx, fp.prev, fp.next, f, what);
                    CHECK_MSG(f.padding_untouched(), "%s: wrote outside the flow", what);
                }
                // 1x1 context too.
                of_destroy(ctx);
            }
    of_config c = accuracy_cfg(1, 1, OF_PIXEL_U8);
    of_context* ctx = create_or_report(c, "1x1 context");
    CHECK(ctx != nullptr);
    if (ctx) {
        Pair p = synth_pair(Case::Translation, 1, 1, 2);
        FramePair fp = frames_of(p, OF_PIXEL_U8);
        FlowBuf f = make_flow(1, 1);
        process(ctx, fp.prev, fp.next, f, "1x1 in a 1x1 context");
        of_destroy(ctx);
    }
}

} // namespace

// The demo's corner (scripts/demo.sh: rotation-zoom 640x480). Before the exposure work a patch
// of some 80x30 px at the top-left corner came out 20-40 px wrong. Traced per level: at the
// coarsest level (40x30) the top rows, whose true correspondence leaves the frame upwards
// (v = -1.2 px there), carry no data term; the smoothness term pulls them inwards, where the
// data term engages on a wrong match (v = +0.6), and every finer level inherits and doubles the
// error (5.1, 9.7, 20, 41 px). The median between warps removes the isolated wrong region at
// each warp (and the normalised frames do not lock on it either). Checked: with brightness
// constancy and no median the patch is there (so this test can fail); with the defaults every
// 16x16 block of the top 32 rows stays within 3 px.
double worst_top_block(const FlowBuf& f, const Pair& p) {
    double worst = 0.0;
    for (uint32_t by = 0; by < 2; ++by)
        for (uint32_t bx = 0; bx < p.w / 16; ++bx) {
            double s = 0.0;
            for (uint32_t y = by * 16; y < by * 16 + 16; ++y)
                for (uint32_t x = bx * 16; x < bx * 16 + 16; ++x) {
                    const size_t k = static_cast<size_t>(y) * p.w + x;
                    s += std::hypot(f.u(x, y) - p.gu[k], f.v(x, y) - p.gv[k]);
                }
            worst = std::max(worst, s / 256.0);
        }
    return worst;
}

void test_demo_corner() {
    const uint32_t w = 640, h = 480;
    const Pair p = synth_pair(Case::RotationZoom, w, h, 1);
    const FramePair fp = frames_of(p, OF_PIXEL_F32);
    double worst[2] = {0, 0};
    for (int after = 0; after < 2; ++after) {
        of_config c = accuracy_cfg(w, h, OF_PIXEL_F32);
        c.threads = 2;
        if (!after) {
            c.robust = OF_ROBUST_NONE;
            c.init = OF_INIT_NONE; // the plain coarse-to-fine solve (the default's DIS pass repairs it too)
            c.median_size = 0;
            c.min_texture = 0.0f;
        }
        of_context* ctx = create_or_report(c, "demo corner");
        CHECK(ctx != nullptr);
        if (!ctx) return;
        FlowBuf f = make_flow(w, h);
        if (process(ctx, fp.prev, fp.next, f, "demo corner")) worst[after] = worst_top_block(f, p);
        of_destroy(ctx);
    }
    std::printf("demo corner (rotation-zoom 640x480, top 32 rows): worst 16x16 block EPE %.2f px with brightness "
                "constancy and no median, %.2f px with the defaults\n", worst[0], worst[1]);
    CHECK_MSG(worst[0] > 10.0, "the old failure should still show without the median and normalisation: %.2f", worst[0]);
    CHECK_MSG(worst[1] <= 3.0, "top rows: worst 16x16 block EPE %.2f px > 3", worst[1]);
}

int main() {
    test_epe_table();
    test_demo_corner();
    test_format_consistency();
    test_zero_motion_and_flat();
    test_tiny_frames();
    return oftest::finish("accuracy");
}
