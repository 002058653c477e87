// Tests of the shared field reader of hardware configs (common/hw/config_fields.h): every unit
// converts to its quantity's canonical unit, and a bad unit, value or range is one line naming
// the file and the field.
#include "common/hw/config_fields.h"

#include <gtest/gtest.h>

#include "tests/error_of.h"

#include <functional>

#include "common/util/error.h"

namespace dgs {
namespace {

using nlohmann::json;

json entry(json value, const std::string& unit) {
  json e = {{"value", value}, {"source", "assumption: test"}};
  if (!unit.empty()) e["unit"] = unit;
  return e;
}

FieldSpec spec(Quantity q, FieldRange r = FieldRange::Positive) {
  return FieldSpec{"f", q, r, {}, true};
}

// The value of `value` `unit` read as a field of quantity `q`, in q's canonical unit.
double canonical(Quantity q, double value, const std::string& unit) {
  return read_field(spec(q), entry(value, unit), "a.json: field 'f'").value;
}

// The error of reading `e` as a field `name` of quantity `q` in file "a.json".
std::string field_error(Quantity q, FieldRange r, const json& e, const std::string& name = "f") {
  FieldSpec s = spec(q, r);
  s.name = name;
  return error_of([&] { read_field(s, e, "a.json: field '" + name + "'"); });
}

TEST(ConfigFields, EveryUnitConvertsToTheCanonicalUnitOfItsQuantity) {
  EXPECT_EQ(canonical(Quantity::Bytes, 3, "bytes"), 3);
  EXPECT_EQ(canonical(Quantity::Bytes, 2, "KiB"), 2048);
  EXPECT_EQ(canonical(Quantity::Bytes, 1.5, "MiB"), 1.5 * 1024 * 1024);
  EXPECT_EQ(canonical(Quantity::Bytes, 16, "GiB"), 16.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(canonical(Quantity::Time, 2.5, "us"), 2.5);
  EXPECT_DOUBLE_EQ(canonical(Quantity::Time, 500, "ns"), 0.5);
  EXPECT_EQ(canonical(Quantity::Cycles, 12, "cycles"), 12);
  EXPECT_EQ(canonical(Quantity::Frequency, 1530, "MHz"), 1530);
  EXPECT_DOUBLE_EQ(canonical(Quantity::Frequency, 1.2, "GHz"), 1200);
  EXPECT_EQ(canonical(Quantity::Bandwidth, 900, "GB/s"), 900);
  EXPECT_EQ(canonical(Quantity::ComputeRate, 15.7, "TFLOPS"), 15.7);
  EXPECT_EQ(canonical(Quantity::MacsPerCycle, 4096, "MAC/cycle"), 4096);
  EXPECT_EQ(canonical(Quantity::BytesPerCycle, 64, "B/cycle"), 64);
  EXPECT_EQ(canonical(Quantity::Energy, 0.9, "pJ"), 0.9);
  EXPECT_EQ(canonical(Quantity::EnergyPerBit, 1.25, "pJ/bit"), 1.25);
  EXPECT_EQ(canonical(Quantity::EnergyPerBitHop, 0.61, "pJ/bit/hop"), 0.61);
  EXPECT_EQ(canonical(Quantity::Power, 250, "mW"), 250);
  EXPECT_EQ(canonical(Quantity::Power, 1.5, "W"), 1500);
  // The canonical unit of each quantity, and every unit it accepts.
  EXPECT_EQ(canonical_unit(Quantity::Time), "us");
  EXPECT_EQ(canonical_unit(Quantity::Frequency), "MHz");
  EXPECT_EQ(canonical_unit(Quantity::Power), "mW");
  EXPECT_EQ(canonical_unit(Quantity::Count), "");
  EXPECT_EQ(quantity_units(Quantity::Bytes),
            (std::vector<std::string>{"bytes", "KiB", "MiB", "GiB"}));
  EXPECT_TRUE(quantity_units(Quantity::Text).empty());
  EXPECT_EQ(unit_factor(Quantity::Power, "W"), 1e3);
  EXPECT_EQ(unit_factor(Quantity::Power, "pJ"), 0);  // a unit of another quantity
}

TEST(ConfigFields, TextCountsAndSourcesAreKeptAsWritten) {
  const FieldValue t = read_field(spec(Quantity::Text), entry("Volta", ""), "a.json: field 'f'");
  EXPECT_EQ(t.text, "Volta");
  EXPECT_EQ(t.source, "assumption: test");
  const FieldValue c = read_field(spec(Quantity::Count), entry(64, ""), "a.json: field 'f'");
  EXPECT_EQ(c.value, 64);
  EXPECT_EQ(c.unit, "");
  const FieldValue z =
      read_field(spec(Quantity::Count, FieldRange::NonNegative), entry(0, ""), "a.json: field 'f'");
  EXPECT_EQ(z.value, 0);
  const FieldValue p = read_field(spec(Quantity::Power), entry(2, "W"), "a.json: field 'f'");
  EXPECT_EQ(p.unit, "W");  // as written; the value is in mW
  EXPECT_EQ(p.value, 2000);
}

TEST(ConfigFields, RangesAreCheckedInOneLine) {
  EXPECT_EQ(field_error(Quantity::Energy, FieldRange::Positive, entry(0, "pJ"), "mac_energy"),
            "a.json: field 'mac_energy': value 0 out of range (expected a positive number)");
  EXPECT_EQ(field_error(Quantity::Power, FieldRange::NonNegative, entry(-2, "W"), "static_power"),
            "a.json: field 'static_power': value -2 out of range (expected zero or a positive "
            "number)");
  EXPECT_EQ(field_error(Quantity::Cycles, FieldRange::Fraction, entry(1.5, "cycles")),
            "a.json: field 'f': value 1.5 out of range (expected a number from 0 to 1)");
  EXPECT_EQ(read_field(spec(Quantity::Cycles, FieldRange::Fraction), entry(1, "cycles"), "w").value,
            1);
  EXPECT_EQ(field_error(Quantity::Count, FieldRange::Positive, entry(0, ""), "cores"),
            "a.json: field 'cores': value 0 out of range (expected a positive count)");
  EXPECT_EQ(field_error(Quantity::Count, FieldRange::Positive, entry(int64_t{1} << 40, "")),
            "a.json: field 'f': value 1099511627776 out of range (expected a positive count)");
  EXPECT_EQ(field_error(Quantity::Bytes, FieldRange::NonNegative, entry(-1, "KiB"), "lb"),
            "a.json: field 'lb': value -1 KiB is not a whole number of bytes, zero or more");
  EXPECT_EQ(read_field(spec(Quantity::Bytes, FieldRange::NonNegative), entry(0, "KiB"), "w").value,
            0);
}

TEST(ConfigFields, UnitsAreCheckedInOneLine) {
  EXPECT_EQ(field_error(Quantity::EnergyPerBitHop, FieldRange::Positive, entry(1, "pJ/bit"), "noc"),
            "a.json: field 'noc': unit 'pJ/bit' is wrong (expected pJ/bit/hop)");
  EXPECT_EQ(field_error(Quantity::Power, FieldRange::Positive, entry(1, "")),
            "a.json: field 'f': missing 'unit' (expected mW or W)");
  EXPECT_EQ(field_error(Quantity::Time, FieldRange::Positive, entry(1, "ms")),
            "a.json: field 'f': unit 'ms' is wrong (expected us or ns)");
  EXPECT_EQ(field_error(Quantity::Bytes, FieldRange::Positive, entry(1, "KB"), "gb"),
            "a.json: field 'gb': unit 'KB' is not a size unit (expected bytes, KiB, MiB or GiB)");
  EXPECT_EQ(field_error(Quantity::Count, FieldRange::Positive, entry(4, "cores")),
            "a.json: field 'f': unexpected unit 'cores' (a count has no unit)");
  EXPECT_EQ(field_error(Quantity::MacsPerCycle, FieldRange::Positive, entry("many", "MAC/cycle")),
            "a.json: field 'f': expected a number, got string \"many\"");
  json bad_unit = entry(1, "");
  bad_unit["unit"] = 3;
  EXPECT_EQ(field_error(Quantity::Power, FieldRange::Positive, bad_unit),
            "a.json: field 'f': 'unit' must be a string, got integer");
  json extra = entry(1, "mW");
  extra["note"] = "x";
  EXPECT_EQ(field_error(Quantity::Power, FieldRange::Positive, extra),
            "a.json: field 'f': unknown key 'note' (expected value, unit, source)");
  // A field may accept fewer units than its quantity.
  FieldSpec clock{"clock", Quantity::Frequency, FieldRange::Positive, {"MHz"}, true};
  EXPECT_EQ(error_of([&] { read_field(clock, entry(1.4, "GHz"), "a.json: field 'clock'"); }),
            "a.json: field 'clock': unit 'GHz' is wrong (expected MHz)");
  // A spec that names a unit its quantity lacks, or a fraction of bytes, is a programming error.
  FieldSpec wrong{"w", Quantity::Power, FieldRange::Positive, {"pJ"}, true};
  EXPECT_NE(error_of([&] {
              read_field(wrong, entry(1, "pJ"), "a.json: field 'w'");
            }).find("names unit 'pJ', which power does not have"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              read_field(spec(Quantity::Bytes, FieldRange::Fraction), entry(1, "bytes"), "w");
            }).find("cannot be a fraction"),
            std::string::npos);
}

TEST(ConfigFields, ReadFieldsRefusesUnknownAndMissingFieldsAndSkipsAbsentOptionalOnes) {
  const std::vector<FieldSpec> specs = {
      {"cores", Quantity::Count, FieldRange::Positive, {}, true},
      {"mac_energy", Quantity::Energy, FieldRange::Positive, {}, true},
      {"static_power", Quantity::Power, FieldRange::NonNegative, {}, false},
  };
  json fields = {{"cores", entry(32, "")}, {"mac_energy", entry(0.5, "pJ")}};
  const auto values = read_fields(specs, fields, "acc.json");
  EXPECT_EQ(values.size(), 2u);
  EXPECT_EQ(values.at("cores").value, 32);
  EXPECT_EQ(values.at("mac_energy").value, 0.5);
  EXPECT_EQ(values.count("static_power"), 0u);
  fields["static_power"] = entry(0.25, "W");
  EXPECT_EQ(read_fields(specs, fields, "acc.json").at("static_power").value, 250);

  json unknown = fields;
  unknown["corse"] = entry(1, "");
  EXPECT_EQ(error_of([&] { read_fields(specs, unknown, "acc.json"); }),
            "acc.json: unknown field 'corse' (expected one of: cores, mac_energy, static_power)");
  json missing = fields;
  missing.erase("mac_energy");
  EXPECT_EQ(error_of([&] { read_fields(specs, missing, "acc.json"); }),
            "acc.json: field 'mac_energy': missing");
  EXPECT_EQ(error_of([&] { read_fields(specs, json::array(), "acc.json"); }),
            "acc.json: \"fields\" must be an object, got array");
}

}  // namespace
}  // namespace dgs
