// gpu_stages: each stage of the CUDA path alone against its core/ref kernel, through the
// internal hooks of cuda/cuda_bench.hpp (same inputs uploaded, output downloaded):
//   blur_h / blur_v (sigma 0.8, 1.04, 3), the fused blur (both passes in one kernel, the frame
//   path's) against blur_h_ref then blur_v_ref bit for bit (sigma 0.8, 1.04, 3, 11: radii 3, 4,
//   9, 32; sizes 1x1, 2x3, 31x33, 97x61, 640x480), resample (down by ~2 and ~5/7), flow
//   upsampling, the bicubic warp with the gradient it takes (flows inside and far outside the
//   frame; F16: from the F16 pyramid, against the reference on the same rounded frames), and the inner
//   iterations of every variant x precision (37 iterations: not a multiple of any depth),
//   plus epsilon stopping of the iterations (stop count, and the ping-pong fixup: the flow
//   equals that many reference iterations).
// Sizes 97x61, 160x120, 1x1, 5x3, 33x17, 2x40. Tolerances (per value, |got - ref| <=
// abs + rel * |ref|): F32 stages abs 1e-5 rel 1e-5 (the kernels do the reference's operations
// in its order without contraction, so they are expected to be exact); F32 warp 1e-4;
// F32 iterations 1e-4 px; F16 warp: g rel 2^-10 abs 1e-4 (one half rounding), rho_c 1e-4
// (formed from the rounded g on both sides); F16 iterations: mean |du| <= 0.01 px, max |du| <=
// 0.1 px, max |dp| <= 0.05 against the reference run on the same (rounded) constants.
#include "gpu_util.hpp"

#include "core/context.hpp"
#include "core/flow_format.hpp"
#include "core/ref/kernels_ref.hpp"
#include "cuda/cuda_bench.hpp"

#include <random>

using namespace gputest;
using oflow::Plane;
using oflow::cuda::hooks::Stage;
using oflow::cuda::hooks::StageRun;

namespace {

struct Sz {
    int w, h;
};
const Sz kSizes[] = {{97, 61}, {160, 120}, {1, 1}, {5, 3}, {33, 17}, {2, 40}};
const int kMaxW = 160, kMaxH = 120;

using Vec = std::vector<float>;

Plane plane_of(Vec& v, int w, int h) { return Plane{v.data(), w, h, w}; }

/// Compares n values; prints the worst one with its (x, y) on failure.
bool close(const char* what, const Vec& got, const Vec& exp, int w, double abs_tol, double rel_tol) {
    if (got.size() != exp.size()) {
        CHECK_MSG(false, "%s: size %zu vs %zu", what, got.size(), exp.size());
        return false;
    }
    double worst = 0.0, worst_d = 0.0;
    size_t wi = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(exp[i]));
        const double excess = std::isfinite(d) ? d - (abs_tol + rel_tol * std::fabs(static_cast<double>(exp[i]))) : INFINITY;
        if (excess > worst || (i == 0 && !std::isfinite(excess))) {
            worst = excess;
            worst_d = d;
            wi = i;
        }
    }
    const bool ok = worst <= 0.0;
    CHECK_MSG(ok, "%s: |got - ref| = %.3g at (%zu, %zu): got %.9g, ref %.9g (tolerance %.1e + %.1e |ref|)", what, worst_d,
              wi % static_cast<size_t>(w), wi / static_cast<size_t>(w), static_cast<double>(got[wi]),
              static_cast<double>(exp[wi]), abs_tol, rel_tol);
    return ok;
}

Vec texture(int w, int h, uint32_t seed, int which) {
    Vec i0(static_cast<size_t>(w) * h), i1(i0.size());
    oflow::synth::generate(oflow::synth::Case::SmoothField, w, h, seed, i0.data(), i1.data(), nullptr, nullptr, w);
    return which == 0 ? i0 : i1;
}

struct Ctx {
    of_context* ctx = nullptr;
    explicit Ctx(of_variant v, of_precision p, int max_w = kMaxW, int max_h = kMaxH) {
        of_config c = tvl1_config(max_w, max_h);
        c.backend = OF_BACKEND_CUDA;
        c.variant = v;
        c.precision = p;
        ctx = create_or_report(c, "gpu_stages context");
        CHECK(ctx != nullptr);
    }
    ~Ctx() { of_destroy(ctx); }
    oflow::cuda::State* st() const { return ctx ? ctx->cuda : nullptr; }
};

bool run(const Ctx& c, StageRun& r, const char* what) {
    char buf[oflow::kErrorCapacity] = {0};
    const of_status s = oflow::cuda::hooks::run_stage(c.st(), &r, oflow::ErrorSink{buf});
    CHECK_MSG(s == OF_OK, "%s: run_stage: %s (%s)", what, st(s), buf);
    return s == OF_OK;
}

StageRun stage(Stage s, int w, int h) {
    StageRun r;
    std::memset(&r, 0, sizeof r);
    r.stage = s;
    r.w = w;
    r.h = h;
    r.w2 = w;
    r.h2 = h;
    return r;
}

void test_pyramid_stages(const Ctx& c, const char* prec) {
    for (const Sz& s : kSizes) {
        const Vec src = texture(s.w, s.h, 7, 0);
        const size_t n = src.size();
        char what[128];
        const float sigmas[] = {0.8f, 1.04f, 3.0f};
        for (float sg : sigmas) {
            const oflow::Gaussian1D g = oflow::make_gaussian(sg);
            for (int pass = 0; pass < 2; ++pass) {
                Vec got(n), exp(n), in = src;
                StageRun r = stage(pass == 0 ? Stage::BlurH : Stage::BlurV, s.w, s.h);
                r.sigma = sg;
                r.in[0] = in.data();
                r.out[0] = got.data();
                std::snprintf(what, sizeof what, "%s blur_%s sigma %.2f %dx%d", prec, pass == 0 ? "h" : "v", static_cast<double>(sg), s.w, s.h);
                if (!run(c, r, what)) continue;
                if (pass == 0)
                    oflow::blur_h_ref(plane_of(in, s.w, s.h), plane_of(exp, s.w, s.h), g, 0, s.h);
                else
                    oflow::blur_v_ref(plane_of(in, s.w, s.h), plane_of(exp, s.w, s.h), g, 0, s.h);
                close(what, got, exp, s.w, 1e-5, 1e-5);
            }
        }
        const Sz outs[] = {{(s.w + 1) / 2, (s.h + 1) / 2}, {s.w * 5 / 7 > 0 ? s.w * 5 / 7 : 1, s.h * 5 / 7 > 0 ? s.h * 5 / 7 : 1}};
        for (const Sz& o : outs) {
            Vec in = src, got(static_cast<size_t>(o.w) * o.h), exp(got.size());
            StageRun r = stage(Stage::Resample, s.w, s.h);
            r.w2 = o.w;
            r.h2 = o.h;
            r.in[0] = in.data();
            r.out[0] = got.data();
            std::snprintf(what, sizeof what, "%s resample %dx%d -> %dx%d", prec, s.w, s.h, o.w, o.h);
            if (!run(c, r, what)) continue;
            oflow::resample_ref(plane_of(in, s.w, s.h), plane_of(exp, o.w, o.h), 0, o.h);
            close(what, got, exp, o.w, 1e-5, 1e-5);
        }
        {
            const int cw = (s.w + 1) / 2, ch = (s.h + 1) / 2;
            Vec u1 = texture(cw, ch, 11, 0), u2 = texture(cw, ch, 12, 1);
            for (float& x : u1) x = x / 50.0f - 2.5f;
            for (float& x : u2) x = x / 60.0f - 2.0f;
            Vec o1(n), o2(n), e1(n), e2(n);
            StageRun r = stage(Stage::Upsample, cw, ch);
            r.w2 = s.w;
            r.h2 = s.h;
            r.mx = static_cast<float>(s.w) / static_cast<float>(cw);
            r.my = static_cast<float>(s.h) / static_cast<float>(ch);
            r.in[0] = u1.data();
            r.in[1] = u2.data();
            r.out[0] = o1.data();
            r.out[1] = o2.data();
            std::snprintf(what, sizeof what, "%s upsample %dx%d -> %dx%d", prec, cw, ch, s.w, s.h);
            if (run(c, r, what)) {
                oflow::upsample_flow_ref(plane_of(u1, cw, ch), plane_of(e1, s.w, s.h), r.mx, 0, s.h);
                oflow::upsample_flow_ref(plane_of(u2, cw, ch), plane_of(e2, s.w, s.h), r.my, 0, s.h);
                close(what, o1, e1, s.w, 1e-5, 1e-5);
                close(what, o2, e2, s.w, 1e-5, 1e-5);
            }
        }
    }
}

// The fused blur against the two reference passes: bit for bit (both do the same float
// operations in the same order without contraction; tolerance 0). Odd sizes, one tile and
// less, tiles cut by the border, and a 640x480 frame; sigma 11 (radius 32) takes the
// 16-row tile.
void test_fused_blur() {
    const Sz sizes[] = {{1, 1}, {2, 3}, {31, 33}, {97, 61}, {640, 480}};
    const Ctx c(OF_VARIANT_AUTO, OF_PRECISION_F32, 640, 480);
    if (!c.ctx) return;
    for (const Sz& s : sizes) {
        const Vec src = texture(s.w, s.h, 5, 1);
        const size_t n = src.size();
        const float sigmas[] = {0.8f, 1.04f, 3.0f, 11.0f};
        for (float sg : sigmas) {
            const oflow::Gaussian1D g = oflow::make_gaussian(sg);
            Vec in = src, got(n), tmp(n), exp(n);
            StageRun r = stage(Stage::Blur, s.w, s.h);
            r.sigma = sg;
            r.in[0] = in.data();
            r.out[0] = got.data();
            char what[128];
            std::snprintf(what, sizeof what, "fused blur sigma %.2f (radius %d) %dx%d", static_cast<double>(sg), g.radius, s.w,
                          s.h);
            if (!run(c, r, what)) continue;
            oflow::blur_h_ref(plane_of(in, s.w, s.h), plane_of(tmp, s.w, s.h), g, 0, s.h);
            oflow::blur_v_ref(plane_of(tmp, s.w, s.h), plane_of(exp, s.w, s.h), g, 0, s.h);
            close(what, got, exp, s.w, 0.0, 0.0);
        }
    }
}

// Reference warp of (i0, i1) at u; fills every Tvl1WarpArgs output. half: i0 and i1 rounded to
// F16 first, as an F16 context's pyramids hold them (the device rounds what the test uploads).
struct WarpRef {
    Vec i0, i1, i1x, i1y, u1, u2, i1w, wx, wy, grad, rc;
};
WarpRef warp_ref(int w, int h, uint32_t seed, bool far, bool half = false) {
    WarpRef r;
    const size_t n = static_cast<size_t>(w) * h;
    r.i0 = texture(w, h, seed, 0);
    r.i1 = texture(w, h, seed, 1);
    if (half)
        for (Vec* v : {&r.i0, &r.i1})
            for (float& x : *v) x = oflow::f16_to_float(oflow::flow_to_f16(x));
    r.i1x.assign(n, 0.0f);
    r.i1y.assign(n, 0.0f);
    r.i1w = r.wx = r.wy = r.grad = r.rc = r.i1x;
    oflow::gradient_ref(plane_of(r.i1, w, h), plane_of(r.i1x, w, h), plane_of(r.i1y, w, h), 0, h);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-3.0f, 3.0f);
    r.u1.resize(n);
    r.u2.resize(n);
    for (size_t i = 0; i < n; ++i) {
        r.u1[i] = d(rng);
        r.u2[i] = d(rng);
        if (far && i % 7 == 0) { // far outside the frame: taps clamp to the border
            r.u1[i] *= 20.0f;
            r.u2[i] *= -20.0f;
        }
    }
    oflow::Tvl1WarpArgs a;
    a.i0 = plane_of(r.i0, w, h);
    a.i1 = plane_of(r.i1, w, h);
    a.i1x = plane_of(r.i1x, w, h);
    a.i1y = plane_of(r.i1y, w, h);
    a.u1 = plane_of(r.u1, w, h);
    a.u2 = plane_of(r.u2, w, h);
    a.i1w = plane_of(r.i1w, w, h);
    a.i1wx = plane_of(r.wx, w, h);
    a.i1wy = plane_of(r.wy, w, h);
    a.grad = plane_of(r.grad, w, h);
    a.rho_c = plane_of(r.rc, w, h);
    oflow::tvl1_warp_ref(a, 0, h);
    return r;
}

void test_warp(const Ctx& c, bool half, const char* prec) {
    for (const Sz& s : kSizes)
        for (int far = 0; far < 2; ++far) {
            WarpRef r = warp_ref(s.w, s.h, 21, far != 0, half);
            const size_t n = r.i0.size();
            Vec gx(n), gy(n), g2(n), rc(n);
            StageRun st_ = stage(Stage::Warp, s.w, s.h);
            const float* ins[] = {r.i0.data(), r.i1.data(), r.i1x.data(), r.i1y.data(), r.u1.data(), r.u2.data()};
            for (int i = 0; i < 6; ++i) st_.in[i] = ins[i];
            st_.out[0] = gx.data();
            st_.out[1] = gy.data();
            st_.out[2] = g2.data();
            st_.out[3] = rc.data();
            char what[128];
            std::snprintf(what, sizeof what, "%s warp %dx%d%s", prec, s.w, s.h, far ? " (flows far outside)" : "");
            if (!run(c, st_, what)) continue;
            char sub[160];
            if (!half) {
                std::snprintf(sub, sizeof sub, "%s I1wx", what);
                close(sub, gx, r.wx, s.w, 1e-4, 1e-4);
                std::snprintf(sub, sizeof sub, "%s I1wy", what);
                close(sub, gy, r.wy, s.w, 1e-4, 1e-4);
                std::snprintf(sub, sizeof sub, "%s |grad|^2", what);
                close(sub, g2, r.grad, s.w, 1e-4, 1e-4);
                std::snprintf(sub, sizeof sub, "%s rho_c", what);
                close(sub, rc, r.rc, s.w, 1e-4, 1e-4);
            } else {
                std::snprintf(sub, sizeof sub, "%s I1wx (F16)", what);
                close(sub, gx, r.wx, s.w, 1e-4, 1.0 / 1024.0);
                std::snprintf(sub, sizeof sub, "%s I1wy (F16)", what);
                close(sub, gy, r.wy, s.w, 1e-4, 1.0 / 1024.0);
                // rho_c from the rounded g on both sides; 0 where x + u leaves the image.
                Vec erc(n);
                for (size_t i = 0; i < n; ++i) {
                    const float px = static_cast<float>(static_cast<int>(i % static_cast<size_t>(s.w))) + r.u1[i];
                    const float py = static_cast<float>(static_cast<int>(i / static_cast<size_t>(s.w))) + r.u2[i];
                    const bool inside = px >= 0.0f && px <= static_cast<float>(s.w - 1) && py >= 0.0f &&
                                        py <= static_cast<float>(s.h - 1);
                    erc[i] = inside ? r.i1w[i] - gx[i] * r.u1[i] - gy[i] * r.u2[i] - r.i0[i] : 0.0f;
                }
                std::snprintf(sub, sizeof sub, "%s rho_c (F16 g)", what);
                close(sub, rc, erc, s.w, 1e-4, 1e-4);
            }
        }
}

// Reference iterations from p = 0 on the given constants; returns per-iteration sums of
// |du|^2 in errs.
struct IterState {
    Vec u1, u2, p11, p12, p21, p22;
};
IterState ref_iterate(int w, int h, const Vec& u1, const Vec& u2, const Vec& ix, const Vec& iy, const Vec& g2, const Vec& rc,
                      int iterations, std::vector<double>* errs) {
    IterState s;
    s.u1 = u1;
    s.u2 = u2;
    s.p11.assign(u1.size(), 0.0f);
    s.p12 = s.p21 = s.p22 = s.p11;
    Vec cix = ix, ciy = iy, cg2 = g2, crc = rc;
    oflow::Tvl1IterArgs a;
    a.u1 = plane_of(s.u1, w, h);
    a.u2 = plane_of(s.u2, w, h);
    a.p11 = plane_of(s.p11, w, h);
    a.p12 = plane_of(s.p12, w, h);
    a.p21 = plane_of(s.p21, w, h);
    a.p22 = plane_of(s.p22, w, h);
    a.i1wx = plane_of(cix, w, h);
    a.i1wy = plane_of(ciy, w, h);
    a.grad = plane_of(cg2, w, h);
    a.rho_c = plane_of(crc, w, h);
    const float lambda = 0.15f, theta = 0.3f, tau = 0.25f;
    a.lt = lambda * theta;
    a.theta = theta;
    a.tau_over_theta = tau / theta;
    for (int n = 0; n < iterations; ++n) {
        const double e = oflow::tvl1_calc_u_ref(a, 0, h);
        oflow::tvl1_calc_p_ref(a, 0, h);
        if (errs) errs->push_back(e);
    }
    return s;
}

void test_iterations() {
    const of_variant variants[] = {OF_VARIANT_GLOBAL, OF_VARIANT_FUSED, OF_VARIANT_MULTI_ITER};
    const of_precision precs[] = {OF_PRECISION_F32, OF_PRECISION_F16};
    const int iters = 37;
    for (of_variant v : variants)
        for (of_precision p : precs) {
            const bool half = p == OF_PRECISION_F16;
            const Ctx c(v, p);
            if (!c.ctx) continue;
            int bw = 0, bh = 0, depth = 1;
            size_t shared = 0;
            oflow::cuda::hooks::launch_shape(c.st(), &bw, &bh, &depth, &shared);
            for (const Sz& s : kSizes) {
                WarpRef r = warp_ref(s.w, s.h, 33, false);
                const size_t n = r.i0.size();
                Vec u1(n), u2(n), p11(n), p12(n), p21(n), p22(n), ix(n), iy(n);
                for (size_t i = 0; i < n; ++i) { // start from a small flow, not zero
                    u1[i] = 0.1f * r.u1[i];
                    u2[i] = 0.1f * r.u2[i];
                }
                StageRun sr = stage(Stage::Iterate, s.w, s.h);
                sr.iterations = iters;
                const float* ins[] = {u1.data(), u2.data(), r.wx.data(), r.wy.data(), r.grad.data(), r.rc.data()};
                for (int i = 0; i < 6; ++i) sr.in[i] = ins[i];
                Vec g1(n), g2v(n);
                float* outs[] = {g1.data(), g2v.data(), p11.data(), p12.data(), p21.data(), p22.data(), ix.data(), iy.data()};
                for (int i = 0; i < 8; ++i) sr.out[i] = outs[i];
                char what[160];
                std::snprintf(what, sizeof what, "%s %s (%dx%d depth %d) %d iterations %dx%d", variant_str(v), precision_str(p),
                              bw, bh, depth, iters, s.w, s.h);
                if (!run(c, sr, what)) continue;
                Vec grad = r.grad;
                if (half)
                    for (size_t i = 0; i < n; ++i) grad[i] = ix[i] * ix[i] + iy[i] * iy[i];
                const IterState e = ref_iterate(s.w, s.h, u1, u2, ix, iy, grad, r.rc, iters, nullptr);
                char sub[200];
                if (!half) {
                    const Vec* got[] = {&g1, &g2v, &p11, &p12, &p21, &p22};
                    const Vec* exp[] = {&e.u1, &e.u2, &e.p11, &e.p12, &e.p21, &e.p22};
                    const char* names[] = {"u1", "u2", "p11", "p12", "p21", "p22"};
                    for (int i = 0; i < 6; ++i) {
                        std::snprintf(sub, sizeof sub, "%s %s", what, names[i]);
                        close(sub, *got[i], *exp[i], s.w, 1e-4, 0.0);
                    }
                } else {
                    double mean = 0.0, mx = 0.0, mp = 0.0;
                    for (size_t i = 0; i < n; ++i) {
                        const double d1 = std::fabs(g1[i] - e.u1[i]), d2 = std::fabs(g2v[i] - e.u2[i]);
                        mean += d1 + d2;
                        mx = std::max(mx, std::max(d1, d2));
                        mp = std::max(mp, static_cast<double>(std::max(std::max(std::fabs(p11[i] - e.p11[i]), std::fabs(p12[i] - e.p12[i])),
                                                                       std::max(std::fabs(p21[i] - e.p21[i]), std::fabs(p22[i] - e.p22[i])))));
                    }
                    mean /= 2.0 * static_cast<double>(n);
                    std::printf("  %s: mean |du| %.2e, max |du| %.2e, max |dp| %.2e\n", what, mean, mx, mp);
                    CHECK_MSG(mean <= 0.01 && mx <= 0.1 && mp <= 0.05 && std::isfinite(mean),
                              "%s: vs reference mean |du| %.3g (<= 0.01), max |du| %.3g (<= 0.1), max |dp| %.3g (<= 0.05)", what,
                              mean, mx, mp);
                }
                if (half || n < 100) continue;

                // Epsilon: pick it between two consecutive reference errors so the reference
                // stops at a known iteration, then check the device's stop and the flow.
                std::vector<double> errs;
                (void)ref_iterate(s.w, s.h, u1, u2, ix, iy, grad, r.rc, iters, &errs);
                const int target = 12;
                const double eps2 = 0.5 * (errs[target] + errs[target - 1]) / static_cast<double>(n);
                int ref_run = iters;
                for (int k = 0; k < iters; ++k)
                    if (errs[k] / static_cast<double>(n) <= eps2) {
                        ref_run = k + 1;
                        break;
                    }
                int exp_run = ref_run; // MULTI_ITER tests the last iteration of each launch
                if (v == OF_VARIANT_MULTI_ITER) {
                    exp_run = iters;
                    for (int k = 0; (k * depth) < iters; ++k) {
                        const int last = std::min((k + 1) * depth, iters) - 1;
                        if (errs[last] / static_cast<double>(n) <= eps2) {
                            exp_run = last + 1;
                            break;
                        }
                    }
                }
                StageRun se = sr;
                se.epsilon = static_cast<float>(std::sqrt(eps2));
                std::snprintf(what, sizeof what, "%s F32 epsilon %.4g %dx%d", variant_str(v), static_cast<double>(se.epsilon), s.w, s.h);
                if (!run(c, se, what)) continue;
                std::printf("  %s: stopped after %d iterations (reference %d, expected %d)\n", what, se.iterations_run, ref_run,
                            exp_run);
                CHECK_MSG(se.iterations_run == exp_run, "%s: stopped after %d iterations, expected %d (reference %d)", what,
                          se.iterations_run, exp_run, ref_run);
                const IterState es = ref_iterate(s.w, s.h, u1, u2, ix, iy, grad, r.rc, se.iterations_run, nullptr);
                std::snprintf(sub, sizeof sub, "%s u1 after the stop", what);
                close(sub, g1, es.u1, s.w, 1e-4, 0.0);
                std::snprintf(sub, sizeof sub, "%s p12 after the stop", what);
                close(sub, p12, es.p12, s.w, 1e-4, 0.0);
            }
        }
}

} // namespace

int main() {
    if (!cuda_ready()) return 77;
    {
        const Ctx f32(OF_VARIANT_AUTO, OF_PRECISION_F32), f16(OF_VARIANT_AUTO, OF_PRECISION_F16);
        if (f32.ctx) {
            test_pyramid_stages(f32, "F32");
            test_warp(f32, false, "F32");
        }
        if (f16.ctx) test_warp(f16, true, "F16");
    }
    test_fused_blur();
    test_iterations();
    return oftest::finish("gpu_stages");
}
