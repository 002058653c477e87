#include "common/onnx/onnx_fold_einsum.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "common/onnx/onnx_fold_eval.h"
#include "common/onnx/onnx_fold_values.h"

namespace dgs {

std::optional<OnnxValue> fold_einsum(const std::string& equation,
                                     const std::vector<const OnnxValue*>& operands,
                                     const std::string& what) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq += c;
  }
  if (eq.find("...") != std::string::npos) return std::nullopt;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back() += c;
  }
  if (terms.size() != operands.size()) {
    throw Error(what + ": equation '" + equation + "' has " + std::to_string(terms.size()) +
                " operands; the node has " + std::to_string(operands.size()));
  }
  std::map<char, int64_t> size;
  std::map<char, int> count;
  for (size_t k = 0; k < terms.size(); ++k) {
    if (!operands[k] || terms[k].size() != operands[k]->dims.size()) {
      throw Error(
          what + ": equation term '" + terms[k] + "' does not match operand " + std::to_string(k) +
          (operands[k] ? " of shape " + shape_str(operands[k]->dims) : std::string(" (omitted)")));
    }
    for (size_t d = 0; d < terms[k].size(); ++d) {
      const char c = terms[k][d];
      if (!std::isalpha(static_cast<unsigned char>(c))) {
        throw Error(what + ": equation '" + equation + "' has the character '" + std::string(1, c) +
                    "'; expected letters");
      }
      const int64_t n = operands[k]->dims[d];
      if (size.count(c) && size[c] != n) {
        throw Error(what + ": equation letter '" + std::string(1, c) + "' has sizes " +
                    std::to_string(size[c]) + " and " + std::to_string(n));
      }
      size[c] = n;
      ++count[c];
    }
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else {
    for (const auto& [c, n] : count) {
      if (n == 1) out += c;
    }
  }
  std::string letters = out;  // output letters first, then the summed ones
  for (const auto& [c, n] : size) {
    if (out.find(c) == std::string::npos) letters += c;
  }
  Shape out_dims, all_dims;
  for (char c : out) {
    if (!size.count(c)) {
      throw Error(what + ": output letter '" + std::string(1, c) + "' of '" + equation +
                  "' is in no operand");
    }
    out_dims.push_back(size[c]);
  }
  for (char c : letters) all_dims.push_back(size[c]);
  check_fold_size(out_dims);
  int64_t iterations = 1;
  for (int64_t d : all_dims) {
    if (__builtin_mul_overflow(iterations, d, &iterations) || iterations > kOnnxMaxFoldElements)
      return std::nullopt;
  }
  // Each operand's flat index as a sum over letters of (letter index) x (operand stride).
  std::vector<std::vector<int64_t>> stride(operands.size(),
                                           std::vector<int64_t>(letters.size(), 0));
  bool from_weight = false;
  bool all_integer = true;
  for (size_t k = 0; k < operands.size(); ++k) {
    const std::vector<int64_t> st = strides_of(operands[k]->dims);
    for (size_t d = 0; d < terms[k].size(); ++d) {
      stride[k][letters.find(terms[k][d])] += st[d];
    }
    from_weight |= operands[k]->from_weight;
    all_integer &= !operands[k]->is_float();
  }
  const int64_t out_count = numel(out_dims), inner = out_count == 0 ? 0 : iterations / out_count;
  std::vector<double> acc(static_cast<size_t>(out_count), 0.0);
  Shape idx(letters.size(), 0);
  for (int64_t it = 0; it < iterations; ++it) {
    double p = 1;
    for (size_t k = 0; k < operands.size(); ++k) {
      int64_t flat = 0;
      for (size_t d = 0; d < letters.size(); ++d) flat += idx[d] * stride[k][d];
      p *= operands[k]->at(flat);
    }
    acc[static_cast<size_t>(inner == 0 ? 0 : it / inner)] += p;
    for (size_t d = letters.size(); d-- > 0;) {
      if (++idx[d] < all_dims[d]) break;
      idx[d] = 0;
    }
  }
  OnnxValue r = empty_like(*operands[0], out_dims);
  r.from_weight = from_weight;
  for (double v : acc) {
    if (all_integer)
      r.i.push_back(static_cast<int64_t>(v));
    else
      r.f.push_back(v);
  }
  return r;
}

}  // namespace dgs
