// Recycled memory for an SDK's short-lived handles (the NPU's tensor, scalar and
// executor objects: several made and destroyed per op call), as a real SDK
// pools its descriptors instead of going to the heap each time.
//
// Each thread keeps up to `Keep` freed blocks of one type and reuses them; a
// handle may be made on one thread and destroyed on another (its block joins
// the destroying thread's list). Blocks left in a list are freed at thread exit.
#pragma once

#include <cstddef>
#include <new>
#include <utility>

namespace torch_fl::sim {

template <class T, size_t Keep = 32>
class HandlePool {
 public:
  template <class... Args>
  static T* make(Args&&... args) {
    void* block = free_list().take();
    try {
      return new (block) T{std::forward<Args>(args)...};
    } catch (...) {
      free_list().give(block);
      throw;
    }
  }

  static void destroy(const T* handle) {
    if (handle == nullptr) return;
    handle->~T();
    free_list().give(const_cast<T*>(handle));
  }

 private:
  class FreeList {
   public:
    ~FreeList() {
      for (size_t i = 0; i < count_; ++i) ::operator delete(blocks_[i]);
    }
    void* take() { return count_ > 0 ? blocks_[--count_] : ::operator new(sizeof(T)); }
    void give(void* block) {
      if (count_ < Keep) {
        blocks_[count_++] = block;
      } else {
        ::operator delete(block);
      }
    }

   private:
    void* blocks_[Keep];
    size_t count_ = 0;
  };

  static FreeList& free_list() {
    static thread_local FreeList list;
    return list;
  }
};

}  // namespace torch_fl::sim
