// NamespaceCache: what a create asks about its namespace (does it exist, is
// it being terminated), answered from memory while no Namespace has been
// written since, and from the store otherwise. The store's WriteVersion for
// "namespaces" changes before any write to a Namespace is answered, so a
// client that saw its namespace deleted (or created) is never answered from
// the state before: unlike an informer's cache, there is no window. Holds
// only namespaces that exist, at most kMaxEntries of them.
// Thread-safe: Lookup may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "base/result.h"
#include "store/mutex.h"
#include "store/object_store.h"
#include "store/thread_annotations.h"

namespace kuota::server {

class NamespaceCache {
 public:
  enum class State { kActive, kTerminating };
  static constexpr size_t kMaxEntries = 4096;

  // `store` must outlive the cache.
  explicit NamespaceCache(store::ObjectStore& store) : store_(store) {}
  NamespaceCache(const NamespaceCache&) = delete;
  NamespaceCache& operator=(const NamespaceCache&) = delete;

  // The namespace's state; NotFound when it does not exist, the store's
  // error when it could not be read.
  Result<State> Lookup(const std::string& name) EXCLUDES(mu_);

 private:
  store::ObjectStore& store_;
  store::Mutex mu_;
  // The WriteVersion("namespaces") that `entries_` reflects.
  int64_t version_ GUARDED_BY(mu_) = -1;
  std::map<std::string, State, std::less<>> entries_ GUARDED_BY(mu_);
};

}  // namespace kuota::server
