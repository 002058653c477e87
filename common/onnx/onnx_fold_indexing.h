#pragma once
// Index-driven selection and scatter of load-time constant folding (onnx_fold_eval.h): Slice,
// GatherElements and ScatterND, as exporters write them to build masks and position tables
// (Swin's shifted-window attention mask is a ScatterND of slices into a zero tensor; BERT's
// token-type ids a GatherElements of a buffer). ONNX semantics of opsets 13-18. Internal to
// common/onnx.
#include <cstdint>
#include <string>
#include <vector>

#include "common/onnx/onnx_tensor.h"

namespace dgs {

// Slice with ONNX's clamping of starts and ends (empty `axes`: 0, 1, ...; empty `steps`: 1).
OnnxValue slice(const OnnxValue& a, const std::vector<int64_t>& starts,
                const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                std::vector<int64_t> steps, const std::string& what);

// GatherElements: out[i] = data[i with coordinate `axis` replaced by indices[i]] (negative
// indices count from the end). Throws dgs::Error naming `what` for an index out of range or
// ranks/dims that do not match.
OnnxValue gather_elements(const OnnxValue& data, const OnnxValue& indices, int64_t axis,
                          const std::string& what);

// ScatterND: a copy of `data` with the slices that `indices` (shape [..., k]) address replaced by
// (or, with `reduction` add / mul / max / min, combined with) `updates` (shape indices.shape[:-1]
// + data.shape[k:]), in index order. Throws dgs::Error naming `what` for an index out of range or
// shapes that do not match. The result is a parameter (OnnxValue::from_weight) only when `data`
// is one: exporters scatter large float constants into zeros to build attention masks.
OnnxValue scatter_nd(const OnnxValue& data, const OnnxValue& indices, const OnnxValue& updates,
                     const std::string& reduction, const std::string& what);

}  // namespace dgs
