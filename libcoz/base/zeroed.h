// Large tables of atomics that start as zeros (the hand-off table, the descriptor keys), made from
// memory calloc() hands out already zeroed: fresh pages from the kernel, which glibc's calloc
// does not clear again. Their pages are faulted in only where a slot is written, instead of all
// being written at start-up (160 KiB, about 40 page faults, in every process a run starts).
//
// A table type T opts in with a constructor T(AlreadyZero) that writes nothing, which holds only
// while its members are trivially default-constructible (std::atomic<uint64_t> is, in C++17).
#pragma once

#include <stdlib.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

namespace coz {

struct AlreadyZero {};

static_assert(std::is_trivially_default_constructible_v<std::atomic<uint64_t>>,
              "a table built on AlreadyZero would read garbage");

template <typename T>
struct ZeroedDelete {
  void operator()(T* table) const {
    table->~T();
    free(table);
  }
};
template <typename T>
using ZeroedPtr = std::unique_ptr<T, ZeroedDelete<T>>;

// A T whose every byte is zero, or nullptr when there is no memory.
template <typename T>
ZeroedPtr<T> make_zeroed() {
  void* memory = calloc(1, sizeof(T));
  return ZeroedPtr<T>(memory ? new (memory) T(AlreadyZero{}) : nullptr);
}

}  // namespace coz
