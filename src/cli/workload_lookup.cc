#include "cli/workload_lookup.h"

#include "base/url_encode.h"
#include "cli/fields.h"
#include "cli/resource_kinds.h"

namespace kuota::cli {

using Json = nlohmann::json;

Result<WorkloadLookup> FindWorkload(const ApiClient& client, const std::string& ns,
                                    const std::string& name) {
  const KindInfo& workloads = *FindKind("workloads");
  Result<Json> wl = client.Get(workloads.ObjectPath(ns, name));
  if (wl.ok()) return WorkloadLookup{*wl, ""};
  if (wl.status().code() != StatusCode::kNotFound) return wl.status();
  Result<Json> job = client.Get(FindKind("jobs")->ObjectPath(ns, name));
  if (!job.ok()) {
    if (job.status().code() != StatusCode::kNotFound) return job.status();
    return Status::NotFound("no Workload or Job named \"" + name + "\" in namespace \"" + ns +
                            "\" (kuota get wl -n " + ns + " lists the workloads)");
  }
  const std::string uid = Text(*job, {"metadata", "uid"});
  Result<Json> owned = client.Get(workloads.CollectionPath(ns) +
                                  "?labelSelector=" + UrlEncode("kueue.x-k8s.io/job-uid=" + uid));
  if (!owned.ok()) return owned.status();
  const Json* items = Field(*owned, {"items"});
  if (items == nullptr || !items->is_array() || items->empty()) {
    // Not labelled: look for an owner reference.
    Result<Json> all = client.Get(workloads.CollectionPath(ns));
    if (!all.ok()) return all.status();
    items = Field(*all, {"items"});
    if (items != nullptr && items->is_array()) {
      for (const Json& w : *items) {
        const Json* owners = Field(w, {"metadata", "ownerReferences"});
        if (owners == nullptr || !owners->is_array()) continue;
        for (const Json& o : *owners) {
          if (Text(o, {"uid"}) == uid) return WorkloadLookup{w, name};
        }
      }
    }
    if (Text(*job, {"metadata", "labels", "kueue.x-k8s.io/queue-name"}).empty() &&
        Text(*job, {"metadata", "annotations", "kueue.x-k8s.io/queue-name"}).empty()) {
      return Status::NotFound("Job " + ns + "/" + name +
                              " has no Workload: it has no kueue.x-k8s.io/queue-name label, so "
                              "no queue manages it");
    }
    return Status::NotFound("Job " + ns + "/" + name +
                            " has no Workload yet: kuotad creates it shortly after the Job "
                            "(is kuotad running its controller?)");
  }
  return WorkloadLookup{(*items)[0], name};
}

}  // namespace kuota::cli
