#include "cli/multikueue_cluster_table.h"

#include <map>
#include <string>

#include "cli/fields.h"
#include "cli/output.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

Json MkcColumn(const std::string& name, const std::string& type, const std::string& description,
               int priority = 0) {
  return {{"name", name},
          {"type", type},
          {"format", name == "Name" ? "name" : ""},
          {"description", description},
          {"priority", priority}};
}

}  // namespace

Json MultiKueueClusterTable(const Json& clusters, const std::optional<Json>& workloads, Time now) {
  // Unfinished Workloads per worker.
  std::map<std::string, int64_t> running;
  if (workloads && workloads->is_array()) {
    for (const Json& wl : *workloads) {
      const std::string cluster = Text(wl, {"status", "clusterName"});
      if (!cluster.empty() && !ConditionTrue(wl, "Finished")) ++running[cluster];
    }
  }
  Json rows = Json::array();
  if (clusters.is_array()) {
    for (const Json& c : clusters) {
      const std::string name = Text(c, {"metadata", "name"});
      const Json* active = Condition(c, "Active");
      const std::string status = active != nullptr ? Text(*active, {"status"}) : "";
      const std::string reason =
          active != nullptr && status != "True" ? Text(*active, {"reason"}) : "";
      const std::string message = active != nullptr ? Text(*active, {"message"}) : "";
      std::string count = "?";
      if (workloads) {
        auto it = running.find(name);
        count = std::to_string(it == running.end() ? 0 : it->second);
      }
      const std::string created = Text(c, {"metadata", "creationTimestamp"});
      rows.push_back({{"cells",
                       {name, status, reason, count,
                        created.empty() ? "<unknown>" : AgeSince(created, now), message}},
                      {"object", {{"metadata", {{"name", name}}}}}});
    }
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"columnDefinitions",
           Json::array({MkcColumn("Name", "string", "The worker cluster's name"),
                        MkcColumn("Connected", "string", "Its Active condition's status"),
                        MkcColumn("Reason", "string", "Why it is not active"),
                        MkcColumn("Workloads", "integer",
                                  "Unfinished Workloads here whose status.clusterName is it"),
                        MkcColumn("Age", "date", "Since it was created"),
                        MkcColumn("Message", "string", "Its Active condition's message", 1)})},
          {"rows", rows}};
}

}  // namespace kuota::cli
