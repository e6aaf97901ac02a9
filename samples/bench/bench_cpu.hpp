// oflow-bench --cpu (bench_cpu.cpp): the CPU path's kernel and frame timings, in every build.
#ifndef OFLOW_SAMPLES_BENCH_BENCH_CPU_HPP
#define OFLOW_SAMPLES_BENCH_BENCH_CPU_HPP

/// Runs the CPU benchmark with the command line's arguments (argv[0] excluded; "--cpu" among
/// them); returns the process exit status (2: bad arguments).
int run_cpu_bench(int argc, char** argv);

#endif
