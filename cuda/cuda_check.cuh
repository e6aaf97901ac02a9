// CUDA error -> of_status. Every runtime call of the backend goes through OF_CUDA_TRY, which
// turns a failure into OF_ERR_DEVICE with the call, the error's name and cudaGetErrorString's
// text in the context's message. Never aborts, never prints.
#ifndef OFLOW_CUDA_CUDA_CHECK_CUH
#define OFLOW_CUDA_CUDA_CHECK_CUH

#include "core/status.hpp"

#include <cuda_runtime_api.h>

namespace oflow {
namespace cuda {

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
        const cudaError_t of_cuda_e_ = (expr);                                           \
        if (of_cuda_e_ != cudaSuccess) return ::oflow::cuda::device_fail(err, what, of_cuda_e_); \
    } while (0)

/// After a kernel launch: a bad configuration or a sticky error from earlier work.
#define OF_CUDA_LAUNCHED(what) OF_CUDA_TRY(cudaGetLastError(), what)

#endif
