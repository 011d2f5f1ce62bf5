#include "jobs/pod_group.h"

#include <algorithm>

#include "api/object.h"
#include "jobs/job_fields.h"
#include "jobs/pod_kind.h"

namespace kuota::jobs {
namespace {}  // namespace

std::string PodGroup::WorkloadKeyOf(const Json& pod) {
  const std::string ns = MetaStr(pod, "namespace");
  // Kueue's prebuilt workloads (MultiKueue's pods on a worker) name theirs.
  if (const std::string prebuilt = MetaMapValue(pod, "labels", kPrebuiltWorkloadLabel);
      !prebuilt.empty()) {
    return ns + "/" + prebuilt;
  }
  const std::string group = PodGroupName(pod);
  if (!group.empty()) return ns + "/" + group;
  const std::string uid = MetaStr(pod, "uid");
  if (uid.empty()) return "";
  return ns + "/" + WorkloadNameFor("Pod", MetaStr(pod, "name"), uid);
}

PodGroup::PodGroup(std::string key, std::vector<Json> pods)
    : key_(std::move(key)), pods_(std::move(pods)) {
  std::sort(pods_.begin(), pods_.end(), [](const Json& a, const Json& b) {
    const std::string ta = MetaStr(a, "creationTimestamp"), tb = MetaStr(b, "creationTimestamp");
    if (ta != tb) return ta < tb;
    return MetaStr(a, "name") < MetaStr(b, "name");
  });
  single_ = pods_.empty() || PodGroupName(pods_.front()).empty();
}

int64_t PodGroup::TotalCount() const {
  if (single_) return 1;
  int64_t n = 0;
  for (const auto& p : pods_) n = std::max(n, PodGroupTotalCount(p));
  return n;
}

std::vector<const Json*> PodGroup::ActivePods() const {
  std::vector<const Json*> out;
  for (const auto& p : pods_) {
    if (PodPhase(p) == "Failed" || PodIsDeleting(p)) continue;
    out.push_back(&p);
  }
  return out;
}

bool PodGroup::FastAdmission() const {
  return !single_ && !pods_.empty() &&
         MetaMapValue(pods_.front(), "annotations", kPodGroupFastAdmissionAnnotation) == "true";
}

bool PodGroup::Serving() const {
  return !single_ && !pods_.empty() &&
         MetaMapValue(pods_.front(), "annotations", kPodGroupServingAnnotation) == "true";
}

bool PodGroup::Complete() const {
  const int64_t total = TotalCount();
  const int64_t active = static_cast<int64_t>(ActivePods().size());
  if (FastAdmission()) return total > 0 && active > 0;
  return total > 0 && active >= total;
}

std::string PodGroup::PodSetOf(const Json& pod) const {
  return single_ ? "main" : PodRoleHash(pod);
}

Result<Json> PodGroup::BuildWorkload() const {
  if (!Complete()) return Status::Invalid("pod group " + key_ + " is not complete");
  const std::vector<const Json*> active = ActivePods();
  if (single_) return BuildSinglePodWorkload(*active.front());
  // Pod sets by role, in the order their first pods were created; at most
  // TotalCount pods in all (extra pods are not admitted).
  std::vector<std::string> order;
  std::map<std::string, Json> sets;
  int64_t left = TotalCount();
  for (const Json* p : active) {
    if (left-- <= 0) break;
    const std::string role = PodSetOf(*p);
    auto it = sets.find(role);
    if (it == sets.end()) {
      order.push_back(role);
      KUOTA_ASSIGN_OR_RETURN(sets[role], PodSetOfPod(*p, role));
    } else {
      it->second["count"] = it->second["count"].get<int64_t>() + 1;
    }
  }
  // Fast admission (a StatefulSet's pods, made one by one): the group's one
  // role asks for every pod the group will have.
  if (FastAdmission() && order.size() == 1) sets[order.front()]["count"] = TotalCount();
  Json pod_sets = Json::array();
  for (const auto& role : order) pod_sets.push_back(sets[role]);
  Json owners = Json::array();
  for (const auto& p : pods_) {
    owners.push_back({{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"name", MetaStr(p, "name")},
                      {"uid", MetaStr(p, "uid")},
                      {"blockOwnerDeletion", true}});
  }
  const Json& first = *active.front();
  const size_t slash = key_.find('/');
  Json wl = {
      {"apiVersion", api::kKueueV1beta2},
      {"kind", "Workload"},
      {"metadata",
       {{"name", key_.substr(slash + 1)},
        {"namespace", key_.substr(0, slash)},
        {"annotations", {{kIsGroupWorkloadAnnotation, "true"}}},
        {"ownerReferences", owners}}},
      {"spec", {{"queueName", JobKind::QueueName(first)}, {"podSets", pod_sets}}},
  };
  SetPodPriority(first, wl);
  return wl;
}

bool PodGroup::Finished(bool* succeeded) const {
  if (pods_.empty() || Serving()) return false;
  if (single_) {
    if (!PodIsTerminal(pods_.front())) return false;
    *succeeded = PodPhase(pods_.front()) == "Succeeded";
    return true;
  }
  int64_t ok = 0;
  bool all_ended = true, not_retriable = false;
  for (const auto& p : pods_) {
    ok += PodPhase(p) == "Succeeded";
    all_ended = all_ended && PodIsTerminal(p);
    auto m = p.find("metadata");
    if (m != p.end() && m->is_object() && m->contains("annotations") &&
        (*m)["annotations"].is_object() &&
        (*m)["annotations"].value(kRetriableInGroupAnnotation, "") == "false") {
      not_retriable = true;
    }
  }
  if (ok >= TotalCount()) {
    *succeeded = true;
    return true;
  }
  if (all_ended && not_retriable) {
    *succeeded = false;
    return true;
  }
  return false;
}

bool PodGroup::PodsReady() const {
  const auto active = ActivePods();
  if (active.empty()) return false;
  for (const Json* p : active) {
    const std::string phase = PodPhase(*p);
    if (phase != "Running" && phase != "Succeeded") return false;
  }
  return true;
}

}  // namespace kuota::jobs
