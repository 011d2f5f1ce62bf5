// FlavorResource ids: the engine interns every (flavor, resource) pair it sees
// into a small dense integer so quota and usage are flat vectors, not maps.
// Owned by one Engine; single-threaded like the engine.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace kuota::engine {

using FrId = int32_t;

struct FlavorResourceName {
  std::string flavor;
  std::string resource;
};

class FlavorResourceTable {
 public:
  // Returns the id of (flavor, resource), creating it if new.
  FrId Intern(const std::string& flavor, const std::string& resource);
  // Returns the id or -1 when the pair was never interned.
  FrId Find(const std::string& flavor, const std::string& resource) const;
  const FlavorResourceName& Name(FrId id) const { return names_[static_cast<size_t>(id)]; }
  int32_t size() const { return static_cast<int32_t>(names_.size()); }

 private:
  std::unordered_map<std::string, FrId> ids_;  // "flavor\x1fresource" -> id
  std::vector<FlavorResourceName> names_;
};

// Saturating helpers for quota arithmetic (quota may be "unlimited").
inline constexpr int64_t kUnlimited = INT64_MAX;
inline int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? INT64_MAX : INT64_MIN;
  return r;
}
inline int64_t SatSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return a > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

}  // namespace kuota::engine
