// oflow-bench --lk (bench_lk.cpp): the Lucas-Kanade CUDA kernels and frames.
#ifndef OFLOW_SAMPLES_BENCH_BENCH_LK_HPP
#define OFLOW_SAMPLES_BENCH_BENCH_LK_HPP

/// Runs the LK benchmark with the command line's arguments (argv[0] excluded; "--lk" among them);
/// returns the process exit status (2: bad arguments, 1: a row failed).
int run_lk_bench(int argc, char** argv);

#endif
