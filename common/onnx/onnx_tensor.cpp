#include "common/onnx/onnx_tensor.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <type_traits>

#include "common/graph/onnx_dtype.h"
#include "common/onnx/onnx_io.h"

namespace dgs {

namespace {

template <typename T>
std::vector<T> raw_values(const std::string& raw, int64_t n, const std::string& what) {
  if (static_cast<int64_t>(raw.size()) != n * static_cast<int64_t>(sizeof(T))) {
    throw Error(what + ": raw_data holds " + std::to_string(raw.size()) + " bytes; expected " +
                std::to_string(n * static_cast<int64_t>(sizeof(T))));
  }
  std::vector<T> v(static_cast<size_t>(n));
  if (n > 0) std::memcpy(v.data(), raw.data(), raw.size());
  return v;
}

}  // namespace

// IEEE 754 binary16 <-> binary32 (round to nearest even), for float16 constants.
uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

Shape dims_of(const onnx::TensorProto& t) {
  return Shape(t.dims().begin(), t.dims().end());
}

bool has_external_data(const onnx::TensorProto& t) {
  return t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL;
}

// The values of an integer tensor (int64 or int32).
std::vector<int64_t> int_values(const onnx::TensorProto& t, const std::string& what) {
  const int64_t n = numel(dims_of(t));
  if (has_external_data(t)) throw Error(what + ": integer tensor with external data");
  if (t.data_type() == onnx_type::kInt64) {
    if (t.has_raw_data()) return raw_values<int64_t>(t.raw_data(), n, what);
    if (t.int64_data_size() != n) {
      throw Error(what + ": " + std::to_string(t.int64_data_size()) + " int64 values for shape " +
                  shape_str(dims_of(t)));
    }
    return std::vector<int64_t>(t.int64_data().begin(), t.int64_data().end());
  }
  std::vector<int32_t> v32;
  if (t.has_raw_data()) {
    v32 = raw_values<int32_t>(t.raw_data(), n, what);
  } else {
    if (t.int32_data_size() != n) {
      throw Error(what + ": " + std::to_string(t.int32_data_size()) + " int32 values for shape " +
                  shape_str(dims_of(t)));
    }
    v32.assign(t.int32_data().begin(), t.int32_data().end());
  }
  return std::vector<int64_t>(v32.begin(), v32.end());
}

// The values of a float tensor (float32 or float16) as float32.
std::vector<float> float_values(const onnx::TensorProto& t, const std::string& what) {
  const int64_t n = numel(dims_of(t));
  if (has_external_data(t)) throw Error(what + ": float constant with external data");
  if (t.data_type() == onnx_type::kFloat) {
    if (t.has_raw_data()) return raw_values<float>(t.raw_data(), n, what);
    if (t.float_data_size() != n) {
      throw Error(what + ": " + std::to_string(t.float_data_size()) + " float values for shape " +
                  shape_str(dims_of(t)));
    }
    return std::vector<float>(t.float_data().begin(), t.float_data().end());
  }
  std::vector<float> out;
  if (t.has_raw_data()) {
    for (uint16_t h : raw_values<uint16_t>(t.raw_data(), n, what)) out.push_back(half_to_float(h));
  } else {
    if (t.int32_data_size() != n) {
      throw Error(what + ": " + std::to_string(t.int32_data_size()) + " float16 values for shape " +
                  shape_str(dims_of(t)));
    }
    for (int32_t h : t.int32_data()) out.push_back(half_to_float(static_cast<uint16_t>(h)));
  }
  return out;
}

bool has_data(const onnx::TensorProto& t) {
  return t.has_raw_data() || t.float_data_size() > 0 || t.int32_data_size() > 0 ||
         t.int64_data_size() > 0 || t.double_data_size() > 0 || t.uint64_data_size() > 0 ||
         numel(dims_of(t)) == 0;
}

int64_t raw_element_bytes(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto_DataType_UINT8:
    case onnx::TensorProto_DataType_INT8:
    case onnx::TensorProto_DataType_BOOL:
      return 1;
    case onnx::TensorProto_DataType_UINT16:
    case onnx::TensorProto_DataType_INT16:
    case onnx::TensorProto_DataType_FLOAT16:
    case onnx::TensorProto_DataType_BFLOAT16:
      return 2;
    case onnx::TensorProto_DataType_FLOAT:
    case onnx::TensorProto_DataType_INT32:
    case onnx::TensorProto_DataType_UINT32:
      return 4;
    case onnx::TensorProto_DataType_INT64:
    case onnx::TensorProto_DataType_DOUBLE:
    case onnx::TensorProto_DataType_UINT64:
      return 8;
    default:
      return 0;
  }
}

namespace {

// The number of values in the typed field an element type uses (without raw_data).
int64_t typed_value_count(const onnx::TensorProto& t) {
  switch (t.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      return t.float_data_size();
    case onnx::TensorProto_DataType_INT64:
      return t.int64_data_size();
    case onnx::TensorProto_DataType_DOUBLE:
      return t.double_data_size();
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_UINT64:
      return t.uint64_data_size();
    case onnx::TensorProto_DataType_STRING:
      return t.string_data_size();
    default:
      return t.int32_data_size();
  }
}

}  // namespace

void check_tensor_data_size(const onnx::TensorProto& t, const std::string& what) {
  if (has_external_data(t)) return;
  const Shape dims = dims_of(t);
  for (int64_t d : dims) {
    if (d < 0) throw OnnxInvalidModel(what + ": negative dimension in dims " + shape_str(dims));
  }
  const int64_t n = numel(dims);
  const std::string type = onnx_type_name(t.data_type());
  if (t.has_raw_data()) {
    const int64_t bytes = raw_element_bytes(t.data_type());
    if (bytes > 0 && static_cast<int64_t>(t.raw_data().size()) != n * bytes) {
      throw OnnxInvalidModel(what + ": raw_data holds " + std::to_string(t.raw_data().size()) +
                             " bytes; dims " + shape_str(dims) + " of " + type + " need " +
                             std::to_string(n * bytes));
    }
    return;
  }
  const int64_t count = typed_value_count(t);
  if (count == 0) return;  // no data: a declared tensor (weight-free file)
  if (count != n) {
    throw OnnxInvalidModel(what + ": " + std::to_string(count) + " stored values; dims " +
                           shape_str(dims) + " of " + type + " need " + std::to_string(n));
  }
}

bool is_float_elem_type(int32_t elem_type) {
  return elem_type == onnx::TensorProto_DataType_FLOAT ||
         elem_type == onnx::TensorProto_DataType_FLOAT16 ||
         elem_type == onnx::TensorProto_DataType_DOUBLE;
}

bool is_foldable_elem_type(int32_t elem_type) {
  return is_float_elem_type(elem_type) ||
         (raw_element_bytes(elem_type) > 0 && elem_type != onnx::TensorProto_DataType_BFLOAT16);
}

bool OnnxValue::is_float() const {
  return is_float_elem_type(elem_type);
}

OnnxValue read_onnx_value(const onnx::TensorProto& t, const std::string& what) {
  OnnxValue v;
  v.elem_type = t.data_type();
  v.dims = dims_of(t);
  if (has_external_data(t)) throw Error(what + ": tensor with external data");
  if (!is_foldable_elem_type(v.elem_type)) {
    throw Error(what + ": element type " + onnx_type_name(v.elem_type) + " cannot be folded");
  }
  check_tensor_data_size(t, what);
  const int64_t n = v.numel();
  const auto un = static_cast<size_t>(n);
  const std::string& raw = t.raw_data();
  auto from_raw = [&](auto sample) {
    using T = decltype(sample);
    std::vector<T> r = raw_values<T>(raw, n, what);
    if constexpr (std::is_floating_point_v<T>) {
      v.f.assign(r.begin(), r.end());
    } else {
      v.i.assign(r.begin(), r.end());
    }
  };
  switch (v.elem_type) {
    case onnx::TensorProto_DataType_FLOAT:
      if (t.has_raw_data()) {
        from_raw(float{});
      } else {
        v.f.assign(t.float_data().begin(), t.float_data().end());
      }
      break;
    case onnx::TensorProto_DataType_DOUBLE:
      if (t.has_raw_data()) {
        from_raw(double{});
      } else {
        v.f.assign(t.double_data().begin(), t.double_data().end());
      }
      break;
    case onnx::TensorProto_DataType_FLOAT16:
      for (float x : float_values(t, what)) v.f.push_back(x);
      break;
    case onnx::TensorProto_DataType_INT64:
      if (t.has_raw_data()) {
        from_raw(int64_t{});
      } else {
        v.i.assign(t.int64_data().begin(), t.int64_data().end());
      }
      break;
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_UINT64:
      if (t.has_raw_data()) {
        if (v.elem_type == onnx::TensorProto_DataType_UINT32) {
          from_raw(uint32_t{});
        } else {
          from_raw(uint64_t{});
        }
      } else {
        for (uint64_t x : t.uint64_data()) v.i.push_back(static_cast<int64_t>(x));
      }
      break;
    default:  // int32, int16, int8, uint16, uint8, bool: int32_data or raw bytes
      if (t.has_raw_data()) {
        switch (v.elem_type) {
          case onnx::TensorProto_DataType_INT32:
            from_raw(int32_t{});
            break;
          case onnx::TensorProto_DataType_INT16:
            from_raw(int16_t{});
            break;
          case onnx::TensorProto_DataType_UINT16:
            from_raw(uint16_t{});
            break;
          case onnx::TensorProto_DataType_INT8:
            from_raw(int8_t{});
            break;
          default:
            from_raw(uint8_t{});
            break;
        }
      } else {
        v.i.assign(t.int32_data().begin(), t.int32_data().end());
      }
      break;
  }
  if ((v.is_float() ? v.f.size() : v.i.size()) != un) {
    throw Error(what + ": holds no values for dims " + shape_str(v.dims));
  }
  return v;
}

void write_onnx_value(const OnnxValue& v, const std::string& name, onnx::TensorProto* t) {
  t->Clear();
  t->set_name(name);
  t->set_data_type(v.elem_type);
  for (int64_t d : v.dims) t->add_dims(d);
  switch (v.elem_type) {
    case onnx::TensorProto_DataType_FLOAT:
      for (double x : v.f) t->add_float_data(static_cast<float>(x));
      break;
    case onnx::TensorProto_DataType_DOUBLE:
      for (double x : v.f) t->add_double_data(x);
      break;
    case onnx::TensorProto_DataType_FLOAT16:
      for (double x : v.f) t->add_int32_data(float_to_half(static_cast<float>(x)));
      break;
    case onnx::TensorProto_DataType_INT64:
      for (int64_t x : v.i) t->add_int64_data(x);
      break;
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_UINT64:
      for (int64_t x : v.i) t->add_uint64_data(static_cast<uint64_t>(x));
      break;
    default:
      for (int64_t x : v.i) t->add_int32_data(static_cast<int32_t>(x));
      break;
  }
}

// A Constant node's value (value, value_float(s), value_int(s)); nothing for sparse or string
// values, which are left to the loader's error.
std::optional<onnx::TensorProto> constant_node_tensor(const onnx::NodeProto& n) {
  onnx::TensorProto t;
  for (const auto& a : n.attribute()) {
    if (a.name() == "value") return a.t();
    if (a.name() == "value_float") {
      t.set_data_type(onnx::TensorProto_DataType_FLOAT);
      t.add_float_data(a.f());
      return t;
    }
    if (a.name() == "value_floats") {
      t.set_data_type(onnx::TensorProto_DataType_FLOAT);
      t.add_dims(a.floats_size());
      for (float f : a.floats()) t.add_float_data(f);
      return t;
    }
    if (a.name() == "value_int") {
      t.set_data_type(onnx::TensorProto_DataType_INT64);
      t.add_int64_data(a.i());
      return t;
    }
    if (a.name() == "value_ints") {
      t.set_data_type(onnx::TensorProto_DataType_INT64);
      t.add_dims(a.ints_size());
      for (int64_t v : a.ints()) t.add_int64_data(v);
      return t;
    }
  }
  return std::nullopt;
}

}  // namespace dgs
