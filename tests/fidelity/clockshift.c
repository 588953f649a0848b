/* clockshift: an LD_PRELOAD library that moves a process's wall clock by an offset the
 * fidelity runner can change while the process runs: the clock_step of a case, for
 * redis-server, ZooKeeper's JVM and PostgreSQL. Debian's libfaketime was the first
 * choice and does not do: see tests/fidelity/README.md, "Clock steps".
 *
 * CLOCKSHIFT_FILE names a file whose first 8 bytes are the offset in nanoseconds (a
 * signed 64-bit integer, little-endian). The file is mapped once, shared, so a new value
 * written in place is seen by the very next clock reading. CLOCK_REALTIME(_COARSE),
 * gettimeofday and time are moved; CLOCK_MONOTONIC and every other clock are not, as
 * with a step of the host's clock. No malloc and no dlsym (they are what breaks
 * libfaketime under jemalloc): the real clocks are read with raw system calls.
 *
 *   cc -O2 -shared -fPIC -o clockshift.so clockshift.c
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const volatile int64_t* mapped;
static int state; /* 0 not tried, 1 mapped, 2 no file */

static int64_t offset_ns(void) {
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (s == 0) {
        const char* path = getenv("CLOCKSHIFT_FILE");
        const volatile int64_t* p = NULL;
        if (path) {
            int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                void* m = mmap(NULL, 8, PROT_READ, MAP_SHARED, fd, 0);
                syscall(SYS_close, fd);
                if (m != MAP_FAILED) p = (const volatile int64_t*)m;
            }
        }
        mapped = p;
        s = p ? 1 : 2;
        __atomic_store_n(&state, s, __ATOMIC_RELEASE);
    }
    return s == 1 ? *mapped : 0;
}

static void shift(struct timespec* ts) {
    int64_t ns = (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec + offset_ns();
    ts->tv_sec = ns / 1000000000LL;
    ts->tv_nsec = ns % 1000000000LL;
    if (ts->tv_nsec < 0) {
        ts->tv_nsec += 1000000000LL;
        ts->tv_sec -= 1;
    }
}

int clock_gettime(clockid_t clock, struct timespec* ts) {
    int rc = (int)syscall(SYS_clock_gettime, clock, ts);
    if (rc == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) shift(ts);
    return rc;
}

int gettimeofday(struct timeval* restrict tv, void* restrict tz) {
    struct timespec ts;
    int rc = (int)syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
    if (rc != 0) return rc;
    shift(&ts);
    {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    if (tz) {
        struct timezone* z = tz;
        z->tz_minuteswest = 0;
        z->tz_dsttime = 0;
    }
    return 0;
}

time_t time(time_t* out) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
