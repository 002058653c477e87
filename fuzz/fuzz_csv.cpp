// libFuzzer target: the paper-data CSV reader (parse_csv, parse_csv_records, PaperData::parse).
// Every input must either parse or be refused with a dgs::Error (one line).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/report/report.h"
#include "common/util/error.h"
#include "fuzz/fuzz_one_line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)dgs::parse_csv(text, "fuzz.csv");
  } catch (const dgs::Error& e) {
    dgs::require_one_line(e.what());
  }
  try {
    (void)dgs::parse_csv_records(text, "fuzz.csv");
  } catch (const dgs::Error& e) {
    dgs::require_one_line(e.what());
  }
  try {
    const dgs::PaperData d = dgs::PaperData::parse(text, "fuzz.csv");
    (void)d;
  } catch (const dgs::Error& e) {
    dgs::require_one_line(e.what());
  }
  return 0;
}
