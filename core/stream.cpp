#include "core/stream.hpp"

#include "core/algorithm.hpp"
#include "core/context.hpp"
#include "core/flow_driver.hpp"
#include "core/ref/kernels_ref.hpp"
#include "core/schedule.hpp"

#include <cmath>
#include <cstring>

namespace oflow {
namespace {

std::size_t pixel_bytes(of_pixel_format f) { return f == OF_PIXEL_U8 ? 1u : f == OF_PIXEL_U16 ? 2u : 4u; }

// The kept frame of a CPU-backend stream: kBufStreamFrame, packed rows.
of_image kept_frame(const of_context* c) {
    of_image img;
    std::memset(&img, 0, sizeof img);
    img.struct_size = sizeof img;
    img.format = c->cfg.format;
    img.memory = OF_MEMORY_HOST;
    img.width = c->stream.w;
    img.height = c->stream.h;
    img.stride = static_cast<std::size_t>(c->stream.w) * pixel_bytes(c->cfg.format);
    img.data = c->buf[kBufStreamFrame];
    return img;
}

void keep_frame(of_context* c, const of_image& frame) {
    const std::size_t row = static_cast<std::size_t>(frame.width) * pixel_bytes(c->cfg.format);
    unsigned char* dst = static_cast<unsigned char*>(c->buf[kBufStreamFrame]);
    const unsigned char* src = static_cast<const unsigned char*>(frame.data);
    for (uint32_t y = 0; y < frame.height; ++y) std::memcpy(dst + row * y, src + frame.stride * y, row);
}

// Bilinear sample of p at (x, y), coordinates clamped to the plane.
float sample(const Plane& p, float x, float y) {
    const float cx = std::fmin(std::fmax(x, 0.0f), static_cast<float>(p.w - 1));
    const float cy = std::fmin(std::fmax(y, 0.0f), static_cast<float>(p.h - 1));
    const int x0 = static_cast<int>(cx), y0 = static_cast<int>(cy);
    const int x1 = x0 + 1 < p.w ? x0 + 1 : x0, y1 = y0 + 1 < p.h ? y0 + 1 : y0;
    const float ax = cx - static_cast<float>(x0), ay = cy - static_cast<float>(y0);
    const float top = p.row(y0)[x0] + ax * (p.row(y0)[x1] - p.row(y0)[x0]);
    const float bot = p.row(y1)[x0] + ax * (p.row(y1)[x1] - p.row(y1)[x0]);
    return top + ay * (bot - top);
}

} // namespace

double warm_residual(Plane i0, Plane i1, Plane u1, Plane u2) {
    double sum = 0.0;
    for (int y = 0; y < i0.h; ++y) {
        const float* a = i0.row(y);
        const float* du = u1.row(y);
        const float* dv = u2.row(y);
        double row = 0.0;
        for (int x = 0; x < i0.w; ++x)
            row += std::fabs(static_cast<double>(sample(i1, static_cast<float>(x) + du[x], static_cast<float>(y) + dv[x]) - a[x]));
        sum += row;
    }
    return sum / (static_cast<double>(i0.w) * static_cast<double>(i0.h));
}

void stream_forget(of_context* c) {
    c->stream.frames = 0;
    c->stream.w = c->stream.h = 0;
    c->stream.warm_cpu = c->stream.warm_gpu = false;
    c->stream.warm_active = false;
    c->stream.kept_cpu = false;
    c->info.stream_frames = 0;
}

void warm_enter_cpu(const Frame& f, int l, Plane u1, Plane u2) {
    of_context* c = f.c;
    if (!c->stream.warm_active || !c->stream.warm_cpu || l != warm_level(f.levels)) return;
    const Plane w1 = f.work(kBufWarmU1, l), w2 = f.work(kBufWarmU2, l);
    const Plane i0 = f.level(kBufPyr0, l), i1 = f.level(kBufPyr1, l);
    if (warm_residual(i0, i1, w1, w2) < warm_residual(i0, i1, u1, u2)) {
        copy_plane(c, w1, u1);
        copy_plane(c, w2, u2);
        c->info.last_warm = 1;
    }
}

void warm_keep_cpu(const Frame& f, int l, Plane u1, Plane u2) {
    of_context* c = f.c;
    if (!c->stream.warm_active || l != warm_level(f.levels) || !c->buf[kBufWarmU1] ||
        c->plan.host[kBufWarmU1].bytes == 0)
        return;
    copy_plane(c, u1, f.work(kBufWarmU1, l));
    copy_plane(c, u2, f.work(kBufWarmU2, l));
    c->stream.kept_cpu = true;
}

of_status context_push(of_context* c, const of_image& frame, const of_flow* out) {
    const ErrorSink err = c->sink();
    const bool pair = out != nullptr;
    StreamState& s = c->stream;
    if (c->plan.backend == OF_BACKEND_CUDA) {
        if (!c->algo->cuda || !c->cuda)
            return err.fail(OF_ERR_INTERNAL, "of_push_frame: %s: no CUDA state", c->algo->name);
        cuda::StreamStep step;
        step.pair = pair;
        step.warm_ready = c->cfg.warm_start != 0 && s.warm_gpu;
        step.warm_taken = 0;
        step.warm_kept = false;
        uint64_t iterations = 0;
        int levels = 0, coarsest = 0;
        // The CPU levels of a split frame consult s (warm_enter_cpu / warm_keep_cpu).
        s.warm_active = pair && c->cfg.warm_start != 0;
        s.kept_cpu = false;
        c->info.last_warm = 0;
        const of_status r = c->algo->cuda->push(c->cuda, frame, out, &step, err, &iterations, &levels, &coarsest);
        s.warm_active = false;
        if (pair) {
            s.warm_cpu = s.kept_cpu;
            s.warm_gpu = step.warm_kept;
        }
        if (r != OF_OK) {
            // The frame went to the slot that held the kept frame's partner: the kept frame is
            // intact unless the device failed mid-copy, which cannot be told apart: start over.
            if (r == OF_ERR_DEVICE) stream_forget(c);
            return r;
        }
        if (pair) {
            c->info.last_width = frame.width;
            c->info.last_height = frame.height;
            c->info.last_levels = static_cast<uint32_t>(levels);
            c->info.last_coarsest = static_cast<uint32_t>(coarsest);
            c->info.last_iterations = iterations;
            if (c->cfg.robust == OF_ROBUST_PICK) c->info.last_pick = c->algo->cuda->last_pick(c->cuda);
            if (step.warm_taken != 0) c->info.last_warm = static_cast<uint32_t>(step.warm_taken);
        }
    } else {
        if (!image_pixels_valid(frame)) return fail_invalid_pixels(err, "frame");
        if (pair) {
            const of_image prev = kept_frame(c);
            // OF_ROBUST_PICK solves the pair once per candidate: no warm start (api/oflow.h).
            s.warm_active = c->cfg.warm_start != 0 && c->cfg.robust != OF_ROBUST_PICK;
            s.kept_cpu = false;
            c->info.last_warm = 0;
            const of_status r = flow_process_cpu(c, prev, frame, *out);
            s.warm_active = false;
            s.warm_cpu = s.kept_cpu;
            if (r != OF_OK) return r;
        }
        keep_frame(c, frame);
    }
    if (!pair) {
        const bool resized = s.frames > 0;
        const uint32_t ow = s.w, oh = s.h;
        stream_forget(c);
        s.frames = 1;
        s.w = frame.width;
        s.h = frame.height;
        c->info.stream_frames = 1;
        if (resized)
            return err.fail(OF_PENDING, "of_push_frame: frame %ux%u differs from the stream's %ux%u: a new stream starts "
                                        "with it (no flow)", frame.width, frame.height, ow, oh);
        return err.fail(OF_PENDING, "of_push_frame: first frame of a stream: kept, no flow until the next");
    }
    ++s.frames;
    c->info.stream_frames = s.frames;
    err.clear();
    return OF_OK;
}

} // namespace oflow
