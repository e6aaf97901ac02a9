// oflow-bench --hs (bench_hs.cpp): the HS / CLG CUDA kernels and frames.
#ifndef OFLOW_SAMPLES_BENCH_BENCH_HS_HPP
#define OFLOW_SAMPLES_BENCH_BENCH_HS_HPP

/// Runs the HS / CLG benchmark with the command line's arguments (argv[0] excluded; "--hs" among
/// them); returns the process exit status (2: bad arguments, 1: a row failed).
int run_hs_bench(int argc, char** argv);

#endif
