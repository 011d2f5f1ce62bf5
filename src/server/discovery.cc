#include "server/discovery.h"

#include <vector>

#include "server/resource_info.h"
#include "server/visibility.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

const std::vector<std::string>& ResourceVerbs() {
  static const std::vector<std::string> kVerbs = {
      "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  return kVerbs;
}

const std::vector<std::string>& StatusVerbs() {
  static const std::vector<std::string> kVerbs = {"get", "patch", "update"};
  return kVerbs;
}

// Group versions in the order discovery lists them (core first).
std::vector<std::pair<std::string, std::string>> GroupVersions() {
  std::vector<std::pair<std::string, std::string>> gvs;
  for (const ResourceInfo& r : ServedResources()) {
    std::pair<std::string, std::string> gv{r.group, r.version};
    bool seen = false;
    for (const auto& x : gvs) seen |= x == gv;
    if (!seen) gvs.push_back(gv);
  }
  return gvs;
}

Json GroupVersionFor(const std::string& group, const std::string& version) {
  return {{"groupVersion", group + "/" + version}, {"version", version}};
}

Json GroupEntry(const std::string& group) {
  Json versions = Json::array();
  for (const auto& [g, v] : GroupVersions()) {
    if (g == group) versions.push_back(GroupVersionFor(g, v));
  }
  if (versions.empty()) return nullptr;
  return {{"name", group}, {"versions", versions}, {"preferredVersion", versions[0]}};
}

// Pods also serve the log subresource (pod_logs.h).
bool IsPods(const ResourceInfo& r) { return r.group.empty() && r.plural == "pods"; }

Json ResponseKind(const ResourceInfo& r) {
  return {{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
}

}  // namespace

Json ApiVersionsDocument(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", Json::array({"v1"})},
          {"serverAddressByClientCIDRs",
           Json::array({Json{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}})}};
}

Json ApiGroupListDocument() {
  Json groups = Json::array();
  for (const auto& [g, v] : GroupVersions()) {
    if (g.empty()) continue;
    bool seen = false;
    for (const Json& existing : groups) seen |= existing["name"] == g;
    if (!seen) groups.push_back(GroupEntry(g));
  }
  groups.push_back(VisibilityGroupEntry());  // last: kubectl prefers earlier groups
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

Json ApiGroupDocument(const std::string& group) {
  Json entry = GroupEntry(group);
  if (group.empty() || entry.is_null()) return nullptr;
  entry["kind"] = "APIGroup";
  entry["apiVersion"] = "v1";
  return entry;
}

Json ApiResourceListDocument(const std::string& group, const std::string& version) {
  Json resources = Json::array();
  for (const ResourceInfo& r : ServedResources()) {
    if (r.group != group || r.version != version) continue;
    Json res = {{"name", r.plural},       {"singularName", r.singular},
                {"namespaced", r.namespaced}, {"kind", r.kind},
                {"verbs", ResourceVerbs()}};
    if (!r.short_names.empty()) res["shortNames"] = r.short_names;
    if (!r.categories.empty()) res["categories"] = r.categories;
    resources.push_back(res);
    if (r.has_status) {
      resources.push_back({{"name", r.plural + "/status"},
                           {"singularName", ""},
                           {"namespaced", r.namespaced},
                           {"kind", r.kind},
                           {"verbs", StatusVerbs()}});
    }
    if (r.scale) {
      resources.push_back({{"name", r.plural + "/scale"},
                           {"singularName", ""},
                           {"namespaced", r.namespaced},
                           {"group", "autoscaling"},
                           {"version", "v1"},
                           {"kind", "Scale"},
                           {"verbs", StatusVerbs()}});
    }
    if (IsPods(r)) {
      resources.push_back({{"name", "pods/log"},
                           {"singularName", ""},
                           {"namespaced", true},
                           {"kind", "Pod"},
                           {"verbs", Json::array({"get"})}});
    }
  }
  if (resources.empty()) return nullptr;
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", group.empty() ? version : group + "/" + version},
          {"resources", resources}};
}

Json AggregatedDiscoveryDocument(bool core) {
  Json items = Json::array();
  for (const auto& [g, v] : GroupVersions()) {
    if (g.empty() != core) continue;
    Json resources = Json::array();
    for (const ResourceInfo& r : ServedResources()) {
      if (r.group != g || r.version != v) continue;
      Json res = {{"resource", r.plural},
                  {"responseKind", ResponseKind(r)},
                  {"scope", r.namespaced ? "Namespaced" : "Cluster"},
                  {"singularResource", r.singular},
                  {"verbs", ResourceVerbs()}};
      if (!r.short_names.empty()) res["shortNames"] = r.short_names;
      if (!r.categories.empty()) res["categories"] = r.categories;
      if (r.has_status) {
        res["subresources"] = Json::array(
            {{{"subresource", "status"}, {"responseKind", ResponseKind(r)},
              {"verbs", StatusVerbs()}}});
      }
      if (r.scale) {
        res["subresources"].push_back(
            {{"subresource", "scale"},
             {"responseKind", {{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}}},
             {"verbs", StatusVerbs()}});
      }
      if (IsPods(r)) {
        res["subresources"].push_back({{"subresource", "log"},
                                       {"responseKind", ResponseKind(r)},
                                       {"verbs", Json::array({"get"})}});
      }
      resources.push_back(res);
    }
    Json version = {{"version", v}, {"resources", resources}, {"freshness", "Current"}};
    // One entry per group, versions in preference order.
    Json* group_item = nullptr;
    for (Json& item : items) {
      if (item["metadata"].value("name", "") == g) group_item = &item;
    }
    if (group_item == nullptr) {
      Json metadata = {{"creationTimestamp", nullptr}};
      if (!g.empty()) metadata["name"] = g;
      items.push_back({{"metadata", metadata}, {"versions", Json::array()}});
      group_item = &items.back();
    }
    (*group_item)["versions"].push_back(version);
  }
  if (!core) items.push_back(VisibilityAggregatedItem());  // last, as in /apis
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", "apidiscovery.k8s.io/v2"},
          {"metadata", Json::object()},
          {"items", items}};
}

Json VersionDocument() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", kServerGitVersion},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2025-01-01T00:00:00Z"},
          {"goVersion", "kuota"},
          {"compiler", "gcc"},
          {"platform", "linux/amd64"}};
}

}  // namespace kuota::server
