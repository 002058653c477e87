// Kernel groups by name and shape: the names of the connection levels, a group's root operator
// and its signature (what identical groups share: the search's memo key).
#include <algorithm>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/util/enum_names.h"
#include "reproductions/welder/cost_model.h"

namespace dgs::welder {

constexpr EnumNames<Conn> kConnNames[] = {{Conn::Host, "host"},
                                          {Conn::Dram, "dram"},
                                          {Conn::Shared, "shared"},
                                          {Conn::Register, "register"}};

std::string conn_name(Conn c) {
  return std::string(enum_name(kConnNames, c));
}

int group_root(const TileGraph& g, const KernelGroup& grp) {
  int root = -1;
  for (int op : grp.ops) {
    bool inner_consumer = false;
    for (int c : g.consumers_of(op))
      if (std::find(grp.ops.begin(), grp.ops.end(), c) != grp.ops.end()) inner_consumer = true;
    if (!inner_consumer) root = std::max(root, op);
  }
  return root;
}

std::string group_signature(const TileGraph& g, const KernelGroup& grp) {
  std::vector<int> ops = grp.ops;
  std::sort(ops.begin(), ops.end());
  std::ostringstream os;
  auto local = [&](int op) {
    auto it = std::lower_bound(ops.begin(), ops.end(), op);
    return (it != ops.end() && *it == op) ? static_cast<int>(it - ops.begin()) : -1;
  };
  for (int op : ops) {
    const TileOp& o = g.ops[op];
    os << o.type << (o.layout_only ? "v" : "") << '(' << o.flops << ')';
    for (auto s : o.space) os << ',' << s;
    os << '|';
    for (auto r : o.reduce) os << ',' << r;
    for (const auto& in : o.inputs) {
      const TileTensor& t = g.tensors[in.tensor];
      const int l = t.producer >= 0 ? local(t.producer) : -1;
      os << "<" << l << ':' << t.elem_bytes;
      if (l < 0)
        for (auto s : t.shape) os << ',' << s;
      if (in.custom()) {  // answered from the source op: its input shape and attributes count
        os << 'C' << in.graph_input;
        for (auto d : t.shape) os << ',' << d;
        if (g.source && o.graph_op >= 0)
          for (const auto& [name, v] : g.source->op(o.graph_op).attrs.all()) {
            os << name << '=';
            std::visit(
                [&](const auto& x) {
                  using X = std::decay_t<decltype(x)>;
                  if constexpr (std::is_same_v<X, std::vector<int64_t>> ||
                                std::is_same_v<X, std::vector<double>>) {
                    for (auto e : x) os << e << ':';
                  } else {
                    os << x;
                  }
                },
                v);
          }
      }
      for (const auto& d : in.dims) {
        os << '[' << d.offset << (d.full ? "F" : "");
        for (const auto& t2 : d.terms)
          os << (t2.reduction ? o.space.size() : 0) + t2.axis << '*' << t2.coef << ';';
        os << ']';
      }
      if (l >= 0) {
        auto it = grp.edges.find({t.producer, op});
        os << '@' << static_cast<int>(it == grp.edges.end() ? Conn::Shared : it->second);
      }
    }
    const TileTensor& out = g.tensors[o.output];
    bool outside = out.graph_output || out.consumers.empty();
    for (int c : out.consumers) outside = outside || local(c) < 0;
    os << (outside ? "G" : "") << out.elem_bytes << '#';
  }
  return os.str();
}

}  // namespace dgs::welder
