#pragma once
// A stream connection as Linux's TCP keeps one, with its defaults. A segment the network
// loses, or a partition cuts, is not lost to the application: the sender retransmits it,
// first after the minimum retransmission timeout and then after twice the last wait, up to
// the maximum, until an attempt gets through; what was sent behind it waits behind it, and
// all of it arrives in order. Past the retransmissions net.ipv4.tcp_retries2 allows, the
// connection is reset: what it still held is lost, and both ends' sockets report an error.
//
//
// A sender that closes its socket while the stream still holds data (a client giving up at
// its own deadline) orphans it: the kernel goes on retransmitting what it held, in order,
// but only up to net.ipv4.tcp_orphan_retries times (8 when the sysctl is 0, its default;
// tcp_orphan_retries() in net/ipv4/tcp_timer.c), and the sender's next connection waits
// behind none of it. A crashed process's sockets are closed so by its kernel; a crashed
// machine's kernel sends nothing more, and what its streams held is lost.
//
// What this leaves out: the round-trip time a real stack measures (its timeout starts at
// the minimum here), acknowledgements (an attempt gets through when its direction is open;
// a cut of the reverse direction alone never resets a connection), keepalive probes (their
// default idle time, two hours, is past most horizons) and a crashed machine's side once it
// boots again (its kernel would answer a retransmission with a reset). A crashed process's
// side is modelled (Network::send): its kernel resets the connections of the requests that
// wait on it, and refuses those that reach it while it is down.
#include "sim/time.hpp"

namespace locksim::tcp_stream {

inline constexpr Duration first_wait = milliseconds(200);  // TCP_RTO_MIN
inline constexpr Duration longest_wait = seconds(120);     // TCP_RTO_MAX
inline constexpr int retries = 15;                         // net.ipv4.tcp_retries2
inline constexpr int orphan_retries = 8;                   // net.ipv4.tcp_orphan_retries = 0

// The wait before retransmission `attempt` (from 1), counted from the one before it (or
// from the send).
constexpr Duration wait_before(int attempt) {
    Duration wait = first_wait;
    for (int k = 1; k < attempt && wait < longest_wait; ++k) wait = wait * 2 < longest_wait ? wait * 2 : longest_wait;
    return wait;
}

// From the first send to the reset: every wait up to the last retransmission's, and that
// one's own timeout. 924.6 s with the defaults, as Linux's tcp(7) says of tcp_retries2 = 15;
// 102.2 s for an orphaned stream.
constexpr Duration gives_up_after(int most_retries = retries) {
    Duration total{};
    for (int attempt = 1; attempt <= most_retries + 1; ++attempt) total += wait_before(attempt);
    return total;
}
static_assert(gives_up_after() == milliseconds(924'600));
static_assert(gives_up_after(orphan_retries) == milliseconds(102'200));

}  // namespace locksim::tcp_stream
