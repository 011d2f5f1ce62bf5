// VisibilityApi: Kueue's on-demand visibility API
// (visibility.kueue.x-k8s.io v1beta2, preferred as in Kueue v0.20, and
// v1beta1: the same shapes): the pending workloads of a ClusterQueue
// or LocalQueue in scheduling order, with their positions, paged by ?offset=
// and ?limit= (default 1000), as a PendingWorkloadsSummary — plus the group's
// discovery documents. Data comes from a PendingWorkloadsSource.
// Thread-safe when the source is.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/http_types.h"
#include "server/pending_workloads_source.h"

namespace kuota::server {

inline constexpr const char* kVisibilityGroup = "visibility.kueue.x-k8s.io";
// The served versions, preferred first (Kueue's PrioritizedVersions).
inline constexpr const char* kVisibilityVersions[] = {"v1beta2", "v1beta1"};

class VisibilityApi {
 public:
  // `source` (nullable: the API then answers 503) must outlive this.
  explicit VisibilityApi(PendingWorkloadsSource* source) : source_(source) {}

  // True for /apis/visibility.kueue.x-k8s.io and every path below it.
  static bool Handles(std::string_view path);
  // Serves a path for which Handles() is true: the APIGroup and
  // APIResourceList documents, and GET .../clusterqueues/NAME/pendingworkloads
  // and .../namespaces/NS/localqueues/NAME/pendingworkloads.
  HttpReply Serve(const HttpRequest& request) const;

 private:
  PendingWorkloadsSource* const source_;
};

// Discovery entries for the group, listed after the served resources' groups
// (so that kubectl's "clusterqueues" still means kueue.x-k8s.io's).
nlohmann::json VisibilityGroupEntry();  // an APIGroupList item
// The APIResourceList of `version` (one of kVisibilityVersions).
nlohmann::json VisibilityResourceList(const std::string& version);
nlohmann::json VisibilityAggregatedItem();  // an APIGroupDiscoveryList item

}  // namespace kuota::server
