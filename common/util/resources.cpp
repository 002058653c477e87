#include "common/util/resources.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/util/error.h"

namespace dgs {

std::optional<std::string_view> builtin_resource(std::string_view path) {
  for (const BuiltinResource& r : builtin_resources()) {
    if (r.path == path) return r.content;
  }
  return std::nullopt;
}

std::vector<std::string> builtin_resources_under(std::string_view folder) {
  std::vector<std::string> out;
  for (const BuiltinResource& r : builtin_resources()) {
    if (r.path.substr(0, folder.size()) == folder) out.emplace_back(r.path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file_atomic(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec)
      throw Error("cannot create folder " + target.parent_path().string() + ": " + ec.message());
  }
  fs::path tmp = target;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + tmp.string() + ": " + std::strerror(errno));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw Error("cannot write " + tmp.string() + ": write failed");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error("cannot rename " + tmp.string() + " to " + path + ": " + ec.message());
  }
}

}  // namespace dgs
