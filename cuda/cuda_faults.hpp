// The CUDA path's fault injection, for tests (tests/gpu/gpu_faults.cpp): plain C++, so a test
// compiled by the host compiler can arm it. How it works: cuda/cuda_check.cuh.
#ifndef OFLOW_CUDA_CUDA_FAULTS_HPP
#define OFLOW_CUDA_CUDA_FAULTS_HPP

namespace oflow {
namespace cuda {

/// Arms the fault injection: the n-th OF_CUDA_TRY check from now (n >= 1), in any context of the
/// process, fails once with cudaErrorInvalidDevice instead of running its call; 0 disarms.
void arm_fault(int n);
/// Checks still to pass before the armed failure (0 when it fired or nothing is armed).
int fault_pending();

} // namespace cuda
} // namespace oflow

#endif
