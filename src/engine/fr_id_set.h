// FrIdSet: the few flavor-resources a head needs preemption for, as a sorted
// vector: iterated in ascending order as a std::set<FrId> would be, but with
// no node allocated per element, and reusable without allocating once it
// has grown. Plain value type.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <vector>

#include "engine/flavor_resource.h"

namespace kuota::engine {

class FrIdSet {
 public:
  FrIdSet() = default;
  FrIdSet(std::initializer_list<FrId> ids) {
    for (FrId fr : ids) insert(fr);
  }

  void insert(FrId fr) {
    auto at = std::lower_bound(ids_.begin(), ids_.end(), fr);
    if (at == ids_.end() || *at != fr) ids_.insert(at, fr);
  }
  size_t count(FrId fr) const { return std::binary_search(ids_.begin(), ids_.end(), fr) ? 1 : 0; }
  void clear() { ids_.clear(); }
  bool empty() const { return ids_.empty(); }
  size_t size() const { return ids_.size(); }
  std::vector<FrId>::const_iterator begin() const { return ids_.begin(); }
  std::vector<FrId>::const_iterator end() const { return ids_.end(); }
  bool operator==(const FrIdSet&) const = default;

 private:
  std::vector<FrId> ids_;  // ascending, no duplicates
};

}  // namespace kuota::engine
