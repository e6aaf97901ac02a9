// oflow-bench --stream (bench_stream.cpp): camera streams at 1080p on the CUDA path.
#ifndef OFLOW_SAMPLES_BENCH_BENCH_STREAM_HPP
#define OFLOW_SAMPLES_BENCH_BENCH_STREAM_HPP

/// Runs the stream benchmark with the command line's arguments (argv[0] excluded; "--stream"
/// among them); returns the process exit status (2: bad arguments, 1: a row failed).
int run_stream_bench(int argc, char** argv);

#endif
