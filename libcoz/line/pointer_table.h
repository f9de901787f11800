// A hash table from 64-bit keys to non-null pointers, in one flat array (open addressing, linear
// probing, at most 70% full): the line table's index of lines, for hundreds of thousands of
// lines (a node-based std::unordered_map spent a fifth of a big program's start-up building
// and freeing its nodes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace coz {

template <class T>
class PointerTable {
 public:
  // The pointer stored under `key`, or nullptr.
  T* find(uint64_t key) const {
    if (slots_.empty()) {
      return nullptr;
    }
    for (size_t i = slot_of(key);; i = (i + 1) & mask()) {
      if (slots_[i].value == nullptr || slots_[i].key == key) {
        return slots_[i].value;
      }
    }
  }
  // Stores `value` (not null) under `key`, replacing what was there.
  void put(uint64_t key, T* value) {
    if ((size_ + 1) * 10 > slots_.size() * 7) {
      grow();
    }
    for (size_t i = slot_of(key);; i = (i + 1) & mask()) {
      if (slots_[i].value == nullptr) {
        slots_[i] = Slot{key, value};
        size_++;
        return;
      }
      if (slots_[i].key == key) {
        slots_[i].value = value;
        return;
      }
    }
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key;
    T* value;
  };
  size_t mask() const { return slots_.size() - 1; }
  size_t slot_of(uint64_t key) const {
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{0, nullptr});
    shift_ = 64;
    for (size_t n = slots_.size(); n > 1; n >>= 1) {
      shift_--;
    }
    size_ = 0;
    for (const Slot& s : old) {
      if (s.value != nullptr) {
        put(s.key, s.value);
      }
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace coz
