#pragma once
// A small JSON Schema validator for the tests: the keywords common/plan/plan.schema.json uses
// (type, properties, required, additionalProperties, items, minItems, maxItems, enum, const,
// pattern, minimum, $ref to "#/$defs/..."). Returns the first violation as "<path>: <what>", or
// "" when the document is valid. Unknown keywords are refused, so the schema cannot silently use
// one this validator ignores.
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "common/util/resources.h"

namespace dgs::testing {

class SchemaLite {
 public:
  explicit SchemaLite(nlohmann::json schema) : root_(std::move(schema)) {}

  std::string validate(const nlohmann::json& doc) const { return check(root_, doc, "$"); }

 private:
  const nlohmann::json& resolve(const nlohmann::json& s) const {
    if (!s.contains("$ref")) return s;
    const std::string ref = s["$ref"].get<std::string>();
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("unsupported $ref " + ref);
    return root_.at("$defs").at(ref.substr(prefix.size()));
  }

  static bool has_type(const nlohmann::json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    throw std::runtime_error("unsupported type " + t);
  }

  std::string check(const nlohmann::json& schema, const nlohmann::json& v,
                    const std::string& path) const {
    const nlohmann::json& s = resolve(schema);
    static const std::set<std::string> known = {"$schema",
                                                "$id",
                                                "title",
                                                "description",
                                                "type",
                                                "required",
                                                "additionalProperties",
                                                "properties",
                                                "items",
                                                "minItems",
                                                "maxItems",
                                                "enum",
                                                "const",
                                                "pattern",
                                                "minimum",
                                                "$defs",
                                                "$ref"};
    for (const auto& [k, unused] : s.items())
      if (!known.count(k)) throw std::runtime_error("unsupported schema keyword " + k);
    if (s.contains("type") && !has_type(v, s["type"].get<std::string>()))
      return path + ": not of type " + s["type"].get<std::string>();
    if (s.contains("const") && v != s["const"]) return path + ": not " + s["const"].dump();
    if (s.contains("enum")) {
      bool found = false;
      for (const auto& e : s["enum"]) found = found || e == v;
      if (!found) return path + ": " + v.dump() + " not in " + s["enum"].dump();
    }
    if (s.contains("pattern") && v.is_string() &&
        !std::regex_match(v.get<std::string>(), std::regex(s["pattern"].get<std::string>())))
      return path + ": does not match " + s["pattern"].get<std::string>();
    if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>())
      return path + ": below " + s["minimum"].dump();
    if (v.is_array()) {
      if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>())
        return path + ": fewer than " + s["minItems"].dump() + " items";
      if (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>())
        return path + ": more than " + s["maxItems"].dump() + " items";
      if (s.contains("items"))
        for (size_t i = 0; i < v.size(); ++i)
          if (auto e = check(s["items"], v[i], path + "[" + std::to_string(i) + "]"); !e.empty())
            return e;
    }
    if (v.is_object()) {
      if (s.contains("required"))
        for (const auto& r : s["required"])
          if (!v.contains(r.get<std::string>())) return path + ": missing " + r.dump();
      for (const auto& [k, item] : v.items()) {
        const std::string p = path + "." + k;
        if (s.contains("properties") && s["properties"].contains(k)) {
          if (auto e = check(s["properties"][k], item, p); !e.empty()) return e;
        } else if (s.contains("additionalProperties")) {
          const auto& ap = s["additionalProperties"];
          if (ap.is_boolean()) {
            if (!ap.get<bool>()) return p + ": unknown key";
          } else if (auto e = check(ap, item, p); !e.empty()) {
            return e;
          }
        }
      }
    }
    return "";
  }

  nlohmann::json root_;
};

// The plan format's schema, common/plan/plan.schema.json (tests are built with DGS_SOURCE_DIR).
inline SchemaLite plan_schema() {
  return SchemaLite(nlohmann::json::parse(
      read_file(std::string(DGS_SOURCE_DIR) + "/common/plan/plan.schema.json")));
}

}  // namespace dgs::testing
