// Greyscale PFM (Portable Float Map) files, as written for --confidence:
//   "Pf\n"                   greyscale ("PF" would be three channels)
//   "<width> <height>\n"     decimal
//   "-1.0\n"                 the scale: its sign is the byte order, negative = little-endian
//   width * height float32   IEEE 754, little-endian, rows from the BOTTOM row of the image
//                            to the TOP row (the format's order: the last row first)
// The header is always exactly these three lines (one '\n' each), so the data starts at the
// header's length: 12 + the digits of width and height bytes.
#ifndef OFLOW_CLI_PFM_IO_HPP
#define OFLOW_CLI_PFM_IO_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace cli {

/// The whole file for a width x height plane whose rows are `stride` floats apart, top row
/// first in memory (as of_flow.valid holds it): the header, then the rows bottom to top, each
/// value little-endian whatever the host's byte order.
std::vector<unsigned char> encode_pfm(int width, int height, const float* plane, std::size_t stride);

/// encode_pfm() to path; "PATH: why" on failure.
bool write_pfm(const std::string& path, int width, int height, const float* plane, std::size_t stride,
               std::string* err);

} // namespace cli

#endif
