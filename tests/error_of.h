#pragma once
// The message of the dgs::Error that `f` throws, or "<no error>": for tests of one-line errors.
#include <functional>
#include <string>

#include "common/util/error.h"

namespace dgs {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace dgs
