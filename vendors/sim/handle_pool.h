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
    void* block = take();
    try {
      return new (block) T{std::forward<Args>(args)...};
    } catch (...) {
      give(block);
      throw;
    }
  }

  static void destroy(const T* handle) {
    if (handle == nullptr) return;
    handle->~T();
    give(const_cast<T*>(handle));
  }

  // Blocks the calling thread keeps now (for tests).
  static size_t kept() { return list_.count; }

 private:
  // Trivial, so that reaching it costs one thread-local address lookup: a
  // thread_local with a destructor is reached through its guard too, and from
  // a shared library each is a __tls_get_addr call, on every make and destroy.
  struct FreeList {
    void* blocks[Keep];
    size_t count;
    bool reclaim_registered;  // Reclaim exists on this thread
    bool thread_exiting;      // Reclaim has run: blocks go back to the heap
  };
  static inline thread_local FreeList list_{};

  // Frees the thread's kept blocks when it exits.
  struct Reclaim {
    ~Reclaim() {
      FreeList& list = list_;
      for (size_t i = 0; i < list.count; ++i) ::operator delete(list.blocks[i]);
      list.count = 0;
      list.reclaim_registered = false;
      list.thread_exiting = true;
    }
  };

  static void* take() {
    FreeList& list = list_;
    return list.count > 0 ? list.blocks[--list.count] : ::operator new(sizeof(T));
  }

  static void give(void* block) {
    FreeList& list = list_;
    if (list.count < Keep && list.reclaim_registered) {  // one lookup of list_ on this path
      list.blocks[list.count++] = block;
      return;
    }
    give_rarely(list, block);
  }

  // A full list, a thread's first block, or a thread that is exiting.
  [[gnu::noinline]] static void give_rarely(FreeList& list, void* block) {
    if (list.count == Keep || list.thread_exiting) {
      ::operator delete(block);
      return;
    }
    static thread_local Reclaim reclaim;  // constructed once per thread, here; destroyed at its exit
    (void)reclaim;
    list.reclaim_registered = true;
    list.blocks[list.count++] = block;
  }
};

}  // namespace torch_fl::sim
