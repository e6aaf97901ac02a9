#include "flow_metrics.hpp"

#include "flo_io.hpp"

#include <cmath>
#include <limits>

namespace cli {

FlowError flow_error(const float* uv, const float* gt, std::size_t n, const unsigned char* valid) {
    const double rad2deg = 180.0 / 3.14159265358979323846;
    double sum_epe = 0.0, sum_ae = 0.0;
    FlowError e;
    for (std::size_t i = 0; i < n; ++i) {
        const float gu = gt[2 * i], gv = gt[2 * i + 1];
        if (flow_unknown(gu, gv) || (valid && valid[i] != 255)) continue;
        const double u = uv[2 * i], v = uv[2 * i + 1];
        const double du = u - gu, dv = v - gv;
        sum_epe += std::sqrt(du * du + dv * dv);
        const double dot = u * gu + v * gv + 1.0;
        const double norm = std::sqrt((u * u + v * v + 1.0) * (double(gu) * gu + double(gv) * gv + 1.0));
        double c = dot / norm;
        c = c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c);
        sum_ae += std::acos(c) * rad2deg;
        ++e.count;
    }
    if (e.count == 0) {
        e.epe = e.aae = std::numeric_limits<double>::quiet_NaN();
    } else {
        e.epe = sum_epe / static_cast<double>(e.count);
        e.aae = sum_ae / static_cast<double>(e.count);
    }
    return e;
}

} // namespace cli
