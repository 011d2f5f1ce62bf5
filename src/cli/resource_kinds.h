// ResourceKinds: the kinds `kuota get|describe|stop` know, with the names
// users type for them (plural, singular, Kind, and the short names kubectl
// knows: cq, lq, wl, rf, po, ...), and the API paths of their collections and
// objects on kuotad. Immutable data; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kuota::cli {

struct KindInfo {
  std::string kind;      // "ClusterQueue"
  std::string group;     // "kueue.x-k8s.io"; "" for the core group
  std::string version;   // "v1beta1"
  std::string plural;    // "clusterqueues"
  std::string singular;  // "clusterqueue"
  bool namespaced = false;
  std::vector<std::string> short_names;  // "cq"

  // "clusterqueues.kueue.x-k8s.io" or "pods".
  std::string Resource() const { return group.empty() ? plural : plural + "." + group; }
  // "clusterqueue.kueue.x-k8s.io/NAME", as kubectl's -o name.
  std::string QualifiedName(const std::string& name) const;
  // The collection: "/apis/G/V[/namespaces/NS]/PLURAL"; `ns` "" for all
  // namespaces (or a cluster-scoped kind).
  std::string CollectionPath(const std::string& ns) const;
  // One object; `ns` is ignored for cluster-scoped kinds.
  std::string ObjectPath(const std::string& ns, const std::string& name) const;
};

// Every kind, in the order `kuota get --help` lists them.
const std::vector<KindInfo>& Kinds();

// Finds a kind by any of its names, case-insensitively ("cq", "ClusterQueue",
// "clusterqueues", "clusterqueues.kueue.x-k8s.io"); nullptr when unknown.
const KindInfo* FindKind(std::string_view name);

// "clusterqueues (cq), localqueues (lq, queue, queues), ..." for messages.
std::string KnownKindsText();

}  // namespace kuota::cli
