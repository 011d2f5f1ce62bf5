#include "engine/flavor_resource.h"

namespace kuota::engine {

FrId FlavorResourceTable::Intern(const std::string& flavor, const std::string& resource) {
  std::string key = flavor;
  key += '\x1f';
  key += resource;
  auto [it, inserted] = ids_.emplace(std::move(key), static_cast<FrId>(names_.size()));
  if (inserted) names_.push_back({flavor, resource});
  return it->second;
}

FrId FlavorResourceTable::Find(const std::string& flavor, const std::string& resource) const {
  std::string key = flavor;
  key += '\x1f';
  key += resource;
  auto it = ids_.find(key);
  return it == ids_.end() ? -1 : it->second;
}

}  // namespace kuota::engine
