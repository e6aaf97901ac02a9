#include "core/level_trace.hpp"

namespace oflow {
namespace level_trace {
namespace {
Fn g_fn = nullptr;
void* g_user = nullptr;
} // namespace

void install(Fn f, void* user) {
    g_fn = f;
    g_user = user;
}

void emit(const Level& l) {
    if (g_fn) g_fn(l, g_user);
}

} // namespace level_trace
} // namespace oflow
