#include "server/visibility.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <tuple>
#include <vector>

#include "server/json_reply.h"
#include "server/request_target.h"
#include "server/status_errors.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

constexpr const char* kSummaryKind = "PendingWorkloadsSummary";
constexpr int64_t kDefaultLimit = 1000;  // Kueue's DefaultPendingWorkloadsLimit

std::string GroupVersion(const std::string& version) {
  return std::string(kVisibilityGroup) + "/" + version;
}

bool IsVisibilityVersion(const std::string& version) {
  for (const char* v : kVisibilityVersions) {
    if (version == v) return true;
  }
  return false;
}

Json SummaryResponseKind(const std::string& version) {
  return {{"group", kVisibilityGroup}, {"version", version}, {"kind", kSummaryKind}};
}

ApiError Unavailable(const std::string& message) {
  ApiError e;
  e.code = 503;
  e.reason = "ServiceUnavailable";
  e.message = message;
  return e;
}

// `clusterqueue.visibility.kueue.x-k8s.io "x" not found`, as Kueue's
// visibility server words it (errors.NewNotFound(visibility.Resource(...))).
ApiError QueueNotFound(const std::string& resource, const std::string& name) {
  ApiError e;
  e.code = 404;
  e.reason = "NotFound";
  e.message = resource + "." + kVisibilityGroup + " \"" + name + "\" not found";
  e.name = name;
  e.group = kVisibilityGroup;
  e.kind = resource;
  return e;
}

// Parses ?offset= / ?limit=: a non-negative integer; `fallback` when absent.
bool ParseCount(const HttpRequest& request, const std::string& key, int64_t fallback, int64_t* out,
                ApiError* error) {
  const std::string& text = request.Query(key);
  if (text.empty()) {
    *out = fallback;
    return true;
  }
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 0) {
    *error = BadRequestError("invalid " + key + ": \"" + text + "\": want a non-negative integer");
    return false;
  }
  *out = n;
  return true;
}

Json PendingWorkloadJson(const PendingWorkloadInfo& w) {
  Json metadata = {{"name", w.name}, {"namespace", w.ns}};
  metadata["creationTimestamp"] =
      w.creation_timestamp.empty() ? Json(nullptr) : Json(w.creation_timestamp);
  if (!w.expected_start.empty()) {
    metadata["annotations"] = {{"kuota.dev/expected-start", w.expected_start}};
  }
  return {{"metadata", metadata},
          {"priority", w.priority},
          {"localQueueName", w.local_queue},
          {"positionInClusterQueue", w.position_in_cluster_queue},
          {"positionInLocalQueue", w.position_in_local_queue}};
}

}  // namespace

bool VisibilityApi::Handles(std::string_view path) {
  std::vector<std::string> p = SplitPath(path);
  return p.size() >= 2 && p[0] == "apis" && p[1] == kVisibilityGroup;
}

HttpReply VisibilityApi::Serve(const HttpRequest& request) const {
  if (request.method != "GET" && request.method != "HEAD") {
    return MethodNotAllowedError().ToReply();
  }
  std::vector<std::string> p = SplitPath(request.path);
  if (p.size() == 2) {
    Json group = VisibilityGroupEntry();
    group["kind"] = "APIGroup";
    group["apiVersion"] = "v1";
    return JsonReply(group);
  }
  if (p.size() < 3 || !IsVisibilityVersion(p[2])) return UnknownPathError().ToReply();
  if (p.size() == 3) return JsonReply(VisibilityResourceList(p[2]));

  bool cluster_queue = p.size() == 6 && p[3] == "clusterqueues" && p[5] == "pendingworkloads";
  bool local_queue =
      p.size() == 8 && p[3] == "namespaces" && p[5] == "localqueues" && p[7] == "pendingworkloads";
  if (!cluster_queue && !local_queue) return UnknownPathError().ToReply();

  ApiError error;
  int64_t offset = 0, limit = 0;
  if (!ParseCount(request, "offset", 0, &offset, &error) ||
      !ParseCount(request, "limit", kDefaultLimit, &limit, &error)) {
    return error.ToReply();
  }
  if (limit == 0) limit = kDefaultLimit;  // as Kueue's defaulting
  if (source_ == nullptr) {
    return Unavailable(
               "the visibility API (pending workloads) is not served by this server: "
               "it has no scheduler attached")
        .ToReply();
  }
  const std::string& name = cluster_queue ? p[4] : p[6];
  Result<std::vector<PendingWorkloadInfo>> pending =
      cluster_queue ? source_->ForClusterQueue(name) : source_->ForLocalQueue(p[4], name);
  if (!pending.ok()) {
    const Status& st = pending.status();
    if (st.code() == StatusCode::kNotFound) {
      return QueueNotFound(cluster_queue ? "clusterqueue" : "localqueue", name).ToReply();
    }
    if (st.code() == StatusCode::kUnavailable) return Unavailable(st.message()).ToReply();
    return InternalError(st.message()).ToReply();
  }
  Json items = Json::array();
  const std::vector<PendingWorkloadInfo>& all = *pending;
  const size_t begin = static_cast<size_t>(std::min<int64_t>(offset, all.size()));
  const size_t end = static_cast<size_t>(
      std::min<int64_t>(static_cast<int64_t>(begin) + limit, static_cast<int64_t>(all.size())));
  for (size_t i = begin; i < end; ++i) items.push_back(PendingWorkloadJson(all[i]));
  return JsonReply({{"kind", kSummaryKind},
                    {"apiVersion", GroupVersion(p[2])},
                    {"metadata", Json::object()},
                    {"items", items}});
}

Json VisibilityGroupEntry() {
  Json versions = Json::array();
  for (const char* v : kVisibilityVersions) {
    versions.push_back({{"groupVersion", GroupVersion(v)}, {"version", v}});
  }
  return {{"name", kVisibilityGroup}, {"versions", versions}, {"preferredVersion", versions[0]}};
}

Json VisibilityResourceList(const std::string& version) {
  Json resources = Json::array();
  for (const auto& [plural, singular, namespaced] :
       {std::tuple<const char*, const char*, bool>{"clusterqueues", "clusterqueue", false},
        std::tuple<const char*, const char*, bool>{"localqueues", "localqueue", true}}) {
    // As Kueue registers them: the queue resource only carries the subresource.
    resources.push_back({{"name", plural},
                         {"singularName", singular},
                         {"namespaced", namespaced},
                         {"kind", kSummaryKind},
                         {"verbs", Json::array()}});
    resources.push_back({{"name", std::string(plural) + "/pendingworkloads"},
                         {"singularName", ""},
                         {"namespaced", namespaced},
                         {"kind", kSummaryKind},
                         {"verbs", Json::array({"get"})}});
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", GroupVersion(version)},
          {"resources", resources}};
}

Json VisibilityAggregatedItem() {
  Json versions = Json::array();
  for (const char* v : kVisibilityVersions) {
    Json resources = Json::array();
    for (const auto& [plural, singular, namespaced] :
         {std::tuple<const char*, const char*, bool>{"clusterqueues", "clusterqueue", false},
          std::tuple<const char*, const char*, bool>{"localqueues", "localqueue", true}}) {
      resources.push_back({{"resource", plural},
                           {"responseKind", SummaryResponseKind(v)},
                           {"scope", namespaced ? "Namespaced" : "Cluster"},
                           {"singularResource", singular},
                           {"verbs", Json::array()},
                           {"subresources", Json::array({{{"subresource", "pendingworkloads"},
                                                          {"responseKind", SummaryResponseKind(v)},
                                                          {"verbs", Json::array({"get"})}}})}});
    }
    versions.push_back({{"version", v}, {"resources", resources}, {"freshness", "Current"}});
  }
  return {{"metadata", {{"name", kVisibilityGroup}, {"creationTimestamp", nullptr}}},
          {"versions", versions}};
}

}  // namespace kuota::server
