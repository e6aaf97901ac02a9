// hs_convergence: iterations each HS/CLG solver needs to get within 1e-3 px of the fixed point,
// on one level (the reference kernels of core/ref/hs_ref.hpp, called directly):
// plain point Jacobi, pointwise-coupled Jacobi, red-black SOR (omega 1.0 and 1.4).
//
// Problem: the derivatives of a synthetic pair (smooth-field and translation, 48x36, frame 1
// unwarped), the tensor unsmoothed (rho 0: HS's equations) and smoothed (rho 2: CLG), alpha
// 3 and 15. The fixed point is SOR run 5x as long as it takes its mean square update to 1e-12;
// each solver's count is the first iteration whose max |du - du*| and |dv - dv*| are <= 1e-3.
// Asserted: every solver reaches it within its cap (plain 40000, coupled 40000, SOR 20000);
// coupled Jacobi needs no more iterations than plain Jacobi; SOR (omega 1.4) fewer than coupled
// Jacobi. The table is printed (docs/accuracy.md quotes it).
#include "tests/check.hpp"
#include "test_util.hpp"

#include "core/hs_kernels.hpp"
#include "core/ref/hs_ref.hpp"
#include "core/ref/kernels_ref.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace oflow;

namespace {

const int kW = 48, kH = 36;

struct Planes {
    std::vector<float> store;
    int n = 0;
    explicit Planes(int count) : store(static_cast<size_t>(count) * kW * kH, 0.0f), n(count) {}
    Plane at(int i) { return Plane{store.data() + static_cast<size_t>(i) * kW * kH, kW, kH, kW}; }
};

struct Problem {
    Planes p{8}; // 0 ix, 1 iy, 2 it, 3..7 tensor
    Plane j[kHsChannels];
    Plane ix, iy, it;
};

void make_problem(oflow::synth::Case c, float rho, Problem* pb) {
    const oftest::Pair pr = oftest::synth_pair(c, kW, kH, 4);
    std::vector<float> i0 = pr.i0, i1 = pr.i1;
    const Plane a{i0.data(), kW, kH, kW}, b{i1.data(), kW, kH, kW};
    pb->ix = pb->p.at(0);
    pb->iy = pb->p.at(1);
    pb->it = pb->p.at(2);
    hs_derivatives_ref(HsDerivArgs{a, b, pb->ix, pb->iy, pb->it}, 0, kH);
    HsTensorArgs t;
    t.ix = pb->ix;
    t.iy = pb->iy;
    t.it = pb->it;
    for (int ch = 0; ch < kHsChannels; ++ch) t.j[ch] = pb->j[ch] = pb->p.at(3 + ch);
    hs_tensor_ref(t, 0, kH);
    if (rho > 0.0f) {
        const Gaussian1D g = make_gaussian(rho);
        std::vector<float> tmp(static_cast<size_t>(kW) * kH);
        for (int ch = 0; ch < kHsChannels; ++ch) {
            const Plane tp{tmp.data(), kW, kH, kW};
            blur_h_ref(pb->j[ch], tp, g, 0, kH);
            blur_v_ref(tp, pb->j[ch], g, 0, kH);
        }
    }
}

double max_dev(const std::vector<float>& u, const std::vector<float>& v, const std::vector<float>& us,
               const std::vector<float>& vs) {
    double m = 0;
    for (size_t i = 0; i < u.size(); ++i)
        m = std::max(m, std::max(std::fabs(static_cast<double>(u[i]) - us[i]), std::fabs(static_cast<double>(v[i]) - vs[i])));
    return m;
}

// SOR on full planes through the split layout; `until` > 0: stop when the mean square update
// <= until; else compare with (us, vs) each iteration and return the first within 1e-3 px.
int run_sor(Problem& pb, float a2, float omega, int cap, double until, const std::vector<float>* us,
            const std::vector<float>* vs, std::vector<float>* u_out, std::vector<float>* v_out) {
    const int hw = (kW + 1) / 2;
    std::vector<float> jr(static_cast<size_t>(kHsChannels) * hw * kH), jb(jr.size());
    HsSorArgs red, black;
    for (int ch = 0; ch < kHsChannels; ++ch) {
        red.j[ch] = Plane{jr.data() + static_cast<size_t>(ch) * hw * kH, hw, kH, hw};
        black.j[ch] = Plane{jb.data() + static_cast<size_t>(ch) * hw * kH, hw, kH, hw};
        rb_split_ref(pb.j[ch], red.j[ch], black.j[ch], 0, kH);
    }
    std::vector<float> s[8]; // u red/black old/new, v red/black old/new
    for (auto& x : s) x.assign(static_cast<size_t>(hw) * kH, 0.0f);
    auto P = [&](int i) { return Plane{s[i].data(), hw, kH, hw}; };
    int ur = 0, ub = 1, urn = 2, ubn = 3, vr = 4, vb = 5, vrn = 6, vbn = 7;
    std::vector<float> u(static_cast<size_t>(kW) * kH), v(u.size());
    const Plane fu{u.data(), kW, kH, kW}, fv{v.data(), kW, kH, kW};
    for (int n = 1; n <= cap; ++n) {
        red.u_old = P(ur), red.v_old = P(vr), red.u_other = P(ub), red.v_other = P(vb), red.u_new = P(urn), red.v_new = P(vrn);
        black.u_old = P(ub), black.v_old = P(vb), black.u_other = P(urn), black.v_other = P(vrn), black.u_new = P(ubn),
        black.v_new = P(vbn);
        red.alpha2 = black.alpha2 = a2;
        red.omega = black.omega = omega;
        red.colour = 0;
        black.colour = 1;
        red.w = black.w = kW;
        const double ch = sor_half_sweep_ref(red, 0, kH) + sor_half_sweep_ref(black, 0, kH);
        std::swap(ur, urn);
        std::swap(ub, ubn);
        std::swap(vr, vrn);
        std::swap(vb, vbn);
        rb_merge_ref(P(ur), P(ub), fu, 0, kH);
        rb_merge_ref(P(vr), P(vb), fv, 0, kH);
        if (until < 0) continue; // run all cap iterations
        if (until > 0 ? ch / (kW * kH) <= until : max_dev(u, v, *us, *vs) <= 1e-3) {
            if (u_out) *u_out = u, *v_out = v;
            return n;
        }
        if (!(ch == ch)) return -1; // diverged to NaN
    }
    if (until < 0 && u_out) {
        *u_out = u, *v_out = v;
        return cap;
    }
    return -1;
}

int run_jacobi(Problem& pb, float a2, bool coupled, int cap, const std::vector<float>& us, const std::vector<float>& vs) {
    std::vector<float> b[4];
    for (auto& x : b) x.assign(static_cast<size_t>(kW) * kH, 0.0f);
    int cu = 0, cv = 1, nu = 2, nv = 3;
    HsJacobiArgs a;
    a.ix = pb.ix;
    a.iy = pb.iy;
    a.it = pb.it;
    for (int ch = 0; ch < kHsChannels; ++ch) a.j[ch] = pb.j[ch];
    a.alpha2 = a2;
    for (int n = 1; n <= cap; ++n) {
        a.du = Plane{b[cu].data(), kW, kH, kW};
        a.dv = Plane{b[cv].data(), kW, kH, kW};
        a.du_next = Plane{b[nu].data(), kW, kH, kW};
        a.dv_next = Plane{b[nv].data(), kW, kH, kW};
        coupled ? clg_jacobi_ref(a, 0, kH) : clg_jacobi_plain_ref(a, 0, kH);
        std::swap(cu, nu);
        std::swap(cv, nv);
        if (max_dev(b[cu], b[cv], us, vs) <= 1e-3) return n;
    }
    return -1;
}

} // namespace

int main() {
    std::printf("iterations to within 1e-3 px of the fixed point, one level %dx%d, reference kernels\n", kW, kH);
    std::printf("%-13s %4s %5s %8s %8s %8s %8s\n", "case", "rho", "alpha", "plain", "coupled", "sor 1.0", "sor 1.4");
    const oflow::synth::Case cases[] = {oflow::synth::Case::SmoothField, oflow::synth::Case::Translation};
    for (oflow::synth::Case c : cases)
        for (float rho : {0.0f, 2.0f})
            for (float alpha : {3.0f, 15.0f}) {
                Problem pb;
                make_problem(c, rho, &pb);
                const float a2 = alpha * alpha;
                std::vector<float> us, vs;
                // The fixed point: SOR until its mean square update is <= 1e-12 (near F32's floor),
                // then four times as many iterations again.
                const int settle = run_sor(pb, a2, 1.4f, 30000, 1e-12, nullptr, nullptr, &us, &vs);
                const int fixed = settle > 0 ? run_sor(pb, a2, 1.4f, 5 * settle, -1, nullptr, nullptr, &us, &vs) : -1;
                CHECK_MSG(fixed > 0, "%s rho %g alpha %g: SOR did not settle", oflow::synth::case_name(c),
                          static_cast<double>(rho), static_cast<double>(alpha));
                if (fixed <= 0) continue;
                const int plain = run_jacobi(pb, a2, false, 40000, us, vs);
                const int coupled = run_jacobi(pb, a2, true, 40000, us, vs);
                const int sor1 = run_sor(pb, a2, 1.0f, 20000, 0, &us, &vs, nullptr, nullptr);
                const int sor14 = run_sor(pb, a2, 1.4f, 20000, 0, &us, &vs, nullptr, nullptr);
                std::printf("%-13s %4g %5g %8d %8d %8d %8d\n", oflow::synth::case_name(c), static_cast<double>(rho),
                            static_cast<double>(alpha), plain, coupled, sor1, sor14);
                CHECK_MSG(plain > 0 && coupled > 0 && sor1 > 0 && sor14 > 0, "a solver did not converge within its cap");
                CHECK_MSG(coupled <= plain, "coupled Jacobi %d > plain %d iterations", coupled, plain);
                CHECK_MSG(sor14 < coupled, "SOR 1.4 %d >= coupled Jacobi %d iterations", sor14, coupled);
            }
    return oftest::finish("hs_convergence");
}
