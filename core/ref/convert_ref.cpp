// Input conversion, reference path: U8 as is, U16 / 257, F32 as is, into a float plane.
#include "core/ref/kernels_ref.hpp"

#include <cmath>
#include <cstdint>

namespace oflow {

void convert_ref(const of_image& src, Plane dst, int y0, int y1) {
    const unsigned char* base = static_cast<const unsigned char*>(src.data);
    for (int y = y0; y < y1; ++y) {
        const unsigned char* row = base + static_cast<std::size_t>(y) * src.stride;
        float* out = dst.row(y);
        switch (src.format) {
        case OF_PIXEL_U8:
            for (int x = 0; x < dst.w; ++x) out[x] = static_cast<float>(row[x]);
            break;
        case OF_PIXEL_U16: {
            const uint16_t* r16 = reinterpret_cast<const uint16_t*>(row);
            for (int x = 0; x < dst.w; ++x) out[x] = static_cast<float>(r16[x]) * (1.0f / 257.0f);
            break;
        }
        case OF_PIXEL_F32: {
            const float* rf = reinterpret_cast<const float*>(row);
            for (int x = 0; x < dst.w; ++x) out[x] = rf[x];
            break;
        }
        default: break; // unreachable: the format was validated by the API
        }
    }
}

bool image_pixels_valid(const of_image& img) {
    if (img.format != OF_PIXEL_F32) return true;
    const unsigned char* base = static_cast<const unsigned char*>(img.data);
    for (uint32_t y = 0; y < img.height; ++y) {
        const float* row = reinterpret_cast<const float*>(base + static_cast<std::size_t>(y) * img.stride);
        for (uint32_t x = 0; x < img.width; ++x)
            if (!(std::fabs(row[x]) <= kMaxF32Pixel)) return false; // NaN fails the comparison too
    }
    return true;
}

of_status fail_invalid_pixels(const ErrorSink& err, const char* frame) {
    return err.fail(OF_ERR_NONFINITE, "%s: F32 pixels hold NaN, Inf or a magnitude above %g", frame,
                    static_cast<double>(kMaxF32Pixel));
}

} // namespace oflow
