#pragma once
// The suite's one content hash: 64-bit FNV-1a, written as 16 hex digits. It names versions of a
// text (a hardware config's, a report file's), nothing cryptographic.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace dgs {

inline std::string fnv1a_hex(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace dgs
