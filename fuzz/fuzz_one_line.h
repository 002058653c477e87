#pragma once
// What every fuzz target asserts of a refusal: the message is one non-empty line.
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace dgs {

inline void require_one_line(std::string_view message) {
  if (message.empty() || message.find('\n') != std::string_view::npos) {
    std::fprintf(stderr, "finding: the error is not one non-empty line: [%.*s]\n",
                 static_cast<int>(message.size()), message.data());
    std::abort();
  }
}

}  // namespace dgs
