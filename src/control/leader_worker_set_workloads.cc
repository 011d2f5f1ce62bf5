#include "control/leader_worker_set_workloads.h"

#include <map>
#include <set>

#include "control/meta_string.h"
#include "jobs/job_fields.h"
#include "jobs/pod_kind.h"

namespace kuota::control {
namespace {

constexpr const char* kLwsWorkloads = "workloads.kueue.x-k8s.io";
constexpr const char* kLwsResource = "leaderworkersets.leaderworkerset.x-k8s.io";

}  // namespace

Result<std::vector<nlohmann::json>> LeaderWorkerSetWorkloads::WorkloadsOf(
    const nlohmann::json& lws) {
  const std::string uid = MetaString(lws, "uid");
  std::vector<nlohmann::json> out;
  if (uid.empty()) return out;
  store::ListOptions lo;
  lo.ns = MetaString(lws, "namespace");
  lo.label_selector = "kueue.x-k8s.io/job-uid=" + uid;
  KUOTA_ASSIGN_OR_RETURN(store::ListResult page, store_.List(kLwsWorkloads, lo));
  for (auto& wl : page.items) {
    // Only the set's own: owned by it.
    for (const auto& ref : wl["metadata"].value("ownerReferences", nlohmann::json::array())) {
      if (ref.value("uid", "") == uid && ref.value("kind", "") == "LeaderWorkerSet") {
        out.push_back(std::move(wl));
        break;
      }
    }
  }
  return out;
}

Result<LeaderWorkerSetWorkloads::Changes> LeaderWorkerSetWorkloads::Reconcile(
    const jobs::LeaderWorkerSetKind& kind, const nlohmann::json& lws,
    const std::string& finalizer) {
  Changes changes;
  KUOTA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> existing, WorkloadsOf(lws));
  std::map<std::string, nlohmann::json> by_name;
  for (auto& wl : existing) {
    const std::string name = MetaString(wl, "name");
    by_name[name] = std::move(wl);
  }
  const std::string queue = jobs::JobKind::QueueName(lws);
  // A MultiKueue worker's copy: the manager copies its group Workloads here.
  const int64_t replicas = jobs::LeaderWorkerSetKind::IsMultiKueueCopy(lws)
                               ? 0
                               : jobs::LeaderWorkerSetKind::Replicas(lws);
  for (int64_t i = 0; i < replicas; ++i) {
    const std::string name = jobs::LeaderWorkerSetKind::GroupWorkloadName(lws, i);
    auto it = by_name.find(name);
    if (it != by_name.end()) {
      // Kueue's updateWorkload: the set's queue name follows.
      nlohmann::json& wl = it->second;
      if (jobs::StrAt(jobs::ObjAt(wl, "spec"), "queueName") != queue) {
        wl["spec"]["queueName"] = queue;
        KUOTA_RETURN_IF_ERROR(store_.Update(kLwsWorkloads, wl).status());
      }
      by_name.erase(it);
      continue;
    }
    KUOTA_ASSIGN_OR_RETURN(nlohmann::json wl, kind.GroupWorkload(lws, i));
    if (!finalizer.empty()) wl["metadata"]["finalizers"] = nlohmann::json::array({finalizer});
    Result<nlohmann::json> stored = store_.Create(kLwsWorkloads, wl);
    if (!stored.ok()) {
      if (stored.status().code() == StatusCode::kAlreadyExists) continue;
      return stored.status();
    }
    changes.created.push_back(std::move(*stored));
  }
  // Groups beyond spec.replicas (scaled down).
  for (const auto& [name, wl] : by_name) {
    auto gone = store_.Delete(kLwsWorkloads, MetaString(wl, "namespace"), name);
    if (!gone.ok() && gone.status().code() != StatusCode::kNotFound) return gone.status();
    changes.deleted.push_back(MetaString(wl, "namespace") + "/" + name);
  }
  return changes;
}

void LeaderWorkerSetWorkloads::DeleteAll(const nlohmann::json& lws) {
  auto existing = WorkloadsOf(lws);
  if (!existing.ok()) return;
  for (const auto& wl : *existing) {
    (void)store_.Delete(kLwsWorkloads, MetaString(wl, "namespace"), MetaString(wl, "name"));
  }
}

Result<std::optional<nlohmann::json>> LeaderWorkerSetWorkloads::DefaultPod(
    const nlohmann::json& pod) {
  if (!jobs::LeaderWorkerSetKind::SuspendedByLeaderWorkerSet(pod) || jobs::IsManagedPod(pod)) {
    return std::optional<nlohmann::json>();
  }
  const std::string set = jobs::MetaMapValue(pod, "labels", jobs::kLwsNameLabel);
  if (set.empty()) return std::optional<nlohmann::json>();
  Result<nlohmann::json> lws = store_.Get(kLwsResource, MetaString(pod, "namespace"), set);
  if (!lws.ok()) {
    if (lws.status().code() == StatusCode::kNotFound) return std::optional<nlohmann::json>();
    return lws.status();
  }
  std::optional<nlohmann::json> labelled = jobs::LeaderWorkerSetKind::DefaultGroupPod(*lws, pod);
  if (!labelled) return labelled;
  Result<nlohmann::json> stored = store_.Update("pods", *labelled);
  if (!stored.ok()) {
    if (stored.status().code() == StatusCode::kConflict ||
        stored.status().code() == StatusCode::kNotFound) {
      return std::optional<nlohmann::json>();
    }
    return stored.status();
  }
  return std::optional<nlohmann::json>(std::move(*stored));
}

}  // namespace kuota::control
