// oflow-bench --dis: Dense Inverse Search on CUDA (bench_dis.cpp).
#ifndef OFLOW_SAMPLES_BENCH_BENCH_DIS_HPP
#define OFLOW_SAMPLES_BENCH_BENCH_DIS_HPP

int run_dis_bench(int argc, char** argv);

#endif
