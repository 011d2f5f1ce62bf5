#include "server/namespace_cache.h"

#include "server/json_fields.h"

namespace kuota::server {

Result<NamespaceCache::State> NamespaceCache::Lookup(const std::string& name) {
  // Read before the store is: an entry filled from a read that followed
  // this version is at least as new as it.
  const int64_t version = store_.WriteVersion("namespaces");
  if (version >= 0) {
    store::MutexLock lock(&mu_);
    if (version_ != version) {
      entries_.clear();
      version_ = version;
    }
    auto it = entries_.find(name);
    if (it != entries_.end()) return it->second;
  }
  Result<nlohmann::json> ns = store_.Get("namespaces", "", name);
  if (!ns.ok()) return ns.status();
  const State state = FindField(*ns, {"metadata", "deletionTimestamp"}) != nullptr
                          ? State::kTerminating
                          : State::kActive;
  if (version >= 0) {
    store::MutexLock lock(&mu_);
    // A Namespace written after `version` was read may show in `state`
    // already; harmless, since the next lookup finds a newer version.
    if (version_ == version && entries_.size() < kMaxEntries) entries_.emplace(name, state);
  }
  return state;
}

}  // namespace kuota::server
