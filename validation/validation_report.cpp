// gpu_validate's tables and summary (see validation_report.h).
#include "validation/validation_report.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "common/gpumodel/kernel_family.h"
#include "common/util/error.h"

namespace dgs::validation {

double ValidationRow::rel_error() const {
  return measured_ms > 0 ? predicted_ms / measured_ms - 1.0 : 0.0;
}
double ValidationRow::rel_error_before() const {
  return measured_ms > 0 ? predicted_before_ms / measured_ms - 1.0 : 0.0;
}

namespace {

GroupSummary summarize_group(const std::string& name, const std::vector<const ValidationRow*>& r) {
  GroupSummary s;
  s.group = name;
  s.cases = static_cast<int>(r.size());
  if (r.empty()) return s;
  for (const ValidationRow* x : r) {
    const double e = std::abs(x->rel_error()), b = std::abs(x->rel_error_before());
    s.mae += e;
    s.within10 += e <= 0.10 ? 1 : 0;
    s.within25 += e <= 0.25 ? 1 : 0;
    s.mae_before += b;
    s.within10_before += b <= 0.10 ? 1 : 0;
    s.within25_before += b <= 0.25 ? 1 : 0;
  }
  const double n = static_cast<double>(r.size());
  s.mae /= n, s.within10 /= n, s.within25 /= n;
  s.mae_before /= n, s.within10_before /= n, s.within25_before /= n;
  return s;
}

}  // namespace

std::vector<GroupSummary> summarize(const std::vector<ValidationRow>& rows) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ValidationRow*>> by;
  std::vector<const ValidationRow*> kernels, predictions, e2e;
  for (const ValidationRow& r : rows) {
    if (!by.count(r.family)) order.push_back(r.family);
    by[r.family].push_back(&r);
    (r.end_to_end ? e2e : kernels).push_back(&r);
    if (!r.end_to_end && !r.calibration) predictions.push_back(&r);
  }
  std::vector<GroupSummary> out;
  for (const std::string& f : order) out.push_back(summarize_group(f, by[f]));
  out.push_back(summarize_group("all kernels", kernels));
  if (predictions.size() != kernels.size())
    out.push_back(summarize_group("all kernels, predictions", predictions));
  if (!e2e.empty()) out.push_back(summarize_group("end to end", e2e));
  return out;
}

std::vector<PairResult> compare_pairs(const std::vector<ValidationRow>& rows,
                                      const std::vector<CasePair>& pairs) {
  std::map<std::string, const ValidationRow*> by;
  for (const ValidationRow& r : rows) by[r.id] = &r;
  std::vector<PairResult> out;
  for (const CasePair& p : pairs) {
    if (!by.count(p.a) || !by.count(p.b)) continue;
    const ValidationRow& a = *by[p.a];
    const ValidationRow& b = *by[p.b];
    PairResult r;
    r.pair = p;
    r.measured_ratio = a.measured_ms / b.measured_ms;
    r.predicted_ratio = a.predicted_ms / b.predicted_ms;
    r.predicted_ratio_before = a.predicted_before_ms / b.predicted_before_ms;
    r.sign_right = (r.measured_ratio > 1) == (r.predicted_ratio > 1);
    r.sign_right_before = (r.measured_ratio > 1) == (r.predicted_ratio_before > 1);
    out.push_back(r);
  }
  return out;
}

Table rows_table(const std::vector<ValidationRow>& rows) {
  Table t({"id", "family", "shape", "measured_ms", "predicted_ms", "rel_error", "before_ms",
           "rel_error_before", "role", "source", "model_algorithm"});
  t.precision = 4;
  for (const ValidationRow& r : rows)
    t.add_row({r.id, r.family, r.shape, r.measured_ms, r.predicted_ms, r.rel_error(),
               r.predicted_before_ms, r.rel_error_before(),
               std::string(r.calibration ? "calibration point" : "prediction"), r.source,
               r.model_algorithm});
  return t;
}

Table summary_table(const std::vector<GroupSummary>& s) {
  Table t({"group", "cases", "mae", "within_10pct", "within_25pct", "mae_before",
           "within_10pct_before", "within_25pct_before"});
  for (const GroupSummary& g : s)
    t.add_row({g.group, int64_t{g.cases}, g.mae, g.within10, g.within25, g.mae_before,
               g.within10_before, g.within25_before});
  return t;
}

Table pairs_table(const std::vector<PairResult>& p) {
  Table t({"comparison", "a", "b", "measured_a_over_b", "predicted_a_over_b", "sign_right",
           "predicted_before", "sign_right_before"});
  for (const PairResult& r : p)
    t.add_row({r.pair.what, r.pair.a, r.pair.b, r.measured_ratio, r.predicted_ratio,
               std::string(r.sign_right ? "yes" : "NO"), r.predicted_ratio_before,
               std::string(r.sign_right_before ? "yes" : "NO")});
  return t;
}

bool is_calibration_point(const GpuSpec& spec, const std::string& id) {
  for (std::string_view k : gpu_efficiency::suite_model_keys()) {
    const auto it = spec.sources.find("efficiency." + std::string(k));
    if (it == spec.sources.end()) continue;
    if (it->second.find("calibrated") != std::string::npos &&
        it->second.find("case " + id) != std::string::npos)
      return true;
  }
  return false;
}

std::vector<ValidationRow> priced_rows(const std::vector<ValidationCase>& cases,
                                       const std::map<std::string, ReplayMeasurement>& measured,
                                       const GpuSpec& spec) {
  std::vector<ValidationRow> rows;
  for (const ValidationCase& c : cases) {
    const auto it = measured.find(c.id);
    if (it == measured.end()) continue;
    ValidationRow r;
    r.id = c.id;
    r.family = c.family;
    r.shape = c.shape;
    r.end_to_end = c.end_to_end;
    r.measured_ms = it->second.measured_ms;
    r.source = it->second.source;
    r.predicted_ms = c.predict_ms(spec);
    r.predicted_before_ms = c.predict_before_ms(spec);
    r.calibration = is_calibration_point(spec, c.id);
    if (c.model_algorithm) r.model_algorithm = c.model_algorithm(spec);
    rows.push_back(std::move(r));
  }
  return rows;
}

double KernelRow::rel_error() const {
  return measured_ms > 0 ? predicted_ms / measured_ms - 1.0 : 0.0;
}

std::vector<KernelRow> priced_kernel_rows(const std::vector<ValidationCase>& cases,
                                          const std::map<std::string, ReplayMeasurement>& measured,
                                          const GpuSpec& spec) {
  std::vector<KernelRow> rows;
  for (const ValidationCase& c : cases) {
    const std::string prefix = kernel_row_id(c.id, 0).substr(0, c.id.size() + 2);
    std::map<size_t, const ReplayMeasurement*> mine;  // by index
    for (auto it = measured.lower_bound(prefix);
         it != measured.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
      mine[std::stoul(it->first.substr(prefix.size()))] = &it->second;
    if (mine.empty()) continue;
    if (!c.predict_kernels)
      throw Error("case '" + c.id + "' is not timed kernel by kernel (kernel rows given)");
    const std::vector<KernelPrediction> p = c.predict_kernels(spec);
    for (const auto& [i, m] : mine) {
      if (i >= p.size())
        throw Error("kernel row '" + kernel_row_id(c.id, i) + "': the schedule on " + spec.file +
                    " has " + std::to_string(p.size()) + " kernels");
      // A row that names its kernel (a live run's) must name the kernel priced at its index.
      const size_t tag = m->source.find(kKernelNameTag);
      if (tag != std::string::npos) {
        const std::string name = m->source.substr(tag + std::string(kKernelNameTag).size());
        if (name != p[i].name)
          throw Error("kernel row '" + kernel_row_id(c.id, i) + "' was measured on kernel '" +
                      name + "'; the schedule on " + spec.file + " has '" + p[i].name +
                      "' there (replay with the run's --hw)");
      }
      KernelRow r;
      r.id = kernel_row_id(c.id, i);
      r.case_id = c.id;
      r.index = i;
      r.name = p[i].name;
      r.detail = p[i].detail;
      r.measured_ms = m->measured_ms;
      r.predicted_ms = p[i].predicted_ms;
      r.source = m->source;
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

Table kernel_rows_table(const std::vector<KernelRow>& rows) {
  Table t({"id", "case", "index", "kernel", "measured_ms", "predicted_ms", "rel_error", "model",
           "source"});
  t.precision = 4;
  for (const KernelRow& r : rows)
    t.add_row({r.id, r.case_id, static_cast<int64_t>(r.index), r.name, r.measured_ms,
               r.predicted_ms, r.rel_error(), r.detail, r.source});
  return t;
}

std::string kernel_summary(const std::vector<KernelRow>& rows) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const KernelRow*>> by;
  for (const KernelRow& r : rows) {
    if (!by.count(r.case_id)) order.push_back(r.case_id);
    by[r.case_id].push_back(&r);
  }
  std::string out;
  for (const std::string& c : order) {
    double mae = 0, mean = 0, measured = 0, predicted = 0;
    for (const KernelRow* r : by[c]) {
      mae += std::abs(r->rel_error());
      mean += r->rel_error();
      measured += r->measured_ms;
      predicted += r->predicted_ms;
    }
    const double n = static_cast<double>(by[c].size());
    char line[256];
    std::snprintf(line, sizeof line,
                  "kernels of %s: %zu timed alone, mae %.4f, signed mean %+.4f; sum measured %.4f "
                  "ms, predicted %.4f ms\n",
                  c.c_str(), by[c].size(), mae / n, mean / n, measured, predicted);
    out += line;
  }
  return out;
}

Table replay_table(const std::vector<ValidationRow>& rows, const std::vector<KernelRow>& kernels) {
  Table t({"id", "measured_ms", "source"});
  t.precision = 6;
  for (const ValidationRow& r : rows) t.add_row({r.id, r.measured_ms, r.source});
  for (const KernelRow& r : kernels) t.add_row({r.id, r.measured_ms, r.source});
  return t;
}

namespace {

// Whether `id` names kernel i of a known case: "<case>/k<digits>" (kernel_row_id).
bool is_kernel_row_id(const std::string& id, const std::set<std::string>& cases) {
  const size_t slash = id.rfind("/k");
  if (slash == std::string::npos || slash + 2 >= id.size() || !cases.count(id.substr(0, slash)))
    return false;
  const std::string digits = id.substr(slash + 2);
  return digits.size() <= 6 && digits.find_first_not_of("0123456789") == std::string::npos &&
         (digits == "0" || digits[0] != '0');
}

}  // namespace

std::map<std::string, ReplayMeasurement> read_replay(const std::string& text,
                                                     const std::string& origin,
                                                     const std::vector<std::string>& known) {
  const std::vector<CsvRecord> recs = parse_csv_records(text, origin);
  if (recs.empty()) throw Error(origin + ": empty (expected a header id,measured_ms,source)");
  const std::vector<std::string>& h = recs.front().fields;
  if (h != std::vector<std::string>{"id", "measured_ms", "source"})
    throw Error(origin + ":" + std::to_string(recs.front().line) +
                ": header must be id,measured_ms,source");
  const std::set<std::string> ids(known.begin(), known.end());
  std::map<std::string, ReplayMeasurement> out;
  for (size_t i = 1; i < recs.size(); ++i) {
    const CsvRecord& r = recs[i];
    const std::string where = origin + ":" + std::to_string(r.line);
    const std::string& id = r.fields.at(0);
    if (!ids.count(id) && !is_kernel_row_id(id, ids))
      throw Error(where + ": unknown case '" + id + "' (see gpu_validate --list)");
    if (out.count(id)) throw Error(where + ": case '" + id + "' appears twice");
    double ms = 0;
    size_t used = 0;
    try {
      ms = std::stod(r.fields.at(1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != r.fields.at(1).size() || !(ms > 0) || !std::isfinite(ms))
      throw Error(where + ": measured_ms '" + r.fields.at(1) + "' is not a positive number");
    if (r.fields.at(2).empty()) throw Error(where + ": empty source");
    out[id] = {ms, r.fields.at(2)};
  }
  return out;
}

}  // namespace dgs::validation
