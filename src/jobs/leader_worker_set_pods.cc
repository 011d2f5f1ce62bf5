#include "jobs/leader_worker_set_pods.h"

#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "jobctl/submitter.h"
#include "jobs/job_fields.h"
#include "jobs/leader_worker_set.h"
#include "jobs/pod_kind.h"

namespace kuota::jobs {
namespace {

// Every pod runs on this machine: the leader's Service address is this one.
constexpr const char* kLwsLeaderAddress = "127.0.0.1";
// Pods made in one pass at most (a StatefulSet controller's burst): the
// next pass, on their creation events, makes the rest.
constexpr size_t kLwsCreateBurst = 256;

std::string LwsHash(const std::string& s) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(std::hash<std::string>{}(s)));
  return hex;
}

std::string PodNameOf(const Json& lws, int64_t group, int64_t worker) {
  std::string name = JobName(lws) + "-" + std::to_string(group);
  if (worker > 0) name += "-" + std::to_string(worker);
  return name;
}

// LWS's addEnvVarsIfNotExists: its three variables first, then the
// container's own (one of the same name in the template wins).
void AddLwsEnv(Json& container, const std::vector<std::pair<std::string, std::string>>& env) {
  if (!container.is_object()) return;
  Json out = Json::array();
  std::set<std::string> seen;
  const Json own =
      container.contains("env") && container["env"].is_array() ? container["env"] : Json::array();
  for (const auto& [name, value] : env) {
    out.push_back({{"name", name}, {"value", value}});
    seen.insert(name);
  }
  for (const Json& e : own) {
    const std::string name = e.is_object() ? e.value("name", "") : "";
    if (seen.count(name) != 0) continue;
    seen.insert(name);
    out.push_back(e);
  }
  container["env"] = std::move(out);
}

bool PodRunning(const Json& pod) { return PodPhase(pod) == "Running" && !PodIsDeleting(pod); }

Json LwsCondition(const std::string& type, const std::string& status, const std::string& reason,
                  const std::string& message, const std::string& now, int64_t generation) {
  return {{"type", type},       {"status", status},          {"reason", reason},
          {"message", message}, {"lastTransitionTime", now}, {"observedGeneration", generation}};
}

// LWS's setCondition: `c` (True) replaces the condition of its type when its
// status or generation differs, and turns the exclusive one (Available vs
// Progressing) False.
void SetLwsCondition(Json& conditions, const Json& c) {
  if (!conditions.is_array()) conditions = Json::array();
  bool found = false;
  const std::string type = c["type"];
  for (Json& old : conditions) {
    if (!old.is_object()) continue;
    const std::string ot = old.value("type", "");
    if (ot == type) {
      found = true;
      if (old.value("status", "") != "True" ||
          old.value("observedGeneration", int64_t{0}) != c["observedGeneration"]) {
        old = c;
      }
    } else if ((ot == "Available" || type == "Available") && old.value("status", "") == "True") {
      old["status"] = "False";
      old["lastTransitionTime"] = c["lastTransitionTime"];
      old["observedGeneration"] = c["observedGeneration"];
    }
  }
  if (!found) conditions.push_back(c);
}

}  // namespace

Json LeaderWorkerSetPod(const Json& lws, int64_t group, int64_t worker) {
  const Json& lwt = ObjAt(SpecOf(lws), "leaderWorkerTemplate");
  const bool leader_template = LeaderWorkerSetKind::HasLeaderTemplate(lws);
  const Json& tmpl =
      worker == 0 && leader_template ? lwt["leaderTemplate"] : ObjAt(lwt, "workerTemplate");
  const std::string name = JobName(lws), ns = MetaStr(lws, "namespace");
  const std::string leader = PodNameOf(lws, group, 0);
  const int64_t size = LeaderWorkerSetKind::Size(lws);
  Json meta = Json::object();
  const Json& tm = ObjAt(tmpl, "metadata");
  meta["labels"] = ObjAt(tm, "labels");
  meta["annotations"] = ObjAt(tm, "annotations");
  meta["name"] = PodNameOf(lws, group, worker);
  meta["namespace"] = ns;
  meta["labels"][kLwsNameLabel] = name;
  meta["labels"][kLwsGroupIndexLabel] = std::to_string(group);
  meta["labels"][kLwsWorkerIndexLabel] = std::to_string(worker);
  meta["labels"][kLwsGroupKeyLabel] = LwsHash(ns + "/" + leader) + LwsHash(leader + "/" + ns);
  meta["labels"][kLwsRevisionLabel] = LwsHash(lwt.dump()).substr(0, 10);
  meta["annotations"][kLwsSizeAnnotation] = std::to_string(size);
  if (worker > 0) meta["annotations"][kLwsLeaderNameAnnotation] = leader;
  meta["ownerReferences"] = Json::array({ControllerOwnerRef(
      "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", name, MetaStr(lws, "uid"))});
  Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", std::move(meta)}};
  pod["spec"] = ObjAt(tmpl, "spec");
  // A StatefulSet pod's hostname, in the set's headless Service.
  pod["spec"]["hostname"] = pod["metadata"]["name"];
  pod["spec"]["subdomain"] =
      StrAt(ObjAt(SpecOf(lws), "networkConfig"), "subdomainPolicy") == "UniquePerReplica" ? leader
                                                                                          : name;
  const std::vector<std::pair<std::string, std::string>> env = {
      {"LWS_LEADER_ADDRESS", kLwsLeaderAddress},
      {"LWS_GROUP_SIZE", std::to_string(size)},
      {"LWS_WORKER_INDEX", std::to_string(worker)}};
  for (const char* list : {"containers", "initContainers"}) {
    if (!pod["spec"].contains(list) || !pod["spec"][list].is_array()) continue;
    for (Json& c : pod["spec"][list]) AddLwsEnv(c, env);
  }
  jobctl::CopySubmitterAnnotations(lws, pod);
  // Kueue's pod webhook on a pod whose parent its LWS webhook suspended:
  // created gated, for Kueue's LWS controller to name its group's Workload.
  if (LeaderWorkerSetKind::SuspendedByLeaderWorkerSet(pod)) DefaultManagedPodOnCreate(pod);
  return pod;
}

Result<GroupActions> ReconcileLeaderWorkerSet(const Json& lws, const std::vector<Json>& pods,
                                              const std::string& now) {
  GroupActions out;
  const int64_t replicas = LeaderWorkerSetKind::Replicas(lws);
  const int64_t size = LeaderWorkerSetKind::Size(lws);
  const Json& spec = SpecOf(lws);
  const Json& lwt = ObjAt(spec, "leaderWorkerTemplate");
  const std::string restart = StrAt(lwt, "restartPolicy");
  const bool recreate_group = restart != "None" && restart != "Default";
  const bool leader_ready_first = StrAt(spec, "startupPolicy") == "LeaderReady";

  // group -> worker index -> pod
  std::map<int64_t, std::map<int64_t, const Json*>> groups;
  for (const Json& pod : pods) {
    const std::string g = MetaMapValue(pod, "labels", kLwsGroupIndexLabel);
    const std::string w = MetaMapValue(pod, "labels", kLwsWorkerIndexLabel);
    char* end = nullptr;
    const long long gi = std::strtoll(g.c_str(), &end, 10);
    if (g.empty() || *end != '\0') continue;
    const long long wi = std::strtoll(w.c_str(), &end, 10);
    if (w.empty() || *end != '\0') continue;
    if (gi >= replicas || wi >= size) {
      // Scaled down: the group (or a worker beyond the size) goes.
      if (!PodIsDeleting(pod)) out.delete_pods.push_back(MetaStr(pod, "name"));
      continue;
    }
    groups[gi][wi] = &pod;
  }

  int64_t created_groups = 0, ready_groups = 0, updated_groups = 0;
  const std::string revision = LwsHash(lwt.dump()).substr(0, 10);
  for (int64_t g = 0; g < replicas; ++g) {
    auto& members = groups[g];
    bool deleting = false, failed = false;
    for (const auto& [w, pod] : members) {
      deleting = deleting || PodIsDeleting(*pod);
      failed = failed || (PodPhase(*pod) == "Failed" && !PodIsDeleting(*pod));
    }
    const auto leader = members.find(0);
    const bool has_leader = leader != members.end() && !PodIsDeleting(*leader->second);
    if (has_leader) {
      ++created_groups;
      if (MetaMapValue(*leader->second, "labels", kLwsRevisionLabel) == revision) ++updated_groups;
    }
    const bool workers_due = !leader_ready_first || (has_leader && PodRunning(*leader->second));
    // A pod of a made group is gone: the leader while workers remain, or
    // some of the workers (a group's workers are made together, in one pass).
    const int64_t workers = static_cast<int64_t>(members.size()) - (leader != members.end());
    const bool lost =
        (!has_leader && !members.empty()) || (has_leader && workers > 0 && workers < size - 1);
    if (recreate_group && (failed || lost || deleting)) {
      // RecreateGroupOnPodRestart: the group is recreated whole, once every
      // one of its pods is gone.
      for (const auto& [w, pod] : members) {
        if (!PodIsDeleting(*pod)) out.delete_pods.push_back(MetaStr(*pod, "name"));
      }
      if (failed || lost) {
        out.events.push_back({"Normal", "RecreateGroupOnPodRestart",
                              "Recreating group " + std::to_string(g) +
                                  ": a pod of the group failed or was deleted"});
      }
      continue;
    }
    bool ready = has_leader && PodRunning(*leader->second);
    // A group's missing pods are made in one pass; other groups wait once a
    // pass has made a burst.
    const bool may_create = out.create_pods.size() < kLwsCreateBurst;
    for (int64_t w = 0; w < size; ++w) {
      auto it = members.find(w);
      if (it != members.end()) {
        if (PodPhase(*it->second) == "Failed" && !PodIsDeleting(*it->second)) {
          out.delete_pods.push_back(MetaStr(*it->second, "name"));  // None: this pod alone
        }
        ready = ready && PodRunning(*it->second);
        continue;
      }
      ready = false;
      if (!may_create || (w > 0 && !workers_due)) break;  // a later pass makes it
      out.create_pods.push_back(LeaderWorkerSetPod(lws, g, w));
    }
    if (ready) ++ready_groups;
  }

  // LWS's status.
  const Json old = ObjAt(lws, "status");
  Json status = old.is_object() ? old : Json::object();
  const int64_t generation = IntAt(ObjAt(lws, "metadata"), "generation", 0);
  status["replicas"] = created_groups;
  status["readyReplicas"] = ready_groups;
  status["updatedReplicas"] = updated_groups;
  status["observedGeneration"] = generation;
  status["hpaPodSelector"] =
      std::string(kLwsNameLabel) + "=" + JobName(lws) + "," + kLwsWorkerIndexLabel + "=0";
  const bool available = ready_groups == replicas;
  const Json c = available ? LwsCondition("Available", "True", "AllGroupsReady",
                                          "All replicas are ready", now, generation)
                           : LwsCondition("Progressing", "True", "GroupsProgressing",
                                          "Replicas are progressing", now, generation);
  Json conditions = status.value("conditions", Json::array());
  const Json before = conditions;
  SetLwsCondition(conditions, c);
  status["conditions"] = conditions;
  if (conditions != before) {
    out.events.push_back({"Normal", c["reason"].get<std::string>(),
                          c["message"].get<std::string>() + ", with " +
                              std::to_string(ready_groups) + " groups ready of total " +
                              std::to_string(replicas) + " groups"});
  }
  if (status != old) out.status = std::move(status);
  return out;
}

}  // namespace kuota::jobs
