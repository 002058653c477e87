// The field reader of hardware configs: units, conversion to canonical units, range checks.
#include "common/hw/config_fields.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/util/error.h"

namespace dgs {

namespace {

using nlohmann::json;

struct UnitFactor {
  Quantity quantity;
  std::string_view unit;
  double factor;  // to the quantity's canonical unit (the first entry of the quantity)
};

// One row per accepted unit, the canonical unit of each quantity first (see config_fields.h).
constexpr UnitFactor kUnits[] = {
    {Quantity::Bytes, "bytes", 1.0},
    {Quantity::Bytes, "KiB", 1024.0},
    {Quantity::Bytes, "MiB", 1024.0 * 1024},
    {Quantity::Bytes, "GiB", 1024.0 * 1024 * 1024},
    {Quantity::Time, "us", 1.0},
    {Quantity::Time, "ns", 1e-3},
    {Quantity::Cycles, "cycles", 1.0},
    {Quantity::Frequency, "MHz", 1.0},
    {Quantity::Frequency, "GHz", 1e3},
    {Quantity::Bandwidth, "GB/s", 1.0},
    {Quantity::ComputeRate, "TFLOPS", 1.0},
    {Quantity::MacsPerCycle, "MAC/cycle", 1.0},
    {Quantity::BytesPerCycle, "B/cycle", 1.0},
    {Quantity::Energy, "pJ", 1.0},
    {Quantity::EnergyPerBit, "pJ/bit", 1.0},
    {Quantity::EnergyPerBitHop, "pJ/bit/hop", 1.0},
    {Quantity::Power, "mW", 1.0},
    {Quantity::Power, "W", 1e3},
};

// "a", "a or b", "a, b or c".
std::string or_list(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += i + 1 == v.size() ? " or " : ", ";
    s += v[i];
  }
  return s;
}

// The units field `f` accepts; throws if the spec names a unit its quantity does not have.
std::vector<std::string> accepted_units(const FieldSpec& f) {
  if (f.units.empty()) return quantity_units(f.quantity);
  for (const std::string& u : f.units)
    if (unit_factor(f.quantity, u) == 0)
      throw Error("config field reader: field '" + f.name + "' names unit '" + u + "', which " +
                  std::string(quantity_name(f.quantity)) + " does not have");
  return f.units;
}

std::string range_text(FieldRange r) {
  switch (r) {
    case FieldRange::Positive:
      return "a positive number";
    case FieldRange::NonNegative:
      return "zero or a positive number";
    case FieldRange::Fraction:
      return "a number from 0 to 1";
  }
  return "?";
}

bool in_range(double x, FieldRange r) {
  if (!std::isfinite(x)) return false;
  switch (r) {
    case FieldRange::Positive:
      return x > 0;
    case FieldRange::NonNegative:
      return x >= 0;
    case FieldRange::Fraction:
      return x >= 0 && x <= 1;
  }
  return false;
}

void read_count(const FieldSpec& f, const json& v, bool has_unit, const std::string& unit,
                const std::string& where, FieldValue& out) {
  if (!v.is_number_integer())
    throw Error(where + ": expected an integer, got " + json_type_name(v));
  if (has_unit) throw Error(where + ": unexpected unit '" + unit + "' (a count has no unit)");
  const int64_t x = v.get<int64_t>();
  const int64_t least = f.range == FieldRange::Positive ? 1 : 0;
  if (x < least || x > std::numeric_limits<int>::max()) {
    throw Error(where + ": value " + std::to_string(x) + " out of range (expected a " +
                (f.range == FieldRange::Positive ? "positive" : "non-negative") + " count)");
  }
  out.value = static_cast<double>(x);
}

void read_bytes(const FieldSpec& f, const json& v, bool has_unit, const std::string& unit,
                const std::string& where, FieldValue& out) {
  const std::vector<std::string> units = accepted_units(f);
  const std::string expected = or_list(units);
  if (!v.is_number()) throw Error(where + ": expected a number, got " + json_type_name(v));
  if (!has_unit) throw Error(where + ": missing 'unit' (expected " + expected + ")");
  const double m = std::find(units.begin(), units.end(), unit) == units.end()
                       ? 0.0
                       : unit_factor(Quantity::Bytes, unit);
  if (m == 0)
    throw Error(where + ": unit '" + unit + "' is not a size unit (expected " + expected + ")");
  const double bytes = v.get<double>() * m;
  const bool positive = f.range == FieldRange::Positive;
  if (!(positive ? bytes > 0 : bytes >= 0) || bytes != std::floor(bytes) || bytes > 9.0e18) {
    throw Error(
        where + ": value " + v.dump() + " " + unit + " is not a " +
        (positive ? "positive whole number of bytes" : "whole number of bytes, zero or more"));
  }
  out.value = bytes;
}

void read_number(const FieldSpec& f, const json& v, bool has_unit, const std::string& unit,
                 const std::string& where, FieldValue& out) {
  const std::vector<std::string> units = accepted_units(f);
  const std::string expected = or_list(units);
  if (!v.is_number()) throw Error(where + ": expected a number, got " + json_type_name(v));
  if (!has_unit) throw Error(where + ": missing 'unit' (expected " + expected + ")");
  if (std::find(units.begin(), units.end(), unit) == units.end())
    throw Error(where + ": unit '" + unit + "' is wrong (expected " + expected + ")");
  const double x = v.get<double>() * unit_factor(f.quantity, unit);
  if (!in_range(x, f.range))
    throw Error(where + ": value " + v.dump() + " out of range (expected " + range_text(f.range) +
                ")");
  out.value = x;
}

}  // namespace

std::string comma_list(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string_view quantity_name(Quantity q) {
  switch (q) {
    case Quantity::Text:
      return "text";
    case Quantity::Count:
      return "count";
    case Quantity::Bytes:
      return "bytes";
    case Quantity::Time:
      return "time";
    case Quantity::Cycles:
      return "cycles";
    case Quantity::Frequency:
      return "frequency";
    case Quantity::Bandwidth:
      return "bandwidth";
    case Quantity::ComputeRate:
      return "compute rate";
    case Quantity::MacsPerCycle:
      return "MACs per cycle";
    case Quantity::BytesPerCycle:
      return "bytes per cycle";
    case Quantity::Energy:
      return "energy";
    case Quantity::EnergyPerBit:
      return "energy per bit";
    case Quantity::EnergyPerBitHop:
      return "energy per bit and hop";
    case Quantity::Power:
      return "power";
    case Quantity::Ratio:
      return "ratio";
  }
  return "?";
}

std::string_view canonical_unit(Quantity q) {
  for (const UnitFactor& u : kUnits)
    if (u.quantity == q) return u.unit;
  return "";
}

std::vector<std::string> quantity_units(Quantity q) {
  std::vector<std::string> units;
  for (const UnitFactor& u : kUnits)
    if (u.quantity == q) units.emplace_back(u.unit);
  return units;
}

double unit_factor(Quantity q, std::string_view unit) {
  for (const UnitFactor& u : kUnits)
    if (u.quantity == q && u.unit == unit) return u.factor;
  return 0;
}

std::string json_type_name(const json& j) {
  if (j.is_string()) return "string " + j.dump();
  if (j.is_boolean()) return "boolean";
  if (j.is_null()) return "null";
  if (j.is_object()) return "object";
  if (j.is_array()) return "array";
  if (j.is_number_integer() || j.is_number_unsigned()) return "integer";
  return "number";
}

FieldValue read_field(const FieldSpec& f, const json& entry, const std::string& where) {
  if (f.range == FieldRange::Fraction &&
      (f.quantity == Quantity::Text || f.quantity == Quantity::Count ||
       f.quantity == Quantity::Bytes))
    throw Error("config field reader: field '" + f.name + "' is a " +
                std::string(quantity_name(f.quantity)) + ", which cannot be a fraction");
  if (!entry.is_object())
    throw Error(where + ": expected an object {\"value\": ..., \"source\": ...}, got " +
                json_type_name(entry));
  for (const auto& [k, v] : entry.items()) {
    (void)v;
    if (k != "value" && k != "unit" && k != "source") {
      throw Error(where + ": unknown key '" + k + "' (expected value, unit, source)");
    }
  }
  if (!entry.contains("source"))
    throw Error(where + ": missing 'source' (a datasheet, a paper, or \"assumption: <reason>\")");
  if (!entry["source"].is_string() || entry["source"].get<std::string>().empty()) {
    throw Error(where + ": 'source' must be a non-empty string");
  }
  FieldValue out;
  out.source = entry["source"].get<std::string>();
  if (!entry.contains("value")) throw Error(where + ": missing 'value'");
  const json& v = entry["value"];
  const bool has_unit = entry.contains("unit");
  if (has_unit) {
    if (!entry["unit"].is_string())
      throw Error(where + ": 'unit' must be a string, got " + json_type_name(entry["unit"]));
    out.unit = entry["unit"].get<std::string>();
  }

  switch (f.quantity) {
    case Quantity::Text:
      if (!v.is_string() || v.get<std::string>().empty()) {
        throw Error(where + ": expected a non-empty string, got " + json_type_name(v));
      }
      if (has_unit)
        throw Error(where + ": unexpected unit '" + out.unit + "' (this field has none)");
      out.text = v.get<std::string>();
      return out;
    case Quantity::Count:
      read_count(f, v, has_unit, out.unit, where, out);
      return out;
    case Quantity::Bytes:
      read_bytes(f, v, has_unit, out.unit, where, out);
      return out;
    case Quantity::Ratio:
      if (!v.is_number()) throw Error(where + ": expected a number, got " + json_type_name(v));
      if (has_unit)
        throw Error(where + ": unexpected unit '" + out.unit + "' (a ratio has no unit)");
      out.value = v.get<double>();
      if (!in_range(out.value, f.range))
        throw Error(where + ": value " + v.dump() + " out of range (expected " +
                    range_text(f.range) + ")");
      return out;
    default:
      read_number(f, v, has_unit, out.unit, where, out);
      return out;
  }
}

std::map<std::string, FieldValue> read_fields(const std::vector<FieldSpec>& specs,
                                              const json& fields, const std::string& origin) {
  if (!fields.is_object())
    throw Error(origin + ": \"fields\" must be an object, got " + json_type_name(fields));
  std::vector<std::string> known;
  for (const FieldSpec& f : specs) known.push_back(f.name);
  for (const auto& [k, v] : fields.items()) {
    (void)v;
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      throw Error(origin + ": unknown field '" + k + "' (expected one of: " + comma_list(known) +
                  ")");
    }
  }
  std::map<std::string, FieldValue> values;
  for (const FieldSpec& f : specs) {
    const std::string where = origin + ": field '" + f.name + "'";
    if (!fields.contains(f.name)) {
      if (f.required) throw Error(where + ": missing");
      continue;
    }
    values[f.name] = read_field(f, fields[f.name], where);
  }
  return values;
}

}  // namespace dgs
