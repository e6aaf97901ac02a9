// Helpers shared by oflow-bench's parts (bench.cpp: TV-L1 and the copy rows; bench_hs.cpp: HS
// and CLG; bench_lk.cpp: Lucas-Kanade): medians, textured frames of any size, the device's copy
// bandwidth, an inner-loop timing through the hooks, U8 device frames for whole frames.
#ifndef OFLOW_SAMPLES_BENCH_BENCH_UTIL_HPP
#define OFLOW_SAMPLES_BENCH_BENCH_UTIL_HPP

#include "oflow.h"

#include <cstddef>
#include <cstdio>
#include <functional>
#include <vector>

#if OF_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace bench {

/// Median of v (0 when empty).
double median(std::vector<double> v);

/// Textured frames for any size (the synthetic cases of core/synth cost microseconds per pixel):
/// sinusoids and a slow chirp in 0..255, the second frame shifted by (1.3, -0.7) px.
void texture(int w, int h, std::vector<float>* i0, std::vector<float>* i1);

/// The command line of a CUDA part (--hs, --lk): the part's own flag, --quick, --smoke, --json
/// FILE; false (its usage on stderr) on anything else.
struct PartOptions {
    bool quick = false, smoke = false;
    const char* json = nullptr;
};
bool part_options(int argc, char** argv, const char* flag, PartOptions* o);

#if OF_BENCH_CUDA
/// False (and a line on stderr) when e is a CUDA error.
bool cuda_ok(int e, const char* what);
/// Device-to-device cudaMemcpy of `bytes`, read + write counted, GB/s: median of `reps` after two
/// warm-up copies; 0 when the buffers cannot be allocated.
double copy_bandwidth(std::size_t bytes, int reps);

/// Two device frames and a planar device flow of the caller's size (cudaMalloc'd by the caller).
struct DeviceFrames {
    void* f[2] = {nullptr, nullptr};
    float* u = nullptr;
    float* v = nullptr;
    ~DeviceFrames() {
        cudaFree(f[0]);
        cudaFree(f[1]);
        cudaFree(u);
        cudaFree(v);
    }
};

/// A planar flow description of w x h: elements of elem_bytes (4 for F32, 2 for the compact
/// formats, in float buffers) at rows w * elem_bytes apart, in `memory`, at u and v.
of_flow planar_flow(int w, int h, of_memory_kind memory, std::size_t elem_bytes, of_flow_format fmt, float* u, float* v);

/// Times of_process under config c (U8 or F32 frames as c.format says, c.max_width x c.max_height):
/// host frames f0 / f1 and host flow when host_io, else the device frames and flow of dev; two
/// warm-up frames, then `reps` runs of `frames` frames (CUDA events on `stream`, wall time for
/// host I/O, which waits inside of_process): the median ms per frame. *pageable: the staging
/// could not be page-locked. False (and a line on stderr) when create or a frame fails.
bool time_frames(const of_config& c, bool host_io, const std::vector<unsigned char>& f0,
                 const std::vector<unsigned char>& f1, const DeviceFrames& dev, cudaStream_t stream, int frames, int reps,
                 double* ms_per_frame, bool* pageable);

/// The textured U8 pair of texture() at w x h, in host vectors and device frames, a planar device
/// flow and a non-blocking stream, for time_frames with device I/O. ok: everything allocated.
struct U8Frames {
    DeviceFrames dev;
    std::vector<unsigned char> f0, f1;
    cudaStream_t stream = nullptr;
    bool ok = false;
    U8Frames(int w, int h);
    ~U8Frames();
    U8Frames(const U8Frames&) = delete;
    U8Frames& operator=(const U8Frames&) = delete;
};

/// A CUDA part's first line: the device and its copy bandwidth (256 MiB, median of 9; smoke: 8 MiB,
/// 3), which it returns; -1 after "no CUDA device" when there is none.
double part_start(const char* flag, bool smoke);

/// A part's rows file: {"copy_gbps": ..., "rows": [...]}, row(f, i) printing row i's object (no
/// separator, no newline); a line on stderr when it cannot be written.
void json_rows(const char* path, const char* flag, double copy_gbps, std::size_t n,
               const std::function<void(FILE*, std::size_t)>& row);

/// time_frames on f's device frames and flow: c's format set to U8 and its stream to f.stream.
bool time_device_frames(of_config c, const U8Frames& f, int frames, int reps, double* ms_per_frame);

/// One inner-loop timing through the hooks (cuda/cuda_bench.hpp): a context of config c (format
/// F32, one level, its schedule as given), bench_prepare on i0 / i1 (w x h), two warm-up runs,
/// then `runs` runs of `iters` iterations: the median, per iteration per pixel, with the model's
/// bytes, FLOPs and redundancy and what they make of the time. ok false (a line on stderr naming
/// `who`) when create or a hook fails.
struct Inner {
    bool ok = false;
    int bw = 0, bh = 0, depth = 0;
    double ns = 0, bytes = 0, flops = 0, redundancy = 0, gbps = 0, share = 0, gflops = 0;
};
Inner time_inner(const of_config& c, const std::vector<float>& i0, const std::vector<float>& i1, int w, int h, int iters,
                 int runs, double copy_gbps, const char* who);
#endif

} // namespace bench

#endif
