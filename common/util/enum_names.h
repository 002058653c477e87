#pragma once
// Names of enumerators from one table per enum: {{E::A, "a"}, {E::B, "b"}, ...}.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "common/util/error.h"

namespace dgs {

template <class E>
using EnumNames = std::pair<E, std::string_view>;

// The name of `v` in `names`, or "?" when the table lacks it.
template <class E, size_t N>
constexpr std::string_view enum_name(const EnumNames<E> (&names)[N], E v) {
  for (const auto& [e, n] : names)
    if (e == v) return n;
  return "?";
}

// The enumerator named `s`; throws dgs::Error "unknown <what> '<s>'; expected one of a, b, ...".
template <class E, size_t N>
E enum_from_name(const EnumNames<E> (&names)[N], std::string_view s, std::string_view what) {
  std::string all;
  for (const auto& [e, n] : names) {
    if (n == s) return e;
    all += (all.empty() ? "" : ", ") + std::string(n);
  }
  throw Error("unknown " + std::string(what) + " '" + std::string(s) + "'; expected one of " + all);
}

}  // namespace dgs
