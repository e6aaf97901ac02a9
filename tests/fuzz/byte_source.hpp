// ByteSource: turns a fuzzer's input bytes into typed values, front to back. Written for the
// harnesses in tests/fuzz so that they build with any C++ compiler (the replay tests of the
// ordinary suite use gcc), not only with clang's libFuzzer headers.
//
// Contract: every call consumes bytes from the front of the input and is deterministic; once the
// input is exhausted every call returns its lowest value (0, lo, false, the first choice, an
// empty vector), so a short input is a valid input. Values are read little-endian.
#ifndef OFLOW_TESTS_FUZZ_BYTE_SOURCE_HPP
#define OFLOW_TESTS_FUZZ_BYTE_SOURCE_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace fuzz {

class ByteSource {
public:
    ByteSource(const uint8_t* data, size_t size) : p_(data), n_(size) {}

    size_t remaining() const { return n_; }

    /// sizeof(T) bytes (fewer when the input runs out; missing bytes read as 0).
    template <class T>
    T raw() {
        static_assert(std::is_integral<T>::value, "integral types only");
        using U = typename std::make_unsigned<T>::type;
        U v = 0;
        for (size_t i = 0; i < sizeof(T) && n_ > 0; ++i) v = static_cast<U>(v | static_cast<U>(static_cast<U>(take()) << (8 * i)));
        T out;
        std::memcpy(&out, &v, sizeof out);
        return out;
    }

    /// A value in [lo, hi] (lo <= hi): only as many bytes as the range needs.
    template <class T>
    T in_range(T lo, T hi) {
        static_assert(std::is_integral<T>::value, "integral types only");
        const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo); // wraps correctly for signed T
        uint64_t r = 0;
        for (uint64_t s = span; s > 0 && n_ > 0; s >>= 8) r = (r << 8) | take();
        if (span != UINT64_MAX) r %= span + 1;
        return static_cast<T>(static_cast<uint64_t>(lo) + r);
    }

    bool boolean() { return (in_range<uint8_t>(0, 255) & 1u) != 0; }

    /// A float in [lo, hi] from 32 bits of input (lo, hi finite, lo <= hi).
    float float_in(float lo, float hi) {
        const uint32_t r = raw<uint32_t>();
        const double t = static_cast<double>(r) / 4294967295.0;
        return static_cast<float>(static_cast<double>(lo) + t * (static_cast<double>(hi) - static_cast<double>(lo)));
    }

    /// A float with any bit pattern (NaN, Inf, denormals, negative zero included).
    float any_bits_float() {
        const uint32_t bits = raw<uint32_t>();
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }

    template <class T>
    T pick(std::initializer_list<T> choices) {
        const size_t i = in_range<size_t>(0, choices.size() - 1);
        return *(choices.begin() + i);
    }

    /// Up to n bytes (fewer when the input runs out).
    std::vector<uint8_t> bytes(size_t n) {
        const size_t k = n < n_ ? n : n_;
        std::vector<uint8_t> v(p_, p_ + k);
        p_ += k;
        n_ -= k;
        return v;
    }

private:
    uint8_t take() {
        --n_;
        return *p_++;
    }

    const uint8_t* p_;
    size_t n_;
};

} // namespace fuzz

#endif
