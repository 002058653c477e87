#include <string>

#include "common/graph/shape_inference_internal.h"

// Shape inference of element-wise and logical operators (NumPy broadcasting).
namespace dgs::shape_inference_internal {

// ------------------------------------------------------------------ element-wise
void infer_unary(Ctx& c) {
  c.set_output(0, c.shape(0), c.dtype(0));
}

void infer_clip(Ctx& c) {
  for (int i = 1; i < 3; ++i) {
    if (c.has_input(i) && numel(c.shape(i)) != 1) {
      c.fail(std::string(i == 1 ? "min" : "max") + " has shape " + shape_str(c.shape(i)),
             "a scalar");
    }
  }
  c.set_output(0, c.shape(0), c.dtype(0));
}

void infer_dropout(Ctx& c) {
  c.set_output(0, c.shape(0), c.dtype(0));
  c.set_output(1, c.shape(0), DType::Bool);
}

void infer_cast(Ctx& c) {
  if (!c.attrs().has("to")) c.fail("attribute 'to' is missing", "the target data type");
  c.set_output(0, c.shape(0), dtype_attr(c, "to", c.attrs().get_int("to", 1)));
}

void infer_binary(Ctx& c) {
  Shape s = c.shape(0);
  const DType d = c.dtype(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    if (c.op().kind != OpKind::Pow && c.dtype(i) != d) {
      c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.dtype(i))) +
                 " while input 0 is " + std::string(dtype_name(d)),
             "inputs of one data type");
    }
    s = broadcast(c, s, c.shape(i));
  }
  c.set_output(0, s, d);
}

namespace {

// Equal: two inputs of one dtype, broadcast, bool result. And: bool inputs. Not: bool input.
// IsNaN: a float input. Where: a bool condition and two values of one dtype, all broadcast.
void require_dtype(Ctx& c, int i, bool ok, const std::string& expected) {
  if (!ok) {
    c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.dtype(i))), expected);
  }
}

}  // namespace

void infer_logic(Ctx& c) {
  const OpKind k = c.op().kind;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (k == OpKind::And || k == OpKind::Not || (k == OpKind::Where && i == 0)) {
      require_dtype(c, i, c.dtype(i) == DType::Bool, "a bool tensor");
    } else if (k == OpKind::IsNaN) {
      require_dtype(c, i, c.dtype(i) == DType::F32 || c.dtype(i) == DType::F16, "a float tensor");
    }
  }
  const int first_value = k == OpKind::Where ? 1 : 0;
  const DType d = c.dtype(first_value);
  Shape s = c.shape(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    if (i > first_value && c.dtype(i) != d) {
      c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.dtype(i))) +
                 " while input " + std::to_string(first_value) + " is " +
                 std::string(dtype_name(d)),
             "inputs of one data type");
    }
    s = broadcast(c, s, c.shape(i));
  }
  c.set_output(0, s, k == OpKind::Where ? d : DType::Bool);
}

}  // namespace dgs::shape_inference_internal
