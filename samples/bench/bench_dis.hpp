// oflow-bench --dis: Dense Inverse Search on CUDA, and its CPU rows on the CPU paths in every build (bench_dis.cpp).
#ifndef OFLOW_SAMPLES_BENCH_BENCH_DIS_HPP
#define OFLOW_SAMPLES_BENCH_BENCH_DIS_HPP

int run_dis_bench(int argc, char** argv);

#endif
