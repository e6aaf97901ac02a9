// A view of one float plane: no ownership. pitch is in elements, >= w.
#ifndef OFLOW_CORE_PLANE_HPP
#define OFLOW_CORE_PLANE_HPP

#include <cstddef>

namespace oflow {

struct Plane {
    float* data;
    int w, h;
    std::ptrdiff_t pitch;
    float* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * pitch; }
};

} // namespace oflow

#endif
