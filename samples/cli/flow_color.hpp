// Middlebury colour coding of flow (Baker et al., "A Database and Evaluation Methodology for
// Optical Flow", colorcode.cpp): hue is the direction, saturation the magnitude relative to
// the largest known magnitude; zero flow is white, unknown flow black.
#ifndef OFLOW_CLI_FLOW_COLOR_HPP
#define OFLOW_CLI_FLOW_COLOR_HPP

#include <cstddef>
#include <cstdint>

namespace cli {

/// Colour of a flow already divided by the normalising radius: |(fx, fy)| <= 1 goes from
/// white (0) to the wheel's colour (1); beyond 1 the wheel colour is darkened to 75 %.
/// (fx, fy) = (1, 0) gives the wheel's first entry, pure red (255, 0, 0).
void flow_wheel_color(float fx, float fy, uint8_t rgb[3]);

/// Colours n interleaved (u, v) pairs into n RGB triples. max_radius <= 0 means "the largest
/// finite magnitude among the known pairs" (1 when all are zero or unknown).
void flow_to_rgb(const float* uv, std::size_t n, uint8_t* rgb, float max_radius = 0.0f);

} // namespace cli

#endif
