// A fixed-order tree sum over one block, for the reductions whose result must not depend on
// the device or the launch (the warm start's and robust pick's residuals): the same pairs are
// added in the same order on every run.
#ifndef OFLOW_CUDA_BLOCK_SUM_CUH
#define OFLOW_CUDA_BLOCK_SUM_CUH

namespace oflow {
namespace cuda {

/// The sum of one double per thread of a block of kThreads threads (a power of two), into
/// every thread's return value; sh holds kThreads doubles of shared memory. Every thread of
/// the block must call it (it synchronises).
template <int kThreads>
__device__ double block_sum_fixed(double v, double* sh) {
    static_assert((kThreads & (kThreads - 1)) == 0, "a power of two");
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int n = kThreads / 2; n > 0; n /= 2) {
        if (static_cast<int>(threadIdx.x) < n) sh[threadIdx.x] += sh[threadIdx.x + n];
        __syncthreads();
    }
    const double r = sh[0];
    __syncthreads();
    return r;
}

} // namespace cuda
} // namespace oflow

#endif
