// ResourcePath: the kube-apiserver URL paths of a stored resource key
// ("clusterqueues.kueue.x-k8s.io", "jobs.batch", "pods"): its collection,
// one object, and the status subresource, per Kubernetes' API conventions
// (/api/v1/... for the core group, /apis/GROUP/VERSION/... otherwise,
// /namespaces/NS/ for namespaced kinds). Pure; thread-safe.
#pragma once

#include <string>

#include "base/result.h"
#include "server/resource_info.h"

namespace kuota::kube {

// The served resource a store key names; NotFound for a key Kuota does not know.
Result<const server::ResourceInfo*> ResourceForKey(const std::string& key);

// "/apis/kueue.x-k8s.io/v1beta1/namespaces/team-a/localqueues"; `ns` empty:
// every namespace (or a cluster-scoped kind).
std::string CollectionPath(const server::ResourceInfo& r, const std::string& ns);
// The collection path + "/NAME".
std::string ObjectPath(const server::ResourceInfo& r, const std::string& ns,
                       const std::string& name);

}  // namespace kuota::kube
