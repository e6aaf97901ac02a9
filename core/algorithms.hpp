// The registry's entries (core/algorithms.cpp lists them): one per algorithm file.
#ifndef OFLOW_CORE_ALGORITHMS_HPP
#define OFLOW_CORE_ALGORITHMS_HPP

#include "core/algorithm.hpp"

namespace oflow {

extern const Algorithm kTvl1; // core/tvl1_algorithm.cpp
extern const Algorithm kHs;   // core/hs_algorithm.cpp
extern const Algorithm kClg;  // core/hs_algorithm.cpp
extern const Algorithm kLk;   // core/lk_algorithm.cpp
extern const Algorithm kDis;  // core/dis_algorithm.cpp

} // namespace oflow

#endif
