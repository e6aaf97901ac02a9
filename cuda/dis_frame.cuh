// Dense Inverse Search's level steps (dis_frame.cu), shared by the frame pipeline (kDisOps) and
// the test/bench hooks (dis_hooks_cuda.cu). Each enqueues on st.stream only.
#ifndef OFLOW_CUDA_DIS_FRAME_CUH
#define OFLOW_CUDA_DIS_FRAME_CUH

#include "cuda/cuda_state.cuh"
#include "cuda/dis_cuda.cuh"

namespace oflow {
namespace cuda {

/// A sparse patch plane (DevLayout::dis_sp_pitch elements a row) at arena offset off.
template <class T>
T* dis_sparse(const State& st, std::size_t off) {
    return reinterpret_cast<T*>(st.arena + off);
}

bool dis_f16(const State& st);
DisGrid dis_level_grid(const State& st, const LevelDims& d);
/// The level's planes: pyramid level `level` of both frames, the gradient and sum slots.
DisLevelArgs dis_level_args(const State& st, const LevelDims& d, int level);
/// Gradient and patch sums of the level.
of_status dis_prepare_level(State& st, const DisLevelArgs& a, const ErrorSink& err);
/// Rounds of the search: ceil(iterations / kDisRoundSteps), and the steps of round r.
int dis_rounds(const State& st);
int dis_round_steps(const State& st, int r);
/// The starts from the dense flow u (pitch a.pitch), then every round of the context's variant;
/// *result: the sparse plane holding the patches' flows (their mean d in DevLayout::dis_md).
of_status dis_search(State& st, const DisLevelArgs& a, const float2* u, const float2** result, const ErrorSink& err);
/// The refinement of the level's dense flow u in place (nothing when refine_iterations is 0).
of_status dis_refine(State& st, const LevelDims& d, int level, float2* u, const ErrorSink& err);

} // namespace cuda
} // namespace oflow

#endif
