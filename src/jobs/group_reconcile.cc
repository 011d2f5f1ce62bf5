#include "jobs/group_reconcile.h"

#include <map>
#include <set>

#include "jobctl/submitter.h"
#include "jobs/job_fields.h"

namespace kuota::jobs {
namespace {

// The address every pod of a job is reached at: they all run on this machine.
constexpr const char* kLocalAddress = "127.0.0.1";

std::string Label(const Json& pod, const char* key) { return MetaMapValue(pod, "labels", key); }
std::string Annotation(const Json& pod, const char* key) {
  return MetaMapValue(pod, "annotations", key);
}

std::string Phase(const Json& pod) {
  auto s = pod.find("status");
  if (s == pod.end() || !s->is_object()) return "Pending";
  return s->value("phase", "Pending");
}

// Kube marks a pod stopped by an eviction or preemption with a DisruptionTarget
// condition (or the reason "Evicted").
bool WasEvicted(const Json& pod) {
  auto s = pod.find("status");
  if (s == pod.end() || !s->is_object()) return false;
  if (s->value("reason", "") == "Evicted") return true;
  auto conds = s->find("conditions");
  if (conds == s->end() || !conds->is_array()) return false;
  for (const auto& c : *conds) {
    if (c.is_object() && c.value("type", "") == "DisruptionTarget" &&
        c.value("status", "") == "True") {
      return true;
    }
  }
  return false;
}

bool Terminal(const std::string& phase) { return phase == "Succeeded" || phase == "Failed"; }

// The first container of a failed pod that ended with a non-zero exit code,
// as kube reports it; empty when there is none.
std::string ContainerFailure(const Json& pod) {
  const Json& status = ObjAt(pod, "status");
  for (const Json& cs : ArrAt(status, "containerStatuses")) {
    const Json& t = ObjAt(ObjAt(cs, "state"), "terminated");
    if (t.empty() || IntAt(t, "exitCode", 0) == 0) continue;
    std::string out =
        "container " + StrAt(cs, "name") + ": exit code " + std::to_string(IntAt(t, "exitCode", 0));
    if (!StrAt(t, "reason").empty()) out += ", " + StrAt(t, "reason");
    if (!StrAt(t, "message").empty()) out += ": " + StrAt(t, "message");
    return out;
  }
  return StrAt(status, "message");
}

struct PodRef {
  const Json* pod;
  std::string name;
  std::string phase;
  bool deleting;
};

Json BuildPod(const GroupJobKind& kind, const Json& job, const std::vector<PodSetDef>& sets,
              size_t set, int64_t index) {
  const Json* tmpl = FindTemplate(job, sets[set]);
  Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  Json meta = Json::object();
  if (tmpl != nullptr && tmpl->contains("metadata") && (*tmpl)["metadata"].is_object()) {
    for (const char* f : {"labels", "annotations"}) {
      if ((*tmpl)["metadata"].contains(f) && (*tmpl)["metadata"][f].is_object()) {
        meta[f] = (*tmpl)["metadata"][f];
      }
    }
  }
  const std::string job_name = MetaStr(job, "name");
  meta["name"] = kind.PodName(job, sets[set], index);
  meta["namespace"] = MetaStr(job, "namespace");
  meta["labels"][kJobNameLabel] = job_name;
  meta["labels"][kPodSetLabel] = sets[set].name;
  meta["labels"][kReplicaIndexLabel] = std::to_string(index);
  meta["ownerReferences"] = Json::array(
      {ControllerOwnerRef(kind.ApiVersion(), kind.Kind(), job_name, MetaStr(job, "uid"))});
  pod["metadata"] = std::move(meta);
  pod["spec"] = tmpl != nullptr ? tmpl->value("spec", Json::object()) : Json::object();
  PodPosition where{&sets, set, index, kLocalAddress};
  kind.CustomizePod(job, where, pod);
  // The pod runs as the job's submitter: exactly the job's submitter
  // annotations, never ones its template (or the kind) put there.
  jobctl::CopySubmitterAnnotations(job, pod);
  // A pod of a group job is restarted by the job's policy (OnPodEvent, with
  // its restart count), not in place: a template silent on restartPolicy
  // would otherwise get the pod default, Always, and rerun a finished rank.
  if (pod["spec"].is_object() && !pod["spec"].contains("restartPolicy")) {
    pod["spec"]["restartPolicy"] = "Never";
  }
  return pod;
}

}  // namespace

Result<GroupActions> ReconcileGroup(const GroupJobKind& kind, const Json& stored,
                                    const std::vector<Json>& pods, const std::string& now) {
  const std::optional<Json> expanded = kind.Expand(stored);
  const Json& job = expanded ? *expanded : stored;
  KUOTA_RETURN_IF_ERROR(kind.Validate(job));
  GroupActions out;
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  std::map<std::string, size_t> set_index;
  for (size_t i = 0; i < sets.size(); ++i) set_index[sets[i].name] = i;

  // The pods of each set by replica index; pods of sets the job no longer
  // has, or beyond a set's count, are deleted.
  std::vector<std::map<int64_t, PodRef>> by_set(sets.size());
  bool any_deleting = false;
  for (const Json& pod : pods) {
    PodRef ref{&pod, MetaStr(pod, "name"), Phase(pod), !MetaStr(pod, "deletionTimestamp").empty()};
    any_deleting = any_deleting || ref.deleting;
    auto s = set_index.find(Label(pod, kPodSetLabel));
    const std::string idx_text = Label(pod, kReplicaIndexLabel);
    int64_t idx = -1;
    if (!idx_text.empty() && idx_text.find_first_not_of("0123456789") == std::string::npos &&
        idx_text.size() < 10) {
      idx = std::stoll(idx_text);
    }
    if (s == set_index.end() || idx < 0 || idx >= sets[s->second].count ||
        by_set[s->second].count(idx)) {
      if (!ref.deleting) out.delete_pods.push_back(ref.name);
      continue;
    }
    by_set[s->second][idx] = ref;
  }

  GroupObservation seen;
  seen.now = now;
  seen.suspended = kind.IsSuspended(job);
  seen.restarts = kind.Restarts(job);
  seen.sets.resize(sets.size());
  bool finished_before = false;
  {
    bool ok = false;
    finished_before = kind.IsFinished(job, &ok);
  }

  auto delete_active = [&](bool include_terminal) {
    for (auto& pods_of_set : by_set) {
      for (auto& [i, ref] : pods_of_set) {
        if (ref.deleting) continue;
        if (!include_terminal && Terminal(ref.phase)) continue;
        out.delete_pods.push_back(ref.name);
        ref.deleting = true;
      }
    }
  };

  GroupAction decided = GroupAction::kNone;
  std::string why;
  if (seen.suspended) {
    delete_active(/*include_terminal=*/true);
  } else if (finished_before) {
    delete_active(/*include_terminal=*/false);
  } else {
    // Pods that ended: the kind's policy decides, the first decision that
    // stops or restarts the whole job wins.
    for (size_t s = 0; s < sets.size(); ++s) {
      for (auto& [i, ref] : by_set[s]) {
        // A running pod someone else deleted: an eviction, handled once (the
        // annotation the deletion below adds says so).
        const bool evicted_by_delete = ref.deleting && !Terminal(ref.phase) &&
                                       Annotation(*ref.pod, kDeletionHandledAnnotation).empty();
        if (evicted_by_delete) out.delete_pods.push_back(ref.name);
        if (!evicted_by_delete && (ref.deleting || !Terminal(ref.phase))) continue;
        const PodEvent ev = ref.phase == "Succeeded"                    ? PodEvent::kSucceeded
                            : evicted_by_delete || WasEvicted(*ref.pod) ? PodEvent::kEvicted
                                                                        : PodEvent::kFailed;
        GroupAction a = kind.OnPodEvent(job, sets[s], ev);
        if (a == GroupAction::kRestartPod) {
          if (seen.restarts >= kind.MaxRestarts(job)) {
            a = GroupAction::kFailJob;
          } else {
            ++seen.restarts;
            if (!evicted_by_delete) out.delete_pods.push_back(ref.name);
            ref.deleting = true;
            out.events.push_back({"Normal", "RestartingPod",
                                  "Restarting pod " + ref.name + " after it " +
                                      (ev == PodEvent::kEvicted ? "was evicted" : "failed")});
            continue;
          }
        }
        if (a == GroupAction::kRestartJob && seen.restarts >= kind.MaxRestarts(job)) {
          a = GroupAction::kFailJob;
        }
        if (a != GroupAction::kNone && decided == GroupAction::kNone) {
          decided = a;
          why = "pod " + ref.name +
                (ev == PodEvent::kSucceeded ? " succeeded"
                 : ev == PodEvent::kEvicted ? " was evicted"
                                            : " failed");
        }
      }
    }
    if (decided == GroupAction::kRestartJob) {
      ++seen.restarts;
      seen.restarting = true;
      delete_active(/*include_terminal=*/true);
      out.events.push_back({"Normal", "RestartingJob", "Restarting the job: " + why});
    } else if (decided == GroupAction::kFailJob) {
      seen.outcome = GroupObservation::Outcome::kFailed;
      seen.reason = seen.restarts >= kind.MaxRestarts(job) ? "BackoffLimitExceeded" : "PodFailed";
      seen.message = seen.restarts >= kind.MaxRestarts(job)
                         ? "Job has reached the specified backoff limit: " + why
                         : "Job failed: " + why;
      delete_active(/*include_terminal=*/false);
      out.events.push_back({"Warning", seen.reason, seen.message});
    } else if (decided == GroupAction::kCompleteJob) {
      seen.outcome = GroupObservation::Outcome::kSucceeded;
      seen.reason = "Completed";
      seen.message = "Job completed: " + why;
      delete_active(/*include_terminal=*/false);
      out.events.push_back({"Normal", "Completed", seen.message});
    }
  }

  // Count what is there now (pods being deleted are gone for the count).
  for (size_t s = 0; s < sets.size(); ++s) {
    for (const auto& [i, ref] : by_set[s]) {
      if (ref.deleting) continue;
      seen.pods.push_back(
          {s, i, ref.name, ref.phase, ref.phase == "Failed" ? ContainerFailure(*ref.pod) : ""});
      if (ref.phase == "Running") {
        ++seen.sets[s].running;
      } else if (ref.phase == "Succeeded") {
        ++seen.sets[s].succeeded;
      } else if (ref.phase == "Failed") {
        ++seen.sets[s].failed;
      } else {
        ++seen.sets[s].pending;
      }
    }
  }
  if (!seen.suspended && !finished_before && seen.outcome == GroupObservation::Outcome::kRunning &&
      !seen.restarting && kind.Succeeded(job, sets, seen)) {
    seen.outcome = GroupObservation::Outcome::kSucceeded;
    seen.reason = "Succeeded";
    seen.message = "Job succeeded";
    delete_active(/*include_terminal=*/false);
    out.events.push_back({"Normal", "Completed", "Job completed"});
  }

  // Create missing pods: all of a stage together, a later stage once every
  // pod of the earlier ones runs. Not while any pod is still being deleted
  // (a restart must not overlap the old pods), suspended or finished.
  const bool may_create = !seen.suspended && !finished_before && !any_deleting &&
                          !seen.restarting && out.delete_pods.empty() &&
                          seen.outcome == GroupObservation::Outcome::kRunning;
  if (may_create) {
    std::set<int> stages;
    for (const auto& s : sets) stages.insert(s.stage);
    for (int stage : stages) {
      bool stage_up = true;
      for (size_t s = 0; s < sets.size(); ++s) {
        if (sets[s].stage != stage) continue;
        for (int64_t i = 0; i < sets[s].count; ++i) {
          auto it = by_set[s].find(i);
          if (it == by_set[s].end()) {
            out.create_pods.push_back(BuildPod(kind, job, sets, s, i));
            ++seen.sets[s].pending;
            seen.pods.push_back({s, i, MetaStr(out.create_pods.back(), "name"), "Pending", ""});
            stage_up = false;
          } else if (it->second.phase != "Running" && it->second.phase != "Succeeded") {
            stage_up = false;
          }
        }
      }
      if (!stage_up) break;
    }
  }

  Json status = kind.NextStatus(job, seen);
  const Json old = job.contains("status") ? job["status"] : Json();
  if (status != old) out.status = std::move(status);
  return out;
}

}  // namespace kuota::jobs
