// Where oflow-tune's numbers come from: the machine (CUDA bench hooks and of_process, timed),
// or, with --dry-run, a deterministic model of a GPU and a CPU, so the rest of the tool (ranking,
// rules, the XML) runs end to end in CI without a GPU and in a fraction of a second.
#ifndef OFLOW_SAMPLES_TUNE_TUNE_MEASURE_HPP
#define OFLOW_SAMPLES_TUNE_TUNE_MEASURE_HPP

#include "tune_core.hpp"

#include <memory>
#include <string>
#include <vector>

namespace oflow {
namespace tune {

struct GpuInfo {
    bool present;       // a CUDA device this build can time
    std::string absent; // why not, when !present
    std::string name;   // "NVIDIA H200"
    int cc_major, cc_minor, sms;
    int regs_per_block, shared_per_block; // per block without opt-in (cudaDeviceProp)
};

struct CpuInfo {
    std::string name;    // "AMD EPYC 9654 96-Core Processor", "NVIDIA Jetson AGX Orin ..."
    of_backend backend;  // NEON where the build has it (aarch64, x86-64 through SIMDe), else the reference
    unsigned threads;    // worker threads (every core, at most 64)
    bool fp16;           // FP16 vector arithmetic (NEON F16 runs)
};

/// The crossover's schedule (Schedule: tune_core.hpp).
const Schedule kCrossoverSchedule = {3, 1, 10};

/// Timing runs of one measurement.
struct Runs {
    bool ok = false;
    std::vector<double> v;     // one value per run (ns/it/px, or ms per frame)
    std::string why;           // when !ok
    of_precision arith = OF_PRECISION_F32; // what the path computed in (of_get_info)
    std::string variant;       // of_info.variant ("ref", "neon_f16", "cuda-multi-iter-f32", ...)
    int rows = 0;              // gpu_inner, MULTI_ITER: the rows per thread the context ran (0: the shape's)
};

class Measurer {
  public:
    virtual ~Measurer() = default;
    virtual const GpuInfo& gpu() const = 0;
    virtual const CpuInfo& cpu() const = 0;
    /// true: every number is modelled, nothing is measured (--dry-run).
    virtual bool modelled() const = 0;
    // Each timing runs algorithm a (OF_ALGO_TVL1, OF_ALGO_HS or OF_ALGO_CLG; HS and CLG with the
    // Jacobi solver, whose shapes the table's rows are) with of_config_init's defaults otherwise.
    /// GPU inner loop at n x n: one level, `iterations` iterations per run, epsilon 0, `warmup`
    /// untimed runs then `runs` runs timed with CUDA events: ns/iteration/pixel per run. Fails
    /// when the context runs another block or depth than s; MULTI_ITER rows are what it ran
    /// (Runs::rows: HS / CLG take them from the board table's row, cuda/cuda_layout.hpp).
    virtual Runs gpu_inner(of_algorithm a, of_precision p, const Shape& s, int n, int iterations, int warmup,
                           int runs) = 0;
    /// CPU inner loop at n x n: of_process at one level, one warp, it1 and then it2 iterations,
    /// `runs` frames each after one warm-up; per run k: (t2[k] - median(t1)) / ((it2 - it1) n^2).
    virtual Runs cpu_inner(of_algorithm a, of_precision p, int n, int it1, int it2, int runs) = 0;
    /// End to end at side x side: the schedule's levels (x0.5), warps and iterations, epsilon 0,
    /// U8 host frames and host flow; on the GPU with shape s (gpu true) or on the CPU path. ms
    /// per frame per run (a run is a batch of frames of at least a few ms).
    virtual Runs e2e(of_algorithm a, bool gpu, of_precision p, const Shape& s, int side, const Schedule& sch,
                     int runs) = 0;
};

/// The machine. GPU measurements need a build with CUDA (OF_TUNE_CUDA) and a device.
std::unique_ptr<Measurer> machine_measurer();
/// --dry-run: a deterministic model (an H200-like GPU; a CPU at 12 ns/it/px for TV-L1, 8.5 for
/// HS and CLG); measures nothing.
std::unique_ptr<Measurer> model_measurer();

} // namespace tune
} // namespace oflow

#endif
