// The NEON kernels of the Dense Inverse Search family one by one (dis_kernels_init_neon puts them
// in the table; tests/neon/neon_dis_kernels.cpp calls them directly too). Same contracts as the
// DisKernels entries of the same name (core/dis_kernels.hpp); each file states its over-read
// contract and its arithmetic against the reference's.
#ifndef OFLOW_NEON_DIS_NEON_HPP
#define OFLOW_NEON_DIS_NEON_HPP

#include "core/dis_kernels.hpp"

namespace oflow {

// dis_patch_neon.cpp (F32): the search and the propagation, vectorised across the patch row.
void dis_search_neon(const DisSearchArgs& a, int j0, int j1);
void dis_propagate_neon(const DisPropagateArgs& a, int j0, int j1);

// dis_dense_neon.cpp (F32): the Sobel gradient and the densification, four pixels per vector.
void dis_gradient_neon(Plane src, Plane gx, Plane gy, int y0, int y1);
void dis_densify_neon(const DisDensifyArgs& a, int y0, int y1);

// dis_refine_neon.cpp (F32): the refinement's tensor, eight pixels (four of each colour) per step.
void dis_refine_tensor_neon(const DisRefineArgs& a, int y0, int y1);

} // namespace oflow

#endif
