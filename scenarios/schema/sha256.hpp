#pragma once
// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits. A sweep records the
// hash of its scenario file's bytes, so `merge` can tell the same scenario under another
// path from an edited one at the same path.
#include <string>
#include <string_view>

namespace locksim {

std::string sha256_hex(std::string_view bytes);

}  // namespace locksim
