// Completion records and shard records of resumable and sharded runs (run_state.h).
#include "cli/run_state.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/util/resources.h"

namespace dgs {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kItemFormat = "dgs item completion record 1";
constexpr const char* kShardFormat = "dgs shard record 1";

// A work item's key as a file name: [A-Za-z0-9._-] kept, any other byte as %XX.
std::string file_safe(const std::string& key) {
  std::string out;
  for (const char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '.' || c == '_' || c == '-') {
      out += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", u);
      out += buf;
    }
  }
  // "." and ".." are not file names of their own.
  return out == "." || out == ".." ? "%2E" + out.substr(1) : out;
}

json key_json(const RunKey& k) {
  json a = json::array();
  for (const auto& [f, v] : k) a.push_back(json::array({f, v}));
  return a;
}

RunKey key_from(const json& a) {
  RunKey k;
  for (const json& p : a) k.emplace_back(p.at(0).get<std::string>(), p.at(1).get<std::string>());
  return k;
}

json parse_json_file(const std::string& path) {
  try {
    return json::parse(read_file(path));
  } catch (const json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
}

}  // namespace

std::string run_key_value(const RunKey& k, const std::string& field) {
  for (const auto& [f, v] : k)
    if (f == field) return "'" + v + "'";
  return "none";
}

std::string run_key_differing_field(const RunKey& a, const RunKey& b) {
  for (const RunKey* k : {&a, &b}) {
    for (const auto& [f, v] : *k)
      if (run_key_value(a, f) != run_key_value(b, f)) return f;
  }
  return "";
}

std::string run_state_dir(const std::string& out_dir, const std::string& scope) {
  return (fs::path(out_dir) / ".run_state" / scope).string();
}

FileDigest digest_content(const std::string& name, const std::string& content) {
  return {name, content.size(), fnv1a_hex(content)};
}

FileDigest digest_file(const std::string& folder, const std::string& name) {
  return digest_content(name, read_file((fs::path(folder) / name).string()));
}

std::string item_marker_path(const std::string& state_dir, const std::string& item) {
  return (fs::path(state_dir) / (file_safe(item) + ".done.json")).string();
}

void write_item_marker(const std::string& state_dir, const ItemMarker& m) {
  json files = json::array();
  for (const FileDigest& f : m.files)
    files.push_back({{"name", f.name}, {"bytes", f.bytes}, {"fnv1a", f.fnv1a}});
  const json j = {{"format", kItemFormat},
                  {"item", m.item},
                  {"run", key_json(m.run)},
                  {"files", files},
                  {"data", m.data}};
  write_file_atomic(item_marker_path(state_dir, m.item), j.dump(1) + "\n");
}

std::optional<ItemMarker> read_item_marker(const std::string& state_dir, const std::string& item) {
  const std::string path = item_marker_path(state_dir, item);
  if (!fs::exists(path)) return std::nullopt;
  const json j = parse_json_file(path);
  try {
    if (j.at("format") != kItemFormat)
      throw Error("format is not '" + std::string(kItemFormat) + "'");
    ItemMarker m;
    m.item = j.at("item").get<std::string>();
    if (m.item != item) throw Error("it names item '" + m.item + "', not '" + item + "'");
    m.run = key_from(j.at("run"));
    for (const json& f : j.at("files"))
      m.files.push_back({f.at("name").get<std::string>(), f.at("bytes").get<uint64_t>(),
                         f.at("fnv1a").get<std::string>()});
    m.data = j.at("data");
    return m;
  } catch (const json::exception& e) {
    throw Error(path + ": not a completion record: " + e.what());
  } catch (const Error& e) {
    throw Error(path + ": not a completion record: " + e.what());
  }
}

std::string missing_files(const ItemMarker& m, const std::string& folder) {
  for (const FileDigest& f : m.files) {
    const std::string path = (fs::path(folder) / f.name).string();
    if (!fs::is_regular_file(path)) return path + " is missing";
    const FileDigest now = digest_file(folder, f.name);
    if (now.bytes != f.bytes) {
      return path + " has " + std::to_string(now.bytes) + " bytes (" + std::to_string(f.bytes) +
             " when written)";
    }
    if (now.fnv1a != f.fnv1a) return path + " differs from what was written (hash)";
  }
  return "";
}

std::optional<ItemMarker> completed_item(const std::string& state_dir, const std::string& item,
                                         const RunKey& run, const std::string& folder,
                                         std::string* why) {
  std::string reason;
  std::optional<ItemMarker> m;
  try {
    m = read_item_marker(state_dir, item);
  } catch (const Error& e) {
    reason = std::string("unreadable completion record: ") + e.what();
  }
  if (m) {
    const std::string field = run_key_differing_field(run, m->run);
    if (!field.empty()) {
      reason = "recorded by another run: " + field + " " + run_key_value(m->run, field) +
               " (here " + run_key_value(run, field) + ")";
    } else {
      reason = missing_files(*m, folder);
    }
    if (!reason.empty()) m.reset();
  }
  if (why != nullptr) *why = reason;
  return m;
}

std::vector<std::string> ShardRecord::share() const {
  std::vector<std::string> out;
  for (size_t k = 0; k < work.size() && k < assignment.size(); ++k)
    if (assignment[k] == shard.index) out.push_back(work[k]);
  return out;
}

std::string shard_record_path(const std::string& state_dir, const ShardSpec& shard) {
  return (fs::path(state_dir) /
          ("shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) + ".json"))
      .string();
}

void write_shard_record(const std::string& state_dir, const ShardRecord& r) {
  const json j = {{"format", kShardFormat}, {"shard", r.shard.index}, {"shards", r.shard.count},
                  {"run", key_json(r.run)}, {"work", r.work},         {"assignment", r.assignment},
                  {"status", r.status},     {"data", r.data}};
  write_file_atomic(shard_record_path(state_dir, r.shard), j.dump(1) + "\n");
}

std::vector<ShardRecord> read_shard_records(const std::string& state_dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  if (fs::is_directory(state_dir, ec)) {
    for (const auto& e : fs::directory_iterator(state_dir)) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file() && name.rfind("shard-", 0) == 0 && name.ends_with(".json"))
        paths.push_back(e.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<ShardRecord> out;
  for (const std::string& path : paths) {
    const json j = parse_json_file(path);
    ShardRecord r;
    try {
      if (j.at("format") != kShardFormat)
        throw Error("format is not '" + std::string(kShardFormat) + "'");
      r.shard = {j.at("shard").get<int>(), j.at("shards").get<int>()};
      r.run = key_from(j.at("run"));
      r.work = j.at("work").get<std::vector<std::string>>();
      r.assignment = j.at("assignment").get<std::vector<int>>();
      r.status = j.at("status").get<std::map<std::string, std::string>>();
      r.data = j.at("data");
    } catch (const json::exception& e) {
      throw Error(path + ": not a shard record: " + e.what());
    } catch (const Error& e) {
      throw Error(path + ": not a shard record: " + e.what());
    }
    const bool consistent =
        r.shard.count >= 1 && r.shard.index >= 0 && r.shard.index < r.shard.count &&
        r.assignment.size() == r.work.size() &&
        std::all_of(r.assignment.begin(), r.assignment.end(),
                    [&r](int s) { return s >= 0 && s < r.shard.count; }) &&
        fs::path(path).filename() == fs::path(shard_record_path("", r.shard)).filename();
    if (!consistent) {
      throw Error(path +
                  ": not a shard record: its shard, shard count, work list and assignment "
                  "do not agree with each other or with its name");
    }
    r.path = path;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ShardRecord> collect_shards(const std::vector<std::string>& dirs,
                                        const std::string& scope, const std::string& flag) {
  std::vector<ShardRecord> all;
  for (size_t d = 0; d < dirs.size(); ++d) {
    const std::string& dir = dirs[d];
    if (!fs::is_directory(dir)) throw UsageError(flag + ": no folder " + dir);
    for (size_t e = 0; e < d; ++e) {
      std::error_code ec;
      if (fs::equivalent(dirs[e], dir, ec))
        throw UsageError(flag + ": the folder " + dir + " is given twice (as " + dirs[e] + ")");
    }
    const std::string state = run_state_dir(dir, scope);
    std::vector<ShardRecord> found;
    try {
      found = read_shard_records(state);
    } catch (const Error& e) {
      throw UsageError(flag + ": " + e.what());
    }
    if (found.empty()) {
      throw UsageError(flag + ": " + dir + " holds no shard record of " + scope + " (no " + state +
                       "/shard-<I>-of-<N>.json: run repro_" + scope + " --shard I/N --out " + dir +
                       " first, or name the shards' --out)");
    }
    for (ShardRecord& r : found) {
      r.folder = dir;
      all.push_back(std::move(r));
    }
  }
  const ShardRecord& first = all.front();
  for (const ShardRecord& r : all) {
    std::string what;
    if (r.shard.count != first.shard.count) {
      what = "is one of " + std::to_string(r.shard.count) + " shards, " + first.path + " one of " +
             std::to_string(first.shard.count);
    } else if (const std::string f = run_key_differing_field(first.run, r.run); !f.empty()) {
      what = "has " + f + " " + run_key_value(r.run, f) + ", " + first.path + " has " + f + " " +
             run_key_value(first.run, f);
    } else if (r.work != first.work) {
      what = "has another work list than " + first.path;
    } else if (r.assignment != first.assignment) {
      what = "has another assignment of the work items to shards than " + first.path +
             " (different --shard-costs)";
    }
    if (!what.empty())
      throw UsageError(flag + ": shards of different runs: " + r.path + " " + what);
  }
  std::vector<const ShardRecord*> by_index(static_cast<size_t>(first.shard.count), nullptr);
  for (const ShardRecord& r : all) {
    const ShardRecord*& slot = by_index[static_cast<size_t>(r.shard.index)];
    if (slot != nullptr) {
      throw UsageError(flag + ": shard " + r.shard.str() + " is given twice: " + slot->path +
                       " and " + r.path);
    }
    slot = &r;
  }
  std::vector<ShardRecord> out;
  for (size_t s = 0; s < by_index.size(); ++s) {
    if (by_index[s] == nullptr) {
      std::string have, folders;
      for (const ShardRecord* r : by_index)
        if (r != nullptr) have += (have.empty() ? "" : ", ") + std::to_string(r->shard.index);
      for (const std::string& d : dirs) folders += (folders.empty() ? "" : ", ") + d;
      const ShardSpec missing{static_cast<int>(s), first.shard.count};
      throw UsageError(flag + ": shard " + missing.str() + " is missing: no " +
                       fs::path(shard_record_path("", missing)).filename().string() + " in " +
                       folders + " (found shards " + have + " of " +
                       std::to_string(first.shard.count) +
                       "; a shard writes its record when it ends)");
    }
    out.push_back(*by_index[s]);
  }
  return out;
}

}  // namespace dgs
