#pragma once
// A number computed by the run, as text for a note (shortest of 6 significant digits).
#include <sstream>
#include <string>

namespace dgs::atomic {

inline std::string note_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace dgs::atomic
