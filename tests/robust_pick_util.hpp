// What tests/robust_pick (CPU paths) and tests/gpu/gpu_robust_pick (CUDA) share: a matrix cell
// at 160x120, one pair through a context with the flow and the F32 confidence plane on the
// host, and its EPE.
#ifndef OFLOW_TESTS_ROBUST_PICK_UTIL_HPP
#define OFLOW_TESTS_ROBUST_PICK_UTIL_HPP

#include "check.hpp"
#include "test_util.hpp"

#include "core/robust.hpp"
#include "core/synth_matrix.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace picktest {

const int kW = 160, kH = 120;

struct Cell {
    std::vector<float> i0, i1, gu, gv;
};

inline Cell make_cell(oflow::synth::Motion m, oflow::synth::Photometry p) {
    Cell c;
    const std::size_t n = static_cast<std::size_t>(kW) * kH;
    c.i0.resize(n);
    c.i1.resize(n);
    c.gu.resize(n);
    c.gv.resize(n);
    oflow::synth::generate_cell(m, p, kW, kH, 1u, c.i0.data(), c.i1.data(), c.gu.data(), c.gv.data(), kW);
    return c;
}

/// One pair under cfg: ok false (and a message) when create or process fails.
struct Run {
    bool ok = false;
    std::vector<float> u, v, conf;
    of_info info;
};

inline Run run(const of_config& cfg, const Cell& c, const char* what) {
    Run r;
    std::memset(&r.info, 0, sizeof r.info);
    r.info.struct_size = sizeof r.info;
    of_context* ctx = oftest::create_or_report(cfg, what);
    if (!ctx) return r;
    const oftest::Frame a = oftest::make_frame(OF_PIXEL_F32, kW, kH, c.i0.data(), kW);
    const oftest::Frame b = oftest::make_frame(OF_PIXEL_F32, kW, kH, c.i1.data(), kW);
    r.u.assign(c.i0.size(), 0.0f);
    r.v.assign(c.i0.size(), 0.0f);
    r.conf.assign(c.i0.size(), -1.0f);
    of_flow f = oftest::host_planar_flow(r.u.data(), r.v.data(), kW, kH);
    f.valid_format = OF_VALID_CONFIDENCE_F32;
    f.valid = r.conf.data();
    f.valid_stride = kW * sizeof(float);
    const of_status s = of_process(ctx, &a.img, &b.img, &f);
    if (s != OF_OK) std::fprintf(stderr, "%s: of_process: %s: %s\n", what, oftest::st(s), of_last_error(ctx));
    r.ok = s == OF_OK && of_get_info(ctx, &r.info) == OF_OK;
    of_destroy(ctx);
    return r;
}

inline double epe(const Run& r, const Cell& c) {
    double sum = 0.0;
    for (std::size_t i = 0; i < r.u.size(); ++i) sum += std::hypot(r.u[i] - c.gu[i], r.v[i] - c.gv[i]);
    return sum / static_cast<double>(r.u.size());
}

inline const char* name(of_robust r) { return oflow::robust_mode_name(r); }

} // namespace picktest

#endif
