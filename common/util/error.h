#pragma once
// One error type for the whole suite. Its message is a single line that names what is wrong,
// where (file, node, field, flag) and what was expected. Executables print it as
// "error: <message>" and exit non-zero.
#include <stdexcept>
#include <string>

namespace dgs {

// `text` with every control character written as an escape ("\n", "\t", "\x1b"), so that a
// message quoting user input (a name from a file, a JSON string) stays on one line.
inline std::string one_line_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

class Error : public std::runtime_error {
 public:
  // The message is kept on one line whatever it quotes (one_line_text).
  explicit Error(const std::string& what) : std::runtime_error(one_line_text(what)) {}
};

// Bad input supplied by the user (flags, files): executables exit with code 2.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(what) {}
};

}  // namespace dgs
