// Plan::check (see plan.h): structure, placements, levels, reduction splits, the exact tiling of
// every written tensor, and that every region a task reads is written by an earlier stage.
#include <algorithm>
#include <cctype>
#include <numeric>
#include <optional>
#include <set>

#include "common/graph/iteration_space.h"
#include "common/graph/region_index.h"
#include "common/plan/plan.h"
#include "common/plan/plan_check.h"
#include "common/util/error.h"
#include "common/util/inline_vector.h"

namespace dgs {

namespace {

struct TaskRef {
  size_t stage = 0, task = 0;
  std::string str() const {
    return "stage " + std::to_string(stage) + " task " + std::to_string(task);
  }
};

// One region of a tensor written by a task.
struct Write {
  TaskRef at;
  Region region;
  ReductionSplit reduction;  // active for partial sums
};

bool valid_level_name(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Whether `a` comes before `b` with both flattened to (lo, hi) per axis, compared
// lexicographically (as vectors of those numbers).
bool flat_less(const Region& a, const Region& b) {
  for (size_t d = 0; d < a.size() && d < b.size(); ++d) {
    if (a[d].lo != b[d].lo) return a[d].lo < b[d].lo;
    if (a[d].hi != b[d].hi) return a[d].hi < b[d].hi;
  }
  return a.size() < b.size();
}

// Whether two boxes of one tensor share an element: overlap_numel(a, b) != 0 (region_index.h)
// for the non-empty boxes it is asked about (the checker refuses an empty task region before,
// and skips an empty read), without the product. (For an empty box inside another it says yes.)
bool regions_overlap(const Region& a, const Region& b) {
  for (size_t d = 0; d < a.size(); ++d)
    if (a[d].hi <= b[d].lo || b[d].hi <= a[d].lo) return false;
  return true;
}

class Checker {
 public:
  Checker(const Plan& p, const Graph& g, const PlanTarget* target, bool prefix)
      : p_(p),
        g_(g),
        target_(target),
        prefix_(prefix),
        where_("plan '" + p.scheduler + "' of graph '" + g.name + "'" +
               (prefix ? " (a prefix)" : "")) {}

  void run() {
    for (size_t si = 0; si < p_.stages.size(); ++si) {
      stage_offset_.push_back(written_.size());
      for (size_t ti = 0; ti < p_.stages[si].tasks.size(); ++ti) {
        check_op_indices({si, ti});
        written_.push_back(task_written_tensors(g_, p_.stages[si].tasks[ti]));
      }
    }
    for (size_t si = 0; si < p_.stages.size(); ++si)
      for (size_t ti = 0; ti < p_.stages[si].tasks.size(); ++ti) check_task({si, ti});
    if (!prefix_) check_every_op_placed();
    collect_writes();
    for (const auto& [tensor, writes] : writes_) check_tiling(tensor, writes);
    check_reads();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(where_ + ": " + what); }
  const Task& task(TaskRef r) const { return p_.stages[r.stage].tasks[r.task]; }
  // The tensors task `r` writes (task_written_tensors, computed once per task).
  const std::vector<int>& written(TaskRef r) const {
    return written_[stage_offset_[r.stage] + r.task];
  }
  std::string op_name(int op) const { return "'" + g_.op(op).name + "'"; }
  std::string tensor_name(int t) const { return "'" + g_.tensor(t).name + "'"; }

  void check_tensor_index(TaskRef at, int t, const char* field) const {
    if (t < 0 || t >= g_.num_tensors())
      fail(at.str() + " " + field + " names tensor index " + std::to_string(t) + "; expected 0.." +
           std::to_string(g_.num_tensors() - 1));
  }

  // `field`: its name in messages, `field_prefix` + `field_name` (joined only for a message).
  void check_level(TaskRef at, const std::string& level, const char* field_prefix,
                   const std::string& field_name = "") const {
    auto field = [&] { return field_prefix + field_name; };
    if (!valid_level_name(level))
      fail(at.str() + " " + field() + ": memory level '" + level +
           "' is not a name (lower-case letters, digits, '_')");
    if (target_ && std::find(target_->memory_levels.begin(), target_->memory_levels.end(), level) ==
                       target_->memory_levels.end()) {
      std::string all;
      for (const std::string& l : target_->memory_levels) all += (all.empty() ? "" : ", ") + l;
      fail(at.str() + " " + field() + ": memory level '" + level + "' does not exist on " +
           target_->name + "; expected one of " + all);
    }
  }

  void check_op_indices(TaskRef at) const {
    const Task& t = task(at);
    if (t.ops.empty()) fail(at.str() + " has no ops; expected at least one op");
    for (int op : t.ops)
      if (op < 0 || op >= g_.num_ops())
        fail(at.str() + " names op index " + std::to_string(op) + "; expected 0.." +
             std::to_string(g_.num_ops() - 1));
    for (const auto& [tensor, region] : t.regions) check_tensor_index(at, tensor, "regions");
  }

  void check_task(TaskRef at) {
    const Task& t = task(at);
    // The task's ops, sorted (a set without its allocations); on a repeat, the first op that
    // repeats in the task's order is named.
    InlineVector<int, 16> seen(t.ops.begin(), t.ops.end());
    std::sort(seen.begin(), seen.end());
    if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) {
      std::set<int> before;
      for (int op : t.ops)
        if (!before.insert(op).second) fail(at.str() + " lists op " + op_name(op) + " twice");
    }
    // Producers inside the task come earlier in it.
    for (size_t i = 0; i < t.ops.size(); ++i) {
      for (size_t j = i + 1; j < t.ops.size(); ++j) {
        for (int in : g_.op(t.ops[i]).inputs) {
          if (in >= 0 && g_.tensor(in).producer == t.ops[j])
            fail("op " + op_name(t.ops[i]) + " (" + at.str() + ") reads " + tensor_name(in) +
                 ", which op " + op_name(t.ops[j]) +
                 " produces later in the same task; expected producers first");
        }
      }
    }
    auto produced_here = [&](int tensor) {
      const int p = g_.tensor(tensor).producer;
      return p >= 0 && std::binary_search(seen.begin(), seen.end(), p);
    };
    const std::vector<int>& written = this->written(at);
    for (const auto& [tensor, region] : t.regions) {
      check_tensor_index(at, tensor, "regions");
      if (!produced_here(tensor))
        fail(at.str() + " gives a region of " + tensor_name(tensor) +
             ", which no op of the task produces");
      const Shape& s = g_.tensor(tensor).shape;
      if (region.size() != s.size() || region_empty(region) ||
          !region_contains(full_region(s), region))
        fail(at.str() + " region " + region_str(region) + " of " + tensor_name(tensor) +
             " is empty or does not fit its shape " + shape_str(s));
    }
    for (const auto& [tensor, level] : t.kept) {
      check_tensor_index(at, tensor, "kept");
      if (!produced_here(tensor))
        fail(at.str() + " keeps " + tensor_name(tensor) + ", which no op of the task produces");
      if (std::binary_search(written.begin(), written.end(), tensor))
        fail(at.str() + " keeps " + tensor_name(tensor) +
             " inside the task, but the task writes it (it is a graph output or read by another "
             "task)");
      check_level(at, level, "kept.", g_.tensor(tensor).name);
    }
    for (const auto& [tensor, level] : t.scope) {
      check_tensor_index(at, tensor, "scope");
      if (!std::binary_search(written.begin(), written.end(), tensor))
        fail(at.str() + " gives a buffer scope to " + tensor_name(tensor) +
             ", which the task does not write");
      check_level(at, level, "scope.", g_.tensor(tensor).name);
    }
    const Shape& primary = g_.tensor(task_primary_tensor(g_, t)).shape;
    if (!t.tile.empty()) {
      if (t.tile.size() != primary.size())
        fail(at.str() + " tile has " + std::to_string(t.tile.size()) +
             " entries; expected one positive size per axis of " +
             tensor_name(task_primary_tensor(g_, t)) + " " + shape_str(primary));
      for (size_t d = 0; d < t.tile.size(); ++d)
        if (t.tile[d] < 1)
          fail(at.str() + " tile size " + std::to_string(t.tile[d]) + " in axis " +
               std::to_string(d) + "; expected a positive size");
    }
    if (t.halo.mode == HaloMode::Share) {
      check_level(at, t.halo.level, "halo.level");
    } else if (!t.halo.level.empty()) {
      fail(at.str() + " halo mode 'recompute' names level '" + t.halo.level +
           "'; only 'share' takes a level");
    }
    if (t.reduction.active()) {
      if (t.ops.size() != 1)
        fail(at.str() + " splits a reduction but holds " + std::to_string(t.ops.size()) +
             " ops; expected exactly one (its partial result is not final)");
      const std::string err = reduction_slice_error(g_, t.ops[0], t.reduction.range);
      if (!err.empty()) fail(at.str() + ": " + err);
    }
    check_placement(at, t, primary);
    if (t.buffer_bytes < 0)
      fail(at.str() + " has buffer_bytes " + std::to_string(t.buffer_bytes) +
           "; expected 0 (the whole local buffer) or a positive byte count");
    std::set<int> pinned;
    for (int x : t.pinned) {
      check_tensor_index(at, x, "pinned");
      if (!pinned.insert(x).second) fail(at.str() + " pins " + tensor_name(x) + " twice");
      if (!g_.tensor(x).is_param())
        fail(at.str() + " pins " + tensor_name(x) +
             ", which is not a weight or constant; expected a parameter the task reads");
      const bool read = std::any_of(t.ops.begin(), t.ops.end(), [&](int op) {
        const std::vector<int>& in = g_.op(op).inputs;
        return std::find(in.begin(), in.end(), x) != in.end();
      });
      if (!read)
        fail(at.str() + " pins " + tensor_name(x) +
             ", which no op of the task reads; expected a parameter the task reads");
      if (t.placement.unit == UnitKind::None)
        fail(at.str() + " pins " + tensor_name(x) +
             " but is not placed on a unit; expected a placement whose units keep it");
    }
  }

  void check_placement(TaskRef at, const Task& t, const Shape& primary) const {
    const Placement& pl = t.placement;
    auto w = [&] { return at.str() + " placement"; };  // built only for a message
    if (pl.unit == UnitKind::None) {
      if (!pl.index.empty() || pl.count != 1 || !pl.binding.empty())
        fail(w() + " has an index, count or binding but no unit; expected a unit kind");
      return;
    }
    if (pl.index.empty()) fail(w() + " has no index; expected the unit's coordinates");
    if (std::any_of(pl.index.begin(), pl.index.end(), [](int v) { return v < 0; }))
      fail(w() + " has a negative index");
    if (pl.count < 1) fail(w() + " count " + std::to_string(pl.count) + "; expected >= 1");
    if (!pl.binding.empty()) {
      if (pl.binding.size() != primary.size())
        fail(w() + " binding has " + std::to_string(pl.binding.size()) +
             " entries; expected one per axis of " + shape_str(primary));
      int64_t prod = 1;
      for (int64_t b : pl.binding) {
        if (b < 1) fail(w() + " binding has an entry below 1");
        prod *= b;
      }
      if (prod != pl.count)
        fail(w() + " binding multiplies to " + std::to_string(prod) + " units but count is " +
             std::to_string(pl.count));
    }
    if (!target_) return;
    auto it = target_->unit_extents.find(pl.unit);
    if (it == target_->unit_extents.end())
      fail(w() + ": " + target_->name + " has no unit of kind '" +
           std::string(unit_kind_name(pl.unit)) + "'");
    const std::vector<int>& ext = it->second;
    if (pl.index.size() != ext.size())
      fail(w() + " index has " + std::to_string(pl.index.size()) + " coordinates; a " +
           std::string(unit_kind_name(pl.unit)) + " of " + target_->name + " has " +
           std::to_string(ext.size()));
    for (size_t d = 0; d < ext.size(); ++d) {
      const int64_t last = pl.index[d] + (d + 1 == ext.size() ? pl.count - 1 : 0);
      if (pl.index[d] >= ext[d] || last >= ext[d])
        fail(w() + " uses " + std::string(unit_kind_name(pl.unit)) + " coordinate " +
             std::to_string(last) + " of axis " + std::to_string(d) + "; " + target_->name +
             " has " + std::to_string(ext[d]));
    }
  }

  void check_every_op_placed() const {
    std::vector<bool> placed(static_cast<size_t>(g_.num_ops()), false);
    for (const Stage& s : p_.stages)
      for (const Task& t : s.tasks)
        for (int op : t.ops) placed[static_cast<size_t>(op)] = true;
    for (int op = 0; op < g_.num_ops(); ++op)
      if (!placed[static_cast<size_t>(op)])
        fail("op " + op_name(op) + " is in no stage; expected every op in at least one task");
  }

  void collect_writes() {
    for (size_t si = 0; si < p_.stages.size(); ++si) {
      for (size_t ti = 0; ti < p_.stages[si].tasks.size(); ++ti) {
        const Task& t = p_.stages[si].tasks[ti];
        for (int w : written({si, ti}))
          writes_[w].push_back({{si, ti}, task_written_region(g_, t, w), t.reduction});
      }
    }
    for (int out : g_.output_tensors())
      if (!prefix_ && !writes_.count(out) && g_.tensor(out).producer >= 0)
        fail("graph output " + tensor_name(out) + " is written by no task");
  }

  std::string write_str(int tensor, const Write& w) const {
    return "region " + region_str(w.region) + " of " + tensor_name(tensor) + " (op " +
           op_name(g_.tensor(tensor).producer) + ", " + w.at.str() + ")";
  }

  // The writes of one tensor tile it exactly. Partial sums: the tasks splitting one region's
  // reduction write the same region, with ranges that partition the axis; such a group then
  // counts as one write of its region.
  void check_tiling(int tensor, const std::vector<Write>& writes) const {
    const Shape& shape = g_.tensor(tensor).shape;
    std::vector<const Write*> boxes, partial;
    for (const Write& w : writes) (w.reduction.active() ? partial : boxes).push_back(&w);
    // The partial sums grouped by region, the groups in the order of their regions flattened to
    // (lo, hi) per axis, each in the writes' order (what a map of such keys to lists gave, without its nodes).
    std::stable_sort(partial.begin(), partial.end(), [](const Write* a, const Write* b) {
      return flat_less(a->region, b->region);
    });
    std::optional<IterationSpace> s;  // of the tensor's producer, once it has a partial sum
    std::vector<const Write*> group;
    for (size_t begin = 0, end = 0; begin < partial.size(); begin = end) {
      for (end = begin + 1; end < partial.size() && partial[end]->region == partial[begin]->region;)
        ++end;
      group.assign(partial.begin() + static_cast<std::ptrdiff_t>(begin),
                   partial.begin() + static_cast<std::ptrdiff_t>(end));
      std::sort(group.begin(), group.end(), [](const Write* a, const Write* b) {
        return a->reduction.range.range.lo < b->reduction.range.range.lo;
      });
      if (!s) s = iteration_space(g_, g_.tensor(tensor).producer);
      int64_t extent = 0;
      for (const ReductionAxis& a : s->reduction_axes)
        if (a.name == group[0]->reduction.range.axis) extent = a.extent;
      int64_t next = 0;
      for (const Write* w : group) {
        const Interval r = w->reduction.range.range;
        if (r.lo != next)
          fail(write_str(tensor, *w) + ": partial sums over '" + w->reduction.range.axis + "' " +
               (r.lo < next ? "overlap" : "leave a gap") + " at " +
               std::to_string(std::min(r.lo, next)) +
               "; expected ranges that partition [0:" + std::to_string(extent) + ")");
        next = r.hi;
      }
      if (next != extent)
        fail(write_str(tensor, *group.back()) + ": partial sums over '" +
             group[0]->reduction.range.axis + "' stop at " + std::to_string(next) +
             "; expected ranges that partition [0:" + std::to_string(extent) + ")");
      boxes.push_back(group[0]);
    }
    if (boxes.size() == 1 && boxes[0]->region == full_region(shape)) return;
    // Overlaps: sweep along the axis with the most distinct starts.
    const size_t rank = shape.size();
    size_t axis = 0, most = 0;
    std::vector<int64_t> starts;
    for (size_t d = 0; d < rank; ++d) {
      starts.clear();
      for (const Write* w : boxes) starts.push_back(w->region[d].lo);
      std::sort(starts.begin(), starts.end());
      const size_t distinct =
          static_cast<size_t>(std::unique(starts.begin(), starts.end()) - starts.begin());
      if (distinct > most) most = distinct, axis = d;
    }
    std::vector<const Write*> order = boxes;
    std::sort(order.begin(), order.end(), [&](const Write* a, const Write* b) {
      return rank == 0 ? false : a->region[axis].lo < b->region[axis].lo;
    });
    std::vector<const Write*> active;
    int64_t volume = 0;
    for (const Write* w : order) {
      volume += region_numel(w->region);
      if (rank > 0)
        std::erase_if(active,
                      [&](const Write* a) { return a->region[axis].hi <= w->region[axis].lo; });
      for (const Write* a : active) {
        if (regions_overlap(a->region, w->region))
          fail(write_str(tensor, *w) + " overlaps " + write_str(tensor, *a) +
               "; expected every element written exactly once");
      }
      active.push_back(w);
    }
    const int64_t total = numel(shape);
    if (volume != total && !prefix_)
      fail(std::to_string(total - volume) + " of " + std::to_string(total) + " elements of " +
           tensor_name(tensor) + " (op " + op_name(g_.tensor(tensor).producer) +
           ") are written by no task" + gap_example(shape, boxes) +
           "; expected its regions to tile it");
  }

  // ", e.g. [a:b,...]": a box of the coordinate-compressed grid that no write covers (when the
  // grid is small enough to scan).
  static std::string gap_example(const Shape& shape, const std::vector<const Write*>& boxes) {
    std::vector<std::vector<int64_t>> cuts(shape.size());
    size_t cells = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      std::set<int64_t> c{0, shape[d]};
      for (const Write* w : boxes) c.insert({w->region[d].lo, w->region[d].hi});
      cuts[d].assign(c.begin(), c.end());
      cells *= cuts[d].size() - 1;
      if (cells > (size_t{1} << 20)) return "";
    }
    std::vector<size_t> idx(shape.size(), 0);
    for (size_t k = 0; k < cells; ++k) {
      Region cell;
      for (size_t d = 0; d < shape.size(); ++d)
        cell.push_back({cuts[d][idx[d]], cuts[d][idx[d] + 1]});
      const bool covered = std::any_of(boxes.begin(), boxes.end(), [&](const Write* w) {
        return region_contains(w->region, cell);
      });
      if (!covered) return ", e.g. " + region_str(cell);
      for (size_t d = shape.size(); d-- > 0;) {
        if (++idx[d] + 1 < cuts[d].size()) break;
        idx[d] = 0;
      }
    }
    return "";
  }

  // Every region a task reads from memory is written, entirely by tasks of earlier stages.
  // The regions op `op` of task `t` reads of each input, given what the task needs of every
  // tensor (`needed`): its own outputs' needed regions propagated through it alone (the task-wide
  // map is the union over every reader, which would blame one op for another's reads).
  std::vector<std::optional<Region>> op_input_regions(
      const Task& t, int op, const std::map<int, AccessRegion>& needed) const {
    const Op& o = g_.op(op);
    std::vector<std::optional<Region>> regs(o.inputs.size());
    if (t.ops.size() == 1) {  // the task's needs are this op's
      for (size_t i = 0; i < o.inputs.size(); ++i) {
        if (o.inputs[i] < 0) continue;
        const auto it = needed.find(o.inputs[i]);
        if (it != needed.end()) regs[i] = it->second.region;
      }
      return regs;
    }
    for (size_t k = 0; k < o.outputs.size(); ++k) {
      auto it = needed.find(o.outputs[k]);
      if (it == needed.end() || region_empty(it->second.region)) continue;
      const std::vector<Region> r = input_regions(g_, op, it->second.region, static_cast<int>(k));
      for (size_t i = 0; i < regs.size(); ++i)
        regs[i] = regs[i] ? region_union(*regs[i], r[i]) : r[i];
    }
    return regs;
  }

  // Every region a task reads from memory is written, entirely by tasks of earlier stages.
  void check_reads() const {
    for (size_t si = 0; si < p_.stages.size(); ++si) {
      for (size_t ti = 0; ti < p_.stages[si].tasks.size(); ++ti) {
        const TaskRef at{si, ti};
        const Task& t = task(at);
        // The task's ops, sorted (a set's lookups without its allocations).
        InlineVector<int, 16> ops(t.ops.begin(), t.ops.end());
        std::sort(ops.begin(), ops.end());
        auto inside = [&](int op) { return std::binary_search(ops.begin(), ops.end(), op); };
        // What task_needed_regions gives, with each region's access beside it (not copied out).
        const std::map<int, AccessRegion> needed = task_needed_access(g_, t);
        for (int op : t.ops) {
          const std::vector<int>& inputs = g_.op(op).inputs;
          bool external = false;
          for (int in : inputs) {
            const int producer = in < 0 ? -1 : g_.tensor(in).producer;
            external = external || (producer >= 0 && !inside(producer));
          }
          if (!external) continue;
          const std::vector<std::optional<Region>> regs = op_input_regions(t, op, needed);
          for (size_t i = 0; i < inputs.size(); ++i) {
            const int in = inputs[i];
            if (in < 0) continue;
            const int producer = g_.tensor(in).producer;
            if (producer < 0 || inside(producer)) continue;  // graph input or internal
            if (!regs[i] || region_empty(*regs[i])) continue;
            auto wit = writes_.find(in);
            if (wit == writes_.end())  // cannot happen once every op is placed; kept defensive
              fail("op " + op_name(op) + " (" + at.str() + ") reads " + tensor_name(in) +
                   ", which no task writes");
            const std::vector<Write>& ws = wit->second;
            // The writes are in stage order (collect_writes): those of stage `si` on start here.
            const size_t from = static_cast<size_t>(
                std::partition_point(ws.begin(), ws.end(),
                                     [&](const Write& w) { return w.at.stage < si; }) -
                ws.begin());
            if (const Write* w = first_overlap_from(in, ws, from, *regs[i]))
              fail("op " + op_name(op) + " (" + at.str() + ") reads region " +
                   region_str(*regs[i]) + " of " + tensor_name(in) + " before " + w->at.str() +
                   " writes " + region_str(w->region) +
                   " of it; expected its producers in an earlier stage");
            if (prefix_) check_read_written(op, at, in, *regs[i], ws, from);
          }
        }
      }
    }
  }

  // The index of the regions of `writes`, the writes of `tensor` (built on first use: a plan
  // whose every reader comes after all of its tensor's writes needs none).
  const RegionIndex& write_index(int tensor, const std::vector<Write>& writes) const {
    std::optional<RegionIndex>& index = write_index_[static_cast<size_t>(tensor)];
    if (!index) {
      index.emplace(g_.tensor(tensor).shape);
      for (const Write& w : writes) index->add(w.region);
    }
    return *index;
  }

  // The first of `writes` (the writes of `tensor`, in their order) from number `from` on that
  // overlaps `read`, or null: what a scan of writes[from..] finds first, from the index's
  // candidates (a superset of the overlapping writes; the least number among them that overlaps).
  const Write* first_overlap_from(int tensor, const std::vector<Write>& writes, size_t from,
                                  const Region& read) const {
    if (from == writes.size()) return nullptr;
    size_t first = writes.size();
    write_index(tensor, writes).for_each_candidate(read, [&](uint32_t i) {
      if (i >= from && i < first && regions_overlap(writes[i].region, read)) first = i;
    });
    return first < writes.size() ? &writes[first] : nullptr;
  }

  // A prefix: the region `read` of `tensor` that op `op` of task `at` reads is written whole by
  // earlier stages, writes[0..before) (the writes do not overlap, so their overlaps with it add up
  // to its volume; a partial-sum group counts once, by its first range). The index names each
  // write at most once, so the sum over its candidates is the scan's.
  void check_read_written(int op, TaskRef at, int tensor, const Region& read,
                          const std::vector<Write>& writes, size_t before) const {
    int64_t covered = 0;
    if (before > 0)
      write_index(tensor, writes).for_each_candidate(read, [&](uint32_t i) {
        const Write& w = writes[i];
        if (i < before && (!w.reduction.active() || w.reduction.range.range.lo == 0))
          covered += overlap_numel(w.region, read);
      });
    const int64_t total = region_numel(read);
    if (covered != total)
      fail("op " + op_name(op) + " (" + at.str() + ") reads region " + region_str(read) + " of " +
           tensor_name(tensor) + ", of which " + std::to_string(total - covered) + " of " +
           std::to_string(total) +
           " elements no earlier stage writes; expected its producers in an earlier stage");
  }

  const Plan& p_;
  const Graph& g_;
  const PlanTarget* target_;
  bool prefix_ = false;
  std::string where_;
  std::map<int, std::vector<Write>> writes_;
  // Per tensor, the index of its writes' regions (write_index).
  mutable std::vector<std::optional<RegionIndex>> write_index_ =
      std::vector<std::optional<RegionIndex>>(static_cast<size_t>(g_.num_tensors()));
  std::vector<std::vector<int>> written_;  // per task, in stage order
  std::vector<size_t> stage_offset_;       // index in written_ of each stage's first task
};

}  // namespace

void Plan::check(const Graph& g, const PlanTarget* target) const {
  // Every task's regions come from its ops' spaces: built once (unless a caller's memo lives).
  std::optional<IterationSpaceMemo> spaces;
  if (!IterationSpaceMemo::active(g)) spaces.emplace(g);
  Checker(*this, g, target, /*prefix=*/false).run();
}

void check_plan_prefix(const Graph& g, const Plan& plan, const PlanTarget* target) {
  std::optional<IterationSpaceMemo> spaces;
  if (!IterationSpaceMemo::active(g)) spaces.emplace(g);
  Checker(plan, g, target, /*prefix=*/true).run();
}

}  // namespace dgs
