// The algorithm registry: the one list of the algorithms this library runs. Adding an
// algorithm adds its entry here (and its declaration in core/algorithms.hpp); nothing in api/.
#include "core/algorithms.hpp"

namespace oflow {
namespace {

const Algorithm* const kRegistry[] = {&kTvl1, &kHs, &kClg, &kLk, &kDis};

} // namespace

const Algorithm* find_algorithm(int32_t id) {
    for (const Algorithm* a : kRegistry)
        if (static_cast<int32_t>(a->id) == id) return a;
    return nullptr;
}

int algorithm_count() { return static_cast<int>(sizeof kRegistry / sizeof kRegistry[0]); }

const Algorithm* algorithm_at(int i) { return i >= 0 && i < algorithm_count() ? kRegistry[i] : nullptr; }

bool algorithm_known(int32_t id) {
    return id == OF_ALGO_TVL1 || id == OF_ALGO_HS || id == OF_ALGO_CLG || id == OF_ALGO_LK ||
           id == OF_ALGO_DIS;
}

} // namespace oflow
