// libFuzzer target: the hardware config loader (parse_hardware: kinds "gpu" and "dsa") from JSON
// text. Every input must either load or be refused with a dgs::Error (one line).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/hw/hardware_spec.h"
#include "common/util/error.h"
#include "fuzz/fuzz_one_line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const dgs::HardwareSpec spec = dgs::parse_hardware(text, "fuzz.json");
    (void)spec;
  } catch (const dgs::Error& e) {
    dgs::require_one_line(e.what());
  }
  return 0;
}
