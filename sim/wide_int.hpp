#pragma once
// 128-bit integers for intermediate products (clock drift, unbiased random ranges).
// __extension__ keeps -Wpedantic quiet about the GCC/Clang builtin type.
namespace locksim {
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;
}  // namespace locksim
