// The classic hold model as locksim processes: P coroutines on one node, each sleeping
// an exponential delay of mean 1 s and sleeping again, until E sleeps have ended. Delays
// are drawn exactly as the baselines of scripts/compare-engines.sh draw them (xoshiro256** seeded through
// splitmix64, seed 12345, -ln(u) with libm's log, int64 ns), and ties fire in FIFO order
// as there, so this prints the same final_t_ns and chk as the baselines for the same P
// and E: proof that it is the same work.
//
// usage: hold_model P E [seed]
// (libm's log is fine here: this program compares engines, it is not a simulation whose
// output must be identical across machines.)
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/engine.hpp"
#include "sim/host.hpp"

namespace {

struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
};

// The baselines' generator, draw for draw (locksim's own RandomStream names its streams,
// so its draws differ by design).
struct Xoshiro256StarStar {
    std::uint64_t s[4];
    explicit Xoshiro256StarStar(std::uint64_t seed) {
        SplitMix64 mix{seed};
        for (auto& word : s) word = mix.next();
    }
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t next() {
        const std::uint64_t result = rotl(s[1] * 5, 7) * 9;
        const std::uint64_t t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
    }
    locksim::Duration exponential_delay() {
        const double u = static_cast<double>((next() >> 11) + 1) * 0x1.0p-53;
        return locksim::Duration{static_cast<std::int64_t>(-std::log(u) * 1e9)};
    }
};

struct Hold {
    locksim::Engine& engine;
    Xoshiro256StarStar random;
    std::uint64_t limit;
    std::uint64_t fired = 0;
    std::uint64_t checksum = 0xcbf29ce484222325ULL;
};

locksim::Task<void> process(locksim::Host host, Hold& hold, std::uint64_t id) {
    for (;;) {
        co_await host.sleep(hold.random.exponential_delay());
        hold.checksum = (hold.checksum ^ id) * 0x100000001b3ULL;
        if (++hold.fired == hold.limit) {
            hold.engine.stop();
            co_return;
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s P E [seed]\n", argv[0]);
        return 2;
    }
    const std::uint64_t processes = std::strtoull(argv[1], nullptr, 10);
    const std::uint64_t events = std::strtoull(argv[2], nullptr, 10);
    const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 12345;
    if (processes == 0 || events == 0) {
        std::fprintf(stderr, "P and E must be above 0\n");
        return 2;
    }

    const auto setup_start = std::chrono::steady_clock::now();
    locksim::Engine engine(seed);
    const locksim::NodeId cpu = engine.add_node("cpu");
    Hold hold{engine, Xoshiro256StarStar(seed), events};
    for (std::uint64_t id = 0; id < processes; ++id) engine.spawn(cpu, process(locksim::Host(engine, cpu), hold, id));
    // Setup, as the baselines count it: every process has drawn its first delay.
    engine.run(locksim::Instant{0});
    const auto loop_start = std::chrono::steady_clock::now();
    const auto summary = engine.run(locksim::never, UINT64_MAX);
    const auto loop_end = std::chrono::steady_clock::now();

    const double setup = std::chrono::duration<double>(loop_start - setup_start).count();
    const double seconds = std::chrono::duration<double>(loop_end - loop_start).count();
    std::printf("impl=locksim P=%llu E=%llu setup_s=%.4f run_s=%.4f ev_per_s=%.0f final_t_ns=%lld chk=%016llx\n",
                static_cast<unsigned long long>(processes), static_cast<unsigned long long>(events), setup, seconds,
                static_cast<double>(events) / seconds, static_cast<long long>(summary.ended_at.ns),
                static_cast<unsigned long long>(hold.checksum));
    return hold.fired == events ? 0 : 1;
}
