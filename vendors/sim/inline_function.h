// A move-only callable stored inline, without a heap block, up to Bytes.
//
// Device work is made on the host thread and destroyed on a queue's worker
// thread. A heap block freed on another thread than the one that allocated it
// defeats malloc's per-thread caches: with std::function, every tiny op took
// malloc's arena locks on both threads, and those locks (and the cache lines
// they bounce between cores) cost more wall time than the op's own dispatch.
// A callable larger than Bytes (a convolution's descriptors) still goes to the heap.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace torch_fl::sim {

template <class Signature, size_t Bytes>
class InlineFunction;

template <class R, class... Args, size_t Bytes>
class InlineFunction<R(Args...), Bytes> {
 public:
  InlineFunction() = default;

  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineFunction> &&
                                              std::is_invocable_r_v<R, std::decay_t<F>&, Args...>>>
  InlineFunction(F&& f) {  // NOLINT: implicit, as std::function's
    construct(std::forward<F>(f));
  }

  // Replaces the callable with f, built in this object's storage: no
  // intermediate InlineFunction, whose move would copy every capture again
  // (a tiny op's descriptors are hundreds of bytes, moved on its hot path).
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineFunction> &&
                                              std::is_invocable_r_v<R, std::decay_t<F>&, Args...>>>
  void emplace(F&& f) {
    reset();
    construct(std::forward<F>(f));
  }

  InlineFunction(InlineFunction&& other) noexcept { take(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { reset(); }

  R operator()(Args... args) { return ops_->invoke(storage_, std::forward<Args>(args)...); }
  explicit operator bool() const { return ops_ != nullptr; }

  // Whether an F is held in this object's storage (otherwise on the heap).
  template <class F>
  static constexpr bool fits_inline() {
    return sizeof(F) <= Bytes && alignof(F) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<F>;
  }

  // Destroys the callable (and what it captured) now.
  void reset() {
    if (ops_) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

 private:
  struct Ops {
    R (*invoke)(void* storage, Args... args);
    void (*move)(void* to, void* from);  // move-constructs into `to`, destroys `from`
    void (*destroy)(void* storage);
  };

  template <class F>
  static constexpr Ops kInlineOps{
      [](void* s, Args... args) -> R { return (*std::launder(static_cast<F*>(s)))(std::forward<Args>(args)...); },
      [](void* to, void* from) {
        F* source = std::launder(static_cast<F*>(from));
        new (to) F(std::move(*source));
        source->~F();
      },
      [](void* s) { std::launder(static_cast<F*>(s))->~F(); }};

  template <class F>
  static constexpr Ops kHeapOps{
      [](void* s, Args... args) -> R { return (**static_cast<F**>(s))(std::forward<Args>(args)...); },
      [](void* to, void* from) { *static_cast<F**>(to) = *static_cast<F**>(from); },
      [](void* s) { delete *static_cast<F**>(s); }};

  template <class F>
  void construct(F&& f) {
    using Target = std::decay_t<F>;
    if constexpr (fits_inline<Target>()) {
      new (storage_) Target(std::forward<F>(f));
      ops_ = &kInlineOps<Target>;
    } else {
      *reinterpret_cast<Target**>(storage_) = new Target(std::forward<F>(f));
      ops_ = &kHeapOps<Target>;
    }
  }

  void take(InlineFunction& other) noexcept {
    if (other.ops_) {
      other.ops_->move(storage_, other.storage_);
      ops_ = other.ops_;
      other.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char storage_[Bytes];
  const Ops* ops_ = nullptr;
};

}  // namespace torch_fl::sim
