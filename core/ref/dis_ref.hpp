// Reference kernels of the Dense Inverse Search family (contracts: core/dis_kernels.hpp).
#ifndef OFLOW_CORE_REF_DIS_REF_HPP
#define OFLOW_CORE_REF_DIS_REF_HPP

#include "core/dis_kernels.hpp"

namespace oflow {

void dis_gradient_ref(Plane src, Plane gx, Plane gy, int y0, int y1);
void dis_box_h_ref(const DisBoxArgs& a, int y0, int y1);
void dis_box_v_ref(const DisBoxVArgs& a, int j0, int j1);
void dis_init_ref(const DisInitArgs& a, int j0, int j1);
void dis_search_ref(const DisSearchArgs& a, int j0, int j1);
void dis_propagate_ref(const DisPropagateArgs& a, int j0, int j1);
void dis_densify_ref(const DisDensifyArgs& a, int y0, int y1);
void dis_refine_tensor_ref(const DisRefineArgs& a, int y0, int y1);

} // namespace oflow

#endif
