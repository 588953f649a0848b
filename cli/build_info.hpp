#pragma once
// What built this binary: the project's version, and the git commit its sources came from
// (12 hex digits; "-dirty.<8 hex digits>" when the sources differed from it, the digits
// naming the change; "unknown" outside git).
// Written at build time by scripts/build-info.cmake.

namespace locksim {

extern const char* const locksim_version;
extern const char* const build_commit;

}  // namespace locksim
