#pragma once
// The field reader of hardware configs (hw_configs/*.json), shared by every config kind.
//
// A field is an object {"value": ..., "unit": "...", "source": "..."}: the value, its unit (absent
// for text and counts) and where it comes from (a datasheet, a paper, or "assumption: <reason>";
// required, non-empty). A FieldSpec states what a field holds (its quantity), which units it
// accepts and the range of its value; read_field checks all three and converts the value to the
// canonical unit of its quantity, so that code reads every quantity in one unit whatever unit the
// file wrote:
//
//   quantity         canonical unit  units accepted (factor to the canonical unit)
//   Text             -               none (a non-empty string)
//   Count            -               none (an integer that fits in an int)
//   Bytes            bytes           bytes (1), KiB (1024), MiB (1024^2), GiB (1024^3)
//   Time             us              ns (1e-3), us (1)
//   Cycles           cycles          cycles (1)
//   Frequency        MHz             MHz (1), GHz (1e3)
//   Bandwidth        GB/s            GB/s (1; 1 GB/s = 1e9 bytes per second)
//   ComputeRate      TFLOPS          TFLOPS (1; 1e12 floating-point operations per second)
//   MacsPerCycle     MAC/cycle       MAC/cycle (1; multiply-accumulates per clock cycle)
//   BytesPerCycle    B/cycle         B/cycle (1; bytes per clock cycle)
//   Energy           pJ              pJ (1)
//   EnergyPerBit     pJ/bit          pJ/bit (1)
//   EnergyPerBitHop  pJ/bit/hop      pJ/bit/hop (1; per bit and per network hop)
//   Power            mW              mW (1), W (1e3)
//   Ratio            -               none (a plain number, e.g. an achieved fraction of peak)
//
// Sizes have binary units only: the sources write "MB" both for 10^6 and for 2^20 bytes (a GPU's
// "40 MB L2" is 40 MiB), so a config states which it means by writing KiB/MiB/GiB, or bytes.
// Converting a value given in the canonical unit multiplies by 1 and so keeps its bits.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgs {

enum class Quantity : uint8_t {
  Text,
  Count,
  Bytes,
  Time,
  Cycles,
  Frequency,
  Bandwidth,
  ComputeRate,
  MacsPerCycle,
  BytesPerCycle,
  Energy,
  EnergyPerBit,
  EnergyPerBitHop,
  Power,
  Ratio,
};

// "text", "count", "bytes", "time", ... (for messages and documentation).
std::string_view quantity_name(Quantity q);
// The canonical unit of `q` ("" for Text and Count).
std::string_view canonical_unit(Quantity q);
// The units `q` accepts, in the order of the table above (none for Text and Count).
std::vector<std::string> quantity_units(Quantity q);
// The factor that converts a value in `unit` to the canonical unit of `q`; 0 if `q` does not
// accept `unit`.
double unit_factor(Quantity q, std::string_view unit);

// The range a value must lie in (checked after conversion to the canonical unit).
enum class FieldRange : uint8_t {
  Positive,     // > 0 (counts: >= 1)
  NonNegative,  // >= 0 (e.g. 0 = "the machine has none")
  Fraction,     // in [0, 1] (numbers only: not for Text, Count or Bytes)
};

struct FieldSpec {
  std::string name;
  Quantity quantity = Quantity::Count;
  FieldRange range = FieldRange::Positive;
  // The units this field accepts, a subset of quantity_units(quantity); empty: all of them.
  std::vector<std::string> units;
  bool required = true;  // a missing optional field is left out of read_fields' result
};

struct FieldValue {
  double value = 0;    // in the canonical unit of the field's quantity (Text: 0)
  std::string text;    // the string of a Text field
  std::string unit;    // the unit as written ("" if none)
  std::string source;  // the field's source, as written
};

// Reads one field entry. `where` names it in errors ("<file>: field '<name>'"); every error is
// one line "<where>: <what is wrong> (<what was expected>)", thrown as dgs::Error.
FieldValue read_field(const FieldSpec& spec, const nlohmann::json& entry, const std::string& where);

// Reads the fields of `specs` from the object `fields` of the config `origin`: a field that no
// spec names is refused ("<origin>: unknown field 'x' (expected one of: ...)"), a missing
// required one too ("<origin>: field 'x': missing"); the others are read in the order of `specs`.
// Returns the values by field name.
std::map<std::string, FieldValue> read_fields(const std::vector<FieldSpec>& specs,
                                              const nlohmann::json& fields,
                                              const std::string& origin);

// A numeric field's value as an int (truncated).
inline int as_int(const FieldValue& v) {
  return static_cast<int>(v.value);
}

// "a, b, c": the names of `v` joined by commas (messages' "expected one of: ...").
std::string comma_list(const std::vector<std::string>& v);

// A JSON value's type as messages name it ("string \"80\"", "integer", "number", "object", ...).
std::string json_type_name(const nlohmann::json& j);

}  // namespace dgs
