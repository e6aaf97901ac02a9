// Reading caller-supplied enum fields before they are validated. A C caller may store any int
// in an enum field; loading such a value through the C++ enum type is undefined, so every
// check reads the raw int first (memcpy), and code past validation uses the enum.
#ifndef OFLOW_CORE_ENUM_RAW_HPP
#define OFLOW_CORE_ENUM_RAW_HPP

#include <cstdint>
#include <cstring>

namespace oflow {

template <class E>
inline int32_t raw_enum(const E& e) {
    static_assert(sizeof(E) == sizeof(int32_t), "public enums are 32-bit (MAX_ENUM members)");
    int32_t v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

} // namespace oflow

#endif
