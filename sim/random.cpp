#include "sim/random.hpp"

#include <cassert>
#include <cmath>

#include "sim/wide_int.hpp"

namespace locksim {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// FNV-1a over the parts as if they were one text.
std::uint64_t fnv1a(std::initializer_list<std::string_view> parts) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (std::string_view text : parts)
        for (unsigned char c : text) {
            hash ^= c;
            hash *= 0x100000001b3ULL;
        }
    return hash;
}

constexpr std::uint64_t rotl(std::uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

}  // namespace

RandomStream::RandomStream(std::uint64_t seed, std::string_view name) : RandomStream(seed, {name}) {}

RandomStream::RandomStream(std::uint64_t seed, std::initializer_list<std::string_view> name_parts) {
    std::uint64_t mix = seed ^ fnv1a(name_parts);
    mix = splitmix64(mix) ^ seed;  // a second round so seeds that differ in one bit diverge fully
    for (auto& word : state_) word = splitmix64(mix);
}

std::uint64_t RandomStream::next_u64() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
}

std::uint64_t RandomStream::below(std::uint64_t bound) {
    assert(bound > 0);
    uint128 product = static_cast<uint128>(next_u64()) * bound;
    auto low = static_cast<std::uint64_t>(product);
    if (low < bound) {
        const std::uint64_t threshold = -bound % bound;
        while (low < threshold) {
            product = static_cast<uint128>(next_u64()) * bound;
            low = static_cast<std::uint64_t>(product);
        }
    }
    return static_cast<std::uint64_t>(product >> 64);
}

Duration RandomStream::uniform(Duration low, Duration high) {
    assert(low <= high);
    const auto span = static_cast<std::uint64_t>(high.ns - low.ns);
    if (span == UINT64_MAX) return Duration{static_cast<std::int64_t>(next_u64())};
    return low + Duration{static_cast<std::int64_t>(below(span + 1))};
}

Duration RandomStream::exponential(Duration mean) {
    assert(mean.ns >= 0);
    // u in (0, 1], so the logarithm is finite.
    const double u = static_cast<double>((next_u64() >> 11) + 1) * 0x1.0p-53;
    return Duration{static_cast<std::int64_t>(-portable_log(u) * static_cast<double>(mean.ns))};
}

namespace {

double unit_open_closed(RandomStream& random) {  // (0, 1]
    return static_cast<double>((random.next_u64() >> 11) + 1) * 0x1.0p-53;
}

Duration capped(double ns, Duration cap) {
    if (!(ns < static_cast<double>(cap.ns))) return cap;  // also catches NaN and infinity
    return Duration{static_cast<std::int64_t>(ns)};
}

}  // namespace

Duration RandomStream::pareto(Duration minimum, double alpha, Duration cap) {
    assert(alpha > 0);
    // Inverse transform: minimum * u^(-1/alpha) = minimum * e^(-ln(u)/alpha).
    const double u = unit_open_closed(*this);
    return capped(static_cast<double>(minimum.ns) * portable_exp(-portable_log(u) / alpha), cap);
}

Duration RandomStream::lognormal(Duration median, double sigma, Duration cap) {
    assert(sigma >= 0);
    double normal = -6;
    for (int i = 0; i < 12; ++i) normal += static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
    return capped(static_cast<double>(median.ns) * portable_exp(sigma * normal), cap);
}

bool RandomStream::chance(std::uint64_t numerator, std::uint64_t denominator) {
    assert(denominator > 0 && numerator <= denominator);
    return below(denominator) < numerator;
}

std::string RandomStream::hex(int digits) {
    static constexpr char alphabet[] = "0123456789abcdef";
    std::string text;
    text.reserve(static_cast<std::size_t>(digits));
    std::uint64_t bits = 0;
    for (int i = 0; i < digits; ++i) {
        if (i % 16 == 0) bits = next_u64();
        text += alphabet[bits & 0xf];
        bits >>= 4;
    }
    return text;
}

double portable_log(double x) {
    assert(x > 0);
    // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); ln x = e ln 2 + ln m, and
    // ln m = 2 atanh(s) with s = (m-1)/(m+1), |s| < 0.172, summed to s^25 (error < 1e-19).
    int exponent = 0;
    double m = std::frexp(x, &exponent);  // exact: m in [0.5, 1)
    if (m < 0x1.6a09e667f3bcdp-1) {
        m *= 2;
        exponent -= 1;
    }
    const double s = (m - 1) / (m + 1);
    const double s2 = s * s;
    double term = s;
    double sum = 0;
    for (int k = 1; k <= 25; k += 2) {
        sum += term / k;
        term *= s2;
    }
    constexpr double ln2 = 0x1.62e42fefa39efp-1;
    return exponent * ln2 + 2 * sum;
}

double portable_exp(double x) {
    if (x > 700) return std::ldexp(1.0, 1010);  // beyond any duration we cap at
    if (x < -700) return 0;
    // x = k ln2 + r with |r| <= ln2/2; e^x = 2^k e^r, and e^r by its Taylor series to r^20
    // (error below 1e-19 for |r| < 0.35). ln2 is split (Cody and Waite) so that k * ln2_hi
    // is exact and r keeps its accuracy for large |x|.
    constexpr double ln2 = 0x1.62e42fefa39efp-1;
    constexpr double ln2_hi = 0x1.62e42fee00000p-1;
    constexpr double ln2_lo = 0x1.a39ef35793c76p-33;
    const double k = std::nearbyint(x / ln2);
    const double r = (x - k * ln2_hi) - k * ln2_lo;
    double term = 1;
    double sum = 1;
    for (int n = 1; n <= 20; ++n) {
        term *= r / n;
        sum += term;
    }
    return std::ldexp(sum, static_cast<int>(k));
}

}  // namespace locksim
