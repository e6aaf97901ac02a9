// An owning float plane for the kernel-level tests (tests that call core/ref/ kernels directly):
// w x h values, packed rows (stride w), viewed as a core Plane. Test code only.
#ifndef OFLOW_TESTS_HOST_PLANE_HPP
#define OFLOW_TESTS_HOST_PLANE_HPP

#include "core/plane.hpp"

#include <cstddef>
#include <vector>

namespace oftest {

struct HostPlane {
    int w, h;
    std::vector<float> v;
    HostPlane(int w_, int h_, float fill = 0.0f)
        : w(w_), h(h_), v(static_cast<std::size_t>(w_) * static_cast<std::size_t>(h_), fill) {}
    oflow::Plane plane() { return oflow::Plane{v.data(), w, h, w}; }
    float& at(int x, int y) { return v[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)]; }
    float at(int x, int y) const { return v[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)]; }
};

} // namespace oftest

#endif
