// KubeObjectStore: store::ObjectStore over a kube-apiserver, so that the
// engine's controller (control/controller.h) runs unchanged on a cluster:
// Create/Get/Update/Delete are POST/GET/PUT/DELETE (status through the
// /status subresource, optimistic concurrency by metadata.resourceVersion —
// an update without one is a GET and a PUT at the version read, retried on
// conflict, as custom resources require one —, delete preconditions), List pages with
// limit/continue and selectors, and Watch merges one kube watch per resource (KubeWatcher), each
// resuming from its own last list. Only `resources` are listed and watched: a kind the cluster does
// not serve (an integration whose CRD is not installed) lists empty. resourceVersions are the
// cluster's (etcd revisions, one sequence for every kind). Thread-safe.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "kube/kube_client.h"
#include "kube/kube_watcher.h"
#include "store/object_store.h"

namespace kuota::kube {

class KubeObjectStore final : public store::ObjectStore {
 public:
  // `client` must outlive the store.
  KubeObjectStore(KubeClient& client, std::vector<std::string> resources,
                  KubeWatchOptions watch_options = {});

  Result<Json> Create(const std::string& resource, Json object) override;
  Result<Json> Get(const std::string& resource, const std::string& ns,
                   const std::string& name) override;
  Result<store::ListResult> List(const std::string& resource,
                                 const store::ListOptions& options) override;
  Result<Json> Update(const std::string& resource, Json object,
                      const store::UpdateOptions& options = {}) override;
  Result<Json> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                      const store::DeleteOptions& options = {}) override;
  // `resource` empty: every resource this store serves, each from the later
  // of `from_resource_version` and its last complete list.
  Result<std::unique_ptr<store::Watcher>> Watch(const std::string& resource, const std::string& ns,
                                                int64_t from_resource_version) override;
  // The newest resourceVersion seen in any reply or event (asks the server
  // once when none has been seen yet).
  int64_t CurrentResourceVersion() override;

  bool Serves(const std::string& resource) const { return resources_.count(resource) > 0; }

 private:
  void Observe(int64_t rv);
  void ObserveObject(const Json& object);

  KubeClient& client_;
  const std::set<std::string> resources_;
  KubeWatchOptions watch_options_;
  std::atomic<int64_t> max_rv_{0};
  std::mutex mu_;
  std::map<std::string, int64_t> listed_rv_;  // resource -> version of its last full list
};

}  // namespace kuota::kube
