// A diagnostic hook into the CPU drivers' coarse-to-fine loop: after each level is solved
// (and, for TV-L1, after its flow is bounded, before it is upsampled) the driver calls the
// installed function with the level's flow. Used by the tests and tools that trace what each
// level does (tests/level_trace.cpp); a library nobody hooks never calls anything. Not part of
// the public ABI; process-wide, so install it before creating contexts and from one thread.
#ifndef OFLOW_CORE_LEVEL_TRACE_HPP
#define OFLOW_CORE_LEVEL_TRACE_HPP

#include "core/plane.hpp"

namespace oflow {
namespace level_trace {

/// What a level left: its index (0 = finest), the flow planes at its own scale, and the
/// inner iterations it ran (all warps).
struct Level {
    int level, levels;
    Plane u1, u2;
    unsigned long long iterations;
    float bound;      // the sanity bound applied to its flow, in its own pixels (0 = none)
    int clamped;      // pixels whose flow the bound clamped
};

using Fn = void (*)(const Level& l, void* user);

/// Installs f (nullptr removes it).
void install(Fn f, void* user);

/// Called by the drivers.
void emit(const Level& l);

} // namespace level_trace
} // namespace oflow

#endif
