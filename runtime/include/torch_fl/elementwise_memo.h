// What a TensorIterator op's meta function decided, remembered for the call
// model code makes most: every tensor operand of one shape and contiguous.
//
// A generated kernel learns its result's shape, dtype and PyTorch's argument
// checks by running the overload on meta tensors. For a tiny op that costs as
// much as CPU's whole op (two meta tensors, a TensorIterator build, a third
// meta tensor), and it was most of what a binary op cost over a unary one
// (issue #33). For TensorIterator ops the answer is predictable:
// - operands of one shape, all contiguous, make a contiguous result of that
//   shape (TensorIterator's fast setup allocates it so);
// - its dtype and every check depend only on the operands' dtypes (and their
//   conjugate/negative bits), whether they are 0-dim (lerp checks its weight's
//   dtype only when it is not), the Scalar arguments and the default dtype.
//   Every operand is on the device: a CPU scalar tensor is TensorIterator's
//   own check (how many it allows), so such a call always runs meta.
// So the wrapper keeps, per kernel and thread, the last such key whose meta
// call passed, and the result dtype meta gave it. A call with the same key
// skips meta; any other call runs it (and a call that raises is not
// remembered, so it raises again next time).
//
// The planner uses this only for TensorIterator overloads whose arguments are
// Tensors and Scalars (plan_ops.py): an int dim, a string mode or an optional
// changes what meta computes in ways the key does not hold.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/DefaultDtype.h>
#include <c10/core/Scalar.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace torch_fl {

// A functional kernel's expected result: the meta tensor its meta function
// computed, or (the memo's case) a contiguous tensor of `sizes` in `dtype`.
struct ExpectedResult {
  at::Tensor meta;         // defined when meta ran
  at::IntArrayRef sizes;   // otherwise: the first operand's sizes (it outlives the kernel call)
  c10::ScalarType dtype = c10::ScalarType::Undefined;

  c10::ScalarType scalar_type() const { return meta.defined() ? meta.scalar_type() : dtype; }
};

class ElementwiseMemo {
 public:
  static constexpr size_t kMaxTensors = 4;
  static constexpr size_t kMaxScalars = 4;
  using Tensors = std::initializer_list<const at::Tensor*>;
  using Scalars = std::initializer_list<const c10::Scalar*>;

  // A functional overload: `meta_call()` returns the meta result.
  template <typename MetaCall>
  ExpectedResult result(Tensors tensors, Scalars scalars, MetaCall&& meta_call) {
    Key key;
    const bool keyed = make_key(tensors, scalars, &key);
    if (keyed && valid_ && key == key_) return ExpectedResult{at::Tensor(), (*tensors.begin())->sizes(), dtype_};
    ExpectedResult expected{std::forward<MetaCall>(meta_call)()};
    // Only what the fast setup gives is remembered: anything else would be a
    // TensorIterator this memo does not understand.
    if (keyed && expected.meta.is_contiguous() && expected.meta.sizes() == (*tensors.begin())->sizes()) {
      remember(key, expected.meta.scalar_type());
    }
    return expected;
  }

  // An in-place overload: `meta_call()` runs its checks on meta (self's shape
  // and dtype are the result's).
  template <typename MetaCall>
  void check(Tensors tensors, Scalars scalars, MetaCall&& meta_call) {
    Key key;
    const bool keyed = make_key(tensors, scalars, &key);
    if (keyed && valid_ && key == key_) return;
    std::forward<MetaCall>(meta_call)();
    if (keyed) remember(key, (*tensors.begin())->scalar_type());
  }

 private:
  struct Key {
    std::array<int8_t, kMaxTensors> dtypes{};
    std::array<uint8_t, kMaxTensors> bits{};    // conjugate, negative
    std::array<int8_t, kMaxScalars> scalar_types{};
    std::array<uint64_t, kMaxScalars> scalar_values{};  // the value's bits: equal bits, equal number
    int8_t default_dtype = 0;
    bool zero_dim = false;
    uint8_t tensors = 0;
    uint8_t scalars = 0;

    bool operator==(const Key& other) const {
      return dtypes == other.dtypes && bits == other.bits && scalar_types == other.scalar_types &&
             scalar_values == other.scalar_values && default_dtype == other.default_dtype &&
             zero_dim == other.zero_dim && tensors == other.tensors && scalars == other.scalars;
    }
  };

  // False when the call is not the remembered kind: operands of other shapes
  // or strides, an operand not on the device (a CPU scalar tensor), a Python
  // number (its promotion follows the default dtype in ways that depend on the
  // other operand), a symbolic or complex Scalar.
  static bool make_key(Tensors tensors, Scalars scalars, Key* key) {
    if (tensors.size() == 0 || tensors.size() > kMaxTensors || scalars.size() > kMaxScalars) return false;
    const at::IntArrayRef sizes = (*tensors.begin())->sizes();
    size_t i = 0;
    for (const at::Tensor* tensor : tensors) {
      const c10::TensorImpl* impl = tensor->unsafeGetTensorImpl();
      if (impl->device_type() != c10::DeviceType::PrivateUse1 || impl->layout() != c10::kStrided ||
          impl->is_wrapped_number() || !impl->is_contiguous() || impl->sizes() != sizes) {
        return false;
      }
      key->dtypes[i] = static_cast<int8_t>(c10::typeMetaToScalarType(impl->dtype()));
      key->bits[i] = static_cast<uint8_t>((impl->is_conj() ? 1 : 0) | (impl->is_neg() ? 2 : 0));
      ++i;
    }
    size_t j = 0;
    for (const c10::Scalar* scalar : scalars) {
      if (scalar->isSymbolic() || scalar->isComplex()) return false;
      const c10::ScalarType type = scalar->type();
      uint64_t value = 0;
      if (scalar->isFloatingPoint()) {
        const double number = scalar->toDouble();
        std::memcpy(&value, &number, sizeof(value));
      } else if (scalar->isBoolean()) {
        value = scalar->toBool() ? 1 : 0;
      } else if (type == c10::ScalarType::UInt64) {
        value = scalar->toUInt64();
      } else {
        value = static_cast<uint64_t>(scalar->toLong());
      }
      key->scalar_types[j] = static_cast<int8_t>(type);
      key->scalar_values[j] = value;
      ++j;
    }
    key->default_dtype = static_cast<int8_t>(c10::typeMetaToScalarType(c10::get_default_dtype()));
    key->zero_dim = sizes.empty();
    key->tensors = static_cast<uint8_t>(tensors.size());
    key->scalars = static_cast<uint8_t>(scalars.size());
    return true;
  }

  void remember(const Key& key, c10::ScalarType dtype) {
    key_ = key;
    dtype_ = dtype;
    valid_ = true;
  }

  bool valid_ = false;
  Key key_{};
  c10::ScalarType dtype_ = c10::ScalarType::Undefined;
};

}  // namespace torch_fl
