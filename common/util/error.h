#pragma once
// One error type for the whole suite. Its message is a single line that names what is wrong,
// where (file, node, field, flag) and what was expected. Executables print it as
// "error: <message>" and exit non-zero.
#include <stdexcept>
#include <string>

namespace dgs {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// Bad input supplied by the user (flags, files): executables exit with code 2.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(what) {}
};

}  // namespace dgs
