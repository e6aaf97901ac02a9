// Lucas-Kanade under OF_ROBUST_CENSUS, one level of the CUDA frame pipeline (kLkOps's level,
// lk_frame.cu, calls it): the Newton steps of core/lk_census_cpu.cpp with HS's warp and census
// tensor and LK's own validity launch (lk_census_cuda.cuh has the scheme and which LK slot holds
// which plane). Enqueues only: no allocation, no host wait (graph-capturable).
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_state.cuh"
#include "cuda/hs_cuda.cuh"
#include "cuda/lk_census_cuda.cuh"

namespace oflow {
namespace cuda {

of_status lk_census_steps(State& st, const LevelDims& d, int level, int steps, int slot, int ucur, bool sums,
                          const ErrorSink& err) {
    const DevLayout& l = st.lay;
    // lk_g holds J13, J23 as two F32 planes only with F32 pairs (lk_resolve_tuning's census rule).
    if (st.tun.precision != OF_PRECISION_F32)
        return err.fail(OF_ERR_INTERNAL, "cuda: LK's robust census on an F16 tuning");
    const cudaStream_t s = st.stream;
    const int r = (static_cast<int>(st.cfg.lk.window) - 1) / 2;
    const DPlane<float> p0 = st.pyr(0, level, d), p1 = st.pyr(1, level, d);
    const DPlane<float> i1w = st.f32_plane(l.lk_box, 3, d);
    const DPlane<float2> u = st.plane<float2>(l.u[ucur], d);
    // Read-only views for HS's launchers.
    const DPlane<const float> i0{p0.p, p0.w, p0.h, p0.pitch}, i1{p1.p, p1.w, p1.h, p1.pitch};
    const DPlane<const float> ci1w{i1w.p, i1w.w, i1w.h, i1w.pitch};
    const DPlane<const float2> cu{u.p, u.w, u.h, u.pitch};
    EpsArgs eps;
    eps.stop = slot >= 0 ? &st.ctrl()->stop[slot] : nullptr;
    eps.counter = &st.ctrl()->counter;
    eps.partials = st.partials();
    eps.thresh = 0.0; // stop when no pixel is active (none valid: -1)

    CensusTensorCudaArgs t; // J11, J12, J22 into lk_tensor, J13, J23 into lk_g's two F32 planes
    t.i0 = i0;
    t.i1w = ci1w;
    t.u = cu;
    t.j[kJ11] = st.f32_plane(l.lk_tensor, kG11, d).p;
    t.j[kJ12] = st.f32_plane(l.lk_tensor, kG12, d).p;
    t.j[kJ22] = st.f32_plane(l.lk_tensor, kG22, d).p;
    t.j[kJ13] = st.f32_plane(l.lk_g, 0, d).p;
    t.j[kJ23] = st.f32_plane(l.lk_g, 1, d).p;
    t.eta = st.ctrl()->census_eta;
    t.stop = eps.stop;

    LkCensusStepArgs a;
    a.w = d.w;
    a.h = d.h;
    a.pitch = static_cast<int>(d.pitch);
    a.r = r;
    for (int c = 0; c < kHsChannels; ++c) a.j[c] = t.j[c];
    for (int c = 0; c < kLkTensorChannels; ++c) a.gsum[c] = st.f32_plane(l.lk_box, c, d).p;
    a.esum = st.plane<float2>(l.u[ucur ^ 1], d).p; // free: the census steps update u[ucur] in place
    a.u = u.p;
    a.state = st.arena + l.lk_state;
    a.sums = sums ? st.plane<float2>(l.lk_g, d).p : nullptr;
    a.epsilon = st.cfg.epsilon;
    a.eps = eps;

    // The validity of step 0 (lk_stages_cuda.cu k_lk_confidence): from the row sums of J11, J12,
    // J22 it forms G, the confidence and the state, and writes G over the tensor's first three
    // planes, which the row pass has read by then.
    const int s2 = static_cast<int>(st.cfg.lk.window) * static_cast<int>(st.cfg.lk.window);
    LkSetupArgs v;
    v.w = d.w;
    v.h = d.h;
    v.pitch = a.pitch;
    v.r = r;
    v.i0 = i0.p;
    v.g = nullptr;
    for (int c = 0; c < kLkTensorChannels; ++c) {
        v.hsum[c] = a.gsum[c];
        v.t[c] = st.f32_plane(l.lk_tensor, c, d).p;
    }
    v.conf = reinterpret_cast<float*>(st.arena + l.lk_conf);
    v.state = a.state;
    v.inv_area = 1.0 / static_cast<double>(s2);
    v.min_eigen = st.cfg.lk.min_eigen;
    v.store = LkStore::kTensor;
    v.eps = eps;

    for (int n = 0; n < steps; ++n) {
        t.launch = n;
        OF_CUDA_TRY(launch_hs_warp_image(i0, i1, cu, i1w, s), "LK census warp launch");
        OF_CUDA_TRY(launch_census_tensor(t, s), "LK census tensor launch");
        OF_CUDA_TRY(launch_lk_census_rows(a, n, st.tun.bw, st.tun.bh, s), "LK census rows launch");
        if (n == 0) OF_CUDA_TRY(launch_lk_confidence(v, s), "LK census validity launch");
        OF_CUDA_TRY(launch_lk_census_step(a, n, st.tun.bw, st.tun.bh, s), "LK census step launch");
    }
    return OF_OK;
}

} // namespace cuda
} // namespace oflow
