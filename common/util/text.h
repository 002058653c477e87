#pragma once
// Small text helpers shared by the command line and the config readers.
#include <cctype>
#include <string>

namespace dgs {

// `s` with ASCII letters in lower case (names of configs, experiments and file extensions).
inline std::string ascii_lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace dgs
