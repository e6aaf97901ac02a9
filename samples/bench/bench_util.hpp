// Helpers shared by oflow-bench's parts (bench.cpp: TV-L1 and the copy rows; bench_hs.cpp: HS
// and CLG): medians, textured frames of any size, the device's copy bandwidth.
#ifndef OFLOW_SAMPLES_BENCH_BENCH_UTIL_HPP
#define OFLOW_SAMPLES_BENCH_BENCH_UTIL_HPP

#include "oflow.h"

#include <cstddef>
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

/// Times of_process under config c (U8 or F32 frames as c.format says, c.max_width x c.max_height):
/// host frames f0 / f1 and host flow when host_io, else the device frames and flow of dev; two
/// warm-up frames, then `reps` runs of `frames` frames (CUDA events on `stream`, wall time for
/// host I/O, which waits inside of_process): the median ms per frame. *pageable: the staging
/// could not be page-locked. False (and a line on stderr) when create or a frame fails.
bool time_frames(const of_config& c, bool host_io, const std::vector<unsigned char>& f0,
                 const std::vector<unsigned char>& f1, const DeviceFrames& dev, cudaStream_t stream, int frames, int reps,
                 double* ms_per_frame, bool* pageable);
#endif

} // namespace bench

#endif
