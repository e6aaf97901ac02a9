// CUDA error -> of_status. Every runtime call of the backend goes through OF_CUDA_TRY, which
// turns a failure into OF_ERR_DEVICE with the call, the error's name and cudaGetErrorString's
// text in the context's message. Never aborts, never prints.
//
// Fault injection (tests/gpu/gpu_faults.cpp): arm_fault(n) makes the n-th OF_CUDA_TRY check from
// then on fail, once: instead of the checked call, a real runtime call that fails without side
// effects runs (a query of device -1: cudaErrorInvalidDevice), as a call refused by the runtime
// would (nothing created, nothing enqueued). So every error path of create and process can be
// walked, one check at a time. Disarmed (the only state outside that test) it costs one relaxed
// atomic load per check.
#ifndef OFLOW_CUDA_CUDA_CHECK_CUH
#define OFLOW_CUDA_CUDA_CHECK_CUH

#include "core/status.hpp"

#include "cuda/cuda_faults.hpp"

#include <cuda_runtime_api.h>

#include <atomic>

namespace oflow {
namespace cuda {

/// Checks left before the injected failure; 0 = disarmed. Defined in cuda_backend.cu.
extern std::atomic<int> g_fault_countdown;

/// The injected failure (called when an armed countdown reaches this check): the error of a real
/// runtime call that fails without side effects.
cudaError_t injected_fault();

/// Whether this check is the armed one (counts the countdown down; never below 0).
inline bool fault_due() {
    int c = g_fault_countdown.load(std::memory_order_relaxed);
    while (c > 0)
        if (g_fault_countdown.compare_exchange_weak(c, c - 1, std::memory_order_relaxed)) return c == 1;
    return false;
}

/// OF_ERR_DEVICE with "what: cudaErrorX: text". Clears the runtime's last (non-sticky) error so
/// that the next call on the context starts clean.
inline of_status device_fail(const ErrorSink& err, const char* what, cudaError_t e) {
    (void)cudaGetLastError();
    return err.fail(OF_ERR_DEVICE, "cuda: %s: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

} // namespace cuda
} // namespace oflow

/// Evaluates a cudaError_t expression; on failure returns OF_ERR_DEVICE from the enclosing
/// function (which must have an ErrorSink named `err`).
#define OF_CUDA_TRY(expr, what)                                                          \
    do {                                                                                 \
        const cudaError_t of_cuda_e_ = ::oflow::cuda::fault_due() ? ::oflow::cuda::injected_fault() : (expr); \
        if (of_cuda_e_ != cudaSuccess) return ::oflow::cuda::device_fail(err, what, of_cuda_e_); \
    } while (0)

/// After a kernel launch: a bad configuration or a sticky error from earlier work.
#define OF_CUDA_LAUNCHED(what) OF_CUDA_TRY(cudaGetLastError(), what)

#endif
