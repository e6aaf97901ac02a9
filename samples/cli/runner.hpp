// The part of oflow-cli that talks to liboflow: config from options, one context, timed
// of_process calls, and names for the library's enums.
#ifndef OFLOW_CLI_RUNNER_HPP
#define OFLOW_CLI_RUNNER_HPP

#include "args.hpp"

#include <oflow.h>

#include <string>
#include <vector>

namespace cli {

/// The library's config for these options and frames of width x height in format.
/// False: *err is one line with the status and of_last_error's text.
bool make_config(const Options& o, int width, int height, of_pixel_format format, of_config* cfg,
                 std::string* err);

/// of_explain for these options: what of_create would choose, without creating anything.
/// *used: the config it explained.
bool explain_config(const Options& o, int width, int height, of_pixel_format format, of_info* out,
                    of_config* used, std::string* err);

/// Owns one of_context.
class Flow {
public:
    Flow() = default;
    ~Flow() { of_destroy(ctx_); }
    Flow(const Flow&) = delete;
    Flow& operator=(const Flow&) = delete;

    /// Configures for frames of width x height in format and creates the context.
    /// False: *err is one line with the status and of_last_error's text.
    bool create(const Options& o, int width, int height, of_pixel_format format,
                std::string* err);

    /// Runs of_process `repeat` times on one frame pair (each `stride` bytes per row) into
    /// uv (2 * width * height floats, interleaved) and the validity mask `valid` (width * height
    /// bytes, of_flow.valid as OF_VALID_MASK_U8: 255 where the confidence is at least
    /// config.min_confidence, else 0); *median_ms is the median wall time. With --flow-format f16
    /// or s10.5 the library writes that format and uv holds its elements converted back to float
    /// (exactly). valid may be null (--no-validity): of_flow.valid is then not asked for (OF_VALID_NONE),
    /// so the timed calls compute the flow alone. confidence (may be null): one more, untimed, of_process of the same pair with
    /// of_flow.valid as OF_VALID_CONFIDENCE_F32 fills it (width * height floats, row-major, top row
    /// first): of_flow has one validity plane, so the mask and the confidence take a call each.
    bool process(const void* frame0, const void* frame1, std::size_t stride, uint32_t repeat,
                 std::vector<float>* uv, std::vector<unsigned char>* valid, std::vector<float>* confidence,
                 double* median_ms, std::string* err);

    /// One frame of a stream (of_push_frame): *pending true for the stream's first frame (no
    /// flow), else the flow in uv (interleaved) and the validity mask in valid (may be null) as process();
    /// *ms is the call's wall time.
    bool push(const void* frame, std::size_t stride, std::vector<float>* uv, std::vector<unsigned char>* valid,
              bool* pending, double* ms, std::string* err);

    bool info(of_info* out, std::string* err) const;

    /// The config of the last create().
    const of_config& config() const { return cfg_; }

private:
    /// A host frame of the context's size and format at data, rows `stride` bytes apart.
    of_image frame_view(const void* data, std::size_t stride) const;
    /// The interleaved host output into uv (F32), or into packed (F16 / S10.5: unpack() turns it
    /// into uv), and the validity mask into valid (null: none asked for); the vectors are sized here.
    of_flow output(std::vector<float>* uv, std::vector<uint16_t>* packed, std::vector<unsigned char>* valid) const;
    void unpack(const std::vector<uint16_t>& packed, std::vector<float>* uv) const;

    of_context* ctx_ = nullptr;
    of_config cfg_ = of_config();
    int width_ = 0, height_ = 0;
    of_pixel_format format_ = OF_PIXEL_U8;
    of_flow_format flow_format_ = OF_FLOW_FORMAT_F32; ///< --flow-format
};

const char* algo_name(of_algorithm a);
const char* backend_name(of_backend b);
const char* precision_name(of_precision p);
const char* format_name(of_pixel_format f);
const char* robust_name(of_robust r);
const char* solver_name(of_solver s);
const char* variant_name(of_variant v);

} // namespace cli

#endif
