#include "jobctl/job_controller.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "jobctl/completed_indexes.h"
#include "jobctl/job_conditions.h"
#include "jobctl/job_spec.h"
#include "jobctl/pod_state.h"
#include "jobctl/pod_template.h"

namespace kuota::jobctl {
namespace {

// Kubernetes writes status times with whole seconds.
Time TruncateToSeconds(Time t) {
  int64_t ms = t.unix_ms % 1000;
  if (ms < 0) ms += 1000;
  return Time{t.unix_ms - ms};
}

std::optional<Time> ReadTime(const Json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return std::nullopt;
  Result<Time> t = ParseRfc3339(it->get<std::string>());
  if (!t.ok()) return std::nullopt;
  return *t;
}

// A non-negative counter of the status; 0 when absent or unreadable.
int64_t ReadCount(const Json& status, const char* key) {
  auto it = status.find(key);
  if (it == status.end() || !it->is_number_integer()) return 0;
  return std::max<int64_t>(0, it->get<int64_t>());
}

// Counters Kubernetes omits when zero (omitempty int32).
void SetCount(Json& status, const char* key, int64_t value) {
  if (value == 0) {
    status.erase(key);
  } else {
    status[key] = value;
  }
}

// base * 2^(failures-1), capped at max (Kubernetes' getRemainingTimeForFailuresCount).
Duration PodFailureBackoff(int64_t failures, const JobControllerOptions& options) {
  const int64_t max_ms = std::max<int64_t>(0, options.pod_failure_backoff_max.ms);
  int64_t d = std::clamp<int64_t>(options.pod_failure_backoff_base.ms, 0, max_ms);
  for (int64_t i = 1; i < failures && d < max_ms; ++i) d = std::min(max_ms, d * 2);
  return Duration{d};
}

// How the Job ends, once decided: success, or failure with a reason.
struct Finish {
  bool success = false;
  std::string reason;
  std::string message;
};

// The state one call works on: pods sorted out, counters, and the actions.
class Reconciler {
 public:
  Reconciler(const JobSpec& spec, const JobControllerOptions& options, Time now)
      : spec_(spec), options_(options), now_(now), stamp_(TruncateToSeconds(now)) {}

  JobActions Run(const Json& job, const std::vector<Json>& pods);

 private:
  void ReadPods(const std::vector<Json>& pods, const Json& old_status);
  void ManagePods();
  std::optional<Time> BackoffUntil() const;
  void DeletePod(const PodState& pod);
  void CreatePods(int64_t count);
  void Requeue(Time t) {
    if (!out_.requeue_at || t < *out_.requeue_at) out_.requeue_at = t;
  }
  int64_t Want() const;

  const JobSpec& spec_;
  const JobControllerOptions& options_;
  const Time now_;
  const Time stamp_;  // now, as written into the status
  JobActions out_;

  std::vector<PodState> pods_;  // owned pods, by name
  std::vector<const PodState*> active_;
  int64_t active_count_ = 0;
  int64_t ready_ = 0;
  int64_t terminating_ = 0;
  int64_t succeeded_ = 0;
  int64_t failed_ = 0;
  IndexSet completed_;  // Indexed: finished indexes
};

void Reconciler::ReadPods(const std::vector<Json>& pods, const Json& old_status) {
  for (const Json& p : pods) {
    if (!p.is_object() || !IsControlledBy(p, spec_.uid)) continue;
    PodState s = ReadPodState(p);
    if (!s.name.empty()) pods_.push_back(std::move(s));
  }
  std::sort(pods_.begin(), pods_.end(),
            [](const PodState& a, const PodState& b) { return a.name < b.name; });
  pods_.erase(std::unique(pods_.begin(), pods_.end(),
                          [](const PodState& a, const PodState& b) { return a.name == b.name; }),
              pods_.end());

  if (spec_.indexed) {
    auto it = old_status.find("completedIndexes");
    if (it != old_status.end() && it->is_string()) {
      Result<IndexSet> prev = ParseCompletedIndexes(it->get<std::string>(), *spec_.completions);
      if (prev.ok()) completed_ = std::move(prev).value();
    }
  }
  int64_t succeeded_pods = 0;
  int64_t failed_pods = 0;
  for (const PodState& p : pods_) {
    if (p.phase == PodPhase::kSucceeded) {
      ++succeeded_pods;
      if (spec_.indexed && p.index && *p.index < *spec_.completions) completed_.insert(*p.index);
    } else if (p.deleting) {
      // Deleted by the controller: terminating while it runs, never a failure.
      if (p.phase != PodPhase::kFailed) ++terminating_;
    } else if (p.phase == PodPhase::kFailed) {
      ++failed_pods;
    } else {
      active_.push_back(&p);
      if (p.ready) ++ready_;
    }
  }
  active_count_ = static_cast<int64_t>(active_.size());
  failed_ = std::max(ReadCount(old_status, "failed"), failed_pods);
  succeeded_ = spec_.indexed ? static_cast<int64_t>(completed_.size())
                             : std::max(ReadCount(old_status, "succeeded"), succeeded_pods);
}

void Reconciler::DeletePod(const PodState& pod) {
  out_.delete_pods.push_back(pod.name);
  out_.events.push_back({"Normal", "SuccessfulDelete", "Deleted pod: " + pod.name});
  --active_count_;
  ++terminating_;
  if (pod.ready) --ready_;
}

int64_t Reconciler::Want() const {
  if (!spec_.completions) return succeeded_ > 0 ? active_count_ : spec_.parallelism;
  return std::clamp<int64_t>(*spec_.completions - succeeded_, 0, spec_.parallelism);
}

// When replacing failed pods may resume: the last failure plus the backoff for
// the failures since the last success, ordered by when the pods finished.
std::optional<Time> Reconciler::BackoffUntil() const {
  std::vector<const PodState*> finished;
  for (const PodState& p : pods_) {
    if (p.phase == PodPhase::kSucceeded || (p.phase == PodPhase::kFailed && !p.deleting)) {
      finished.push_back(&p);
    }
  }
  std::sort(finished.begin(), finished.end(), [](const PodState* a, const PodState* b) {
    if (a->finished != b->finished) return a->finished < b->finished;
    return a->name < b->name;
  });
  int64_t failures = 0;
  std::optional<Time> last_failure;
  for (const PodState* p : finished) {
    if (p->phase == PodPhase::kSucceeded) {
      failures = 0;
      last_failure.reset();
    } else {
      ++failures;
      if (p->finished) last_failure = p->finished;
    }
  }
  if (failures == 0 || !last_failure) return std::nullopt;
  const Time until = *last_failure + PodFailureBackoff(failures, options_);
  if (until <= now_) return std::nullopt;
  return until;
}

void Reconciler::CreatePods(int64_t count) {
  if (!spec_.indexed) {
    for (int64_t i = 0; i < count; ++i) out_.create_pods.push_back(BuildPod(spec_, std::nullopt));
    active_count_ += count;
    return;
  }
  IndexSet taken = completed_;
  for (const PodState* p : active_) {
    if (p->index) taken.insert(*p->index);
  }
  for (int32_t ix = 0; ix < *spec_.completions && count > 0; ++ix) {
    if (taken.count(ix)) continue;
    out_.create_pods.push_back(BuildPod(spec_, ix));
    ++active_count_;
    --count;
  }
}

// Kubernetes' manageJob for a running (not suspended, not finishing) Job:
// delete surplus or misplaced pods, or else create the missing ones; never
// both in one call.
void Reconciler::ManagePods() {
  const int64_t want = Want();
  std::vector<const PodState*> remove;  // must go regardless of counts
  std::vector<const PodState*> useful;
  if (spec_.indexed) {
    // One active pod per pending index; pods without a valid index, of an
    // index already completed, or duplicating another are removed.
    std::map<int32_t, std::vector<const PodState*>> by_index;
    for (const PodState* p : active_) {
      if (!p->index || *p->index >= *spec_.completions || completed_.count(*p->index)) {
        remove.push_back(p);
      } else {
        by_index[*p->index].push_back(p);
      }
    }
    for (auto& [ix, group] : by_index) {
      std::sort(group.begin(), group.end(),
                [](const PodState* a, const PodState* b) { return RemoveBefore(*a, *b); });
      useful.push_back(group.back());  // keep the most advanced one
      remove.insert(remove.end(), group.begin(), group.end() - 1);
    }
  } else {
    useful = active_;
  }
  auto order = [](const PodState* a, const PodState* b) { return RemoveBefore(*a, *b); };
  std::sort(remove.begin(), remove.end(), order);
  std::sort(useful.begin(), useful.end(), order);
  const int64_t surplus = static_cast<int64_t>(useful.size()) - want;
  for (int64_t i = 0; i < surplus; ++i) remove.push_back(useful[static_cast<size_t>(i)]);

  const size_t cap = static_cast<size_t>(std::max(1, options_.max_pods_per_sync));
  if (!remove.empty()) {
    if (remove.size() > cap) {
      remove.resize(cap);
      Requeue(now_);
    }
    for (const PodState* p : remove) DeletePod(*p);
    return;
  }
  int64_t missing = want - active_count_;
  if (missing <= 0) return;
  if (std::optional<Time> until = BackoffUntil()) {
    Requeue(*until);
    return;
  }
  if (missing > static_cast<int64_t>(cap)) {
    missing = static_cast<int64_t>(cap);
    Requeue(now_);
  }
  CreatePods(missing);
}

JobActions Reconciler::Run(const Json& job, const std::vector<Json>& pods) {
  auto status_it = job.find("status");
  const Json old_status =
      status_it != job.end() && status_it->is_object() ? *status_it : Json::object();
  Json conditions = old_status.value("conditions", Json::array());
  if (!conditions.is_array()) conditions = Json::array();

  // A finished Job does nothing more but wait for its TTL.
  const Json* done = nullptr;
  if (IsConditionTrue(conditions, kJobComplete)) {
    done = FindCondition(conditions, kJobComplete);
  } else if (IsConditionTrue(conditions, kJobFailed)) {
    done = FindCondition(conditions, kJobFailed);
  }
  if (done != nullptr) {
    if (spec_.ttl_seconds_after_finished) {
      std::optional<Time> at = ReadTime(*done, "lastTransitionTime");
      if (!at) at = ReadTime(old_status, "completionTime");
      if (at) {
        const Time expiry = *at + Duration{*spec_.ttl_seconds_after_finished * 1000};
        if (now_ >= expiry) {
          out_.delete_job = true;
        } else {
          Requeue(expiry);
        }
      }
    }
    return std::move(out_);
  }
  if (spec_.deleting) return std::move(out_);

  ReadPods(pods, old_status);
  // status.startTime: set when the Job first runs, cleared while suspended.
  const std::optional<Time> stored_start = ReadTime(old_status, "startTime");
  Time start = stored_start.value_or(stamp_);
  bool has_start = stored_start.has_value() || !spec_.suspend;
  std::optional<Time> completion = ReadTime(old_status, "completionTime");

  // Success or failure already decided in an earlier call, or decided now.
  std::optional<Finish> finish;
  if (IsConditionTrue(conditions, kJobSuccessCriteriaMet)) {
    const Json* c = FindCondition(conditions, kJobSuccessCriteriaMet);
    finish = Finish{true, c->value("reason", ""), c->value("message", "")};
  } else if (IsConditionTrue(conditions, kJobFailureTarget)) {
    const Json* c = FindCondition(conditions, kJobFailureTarget);
    finish = Finish{false, c->value("reason", ""), c->value("message", "")};
  } else {
    int64_t restarts = 0;
    if (spec_.restart_policy == RestartPolicy::kOnFailure) {
      for (const PodState* p : active_) restarts += p->restarts;
    }
    const bool restarts_exceeded =
        spec_.restart_policy == RestartPolicy::kOnFailure &&
        (spec_.backoff_limit == 0 ? restarts > 0 : restarts >= spec_.backoff_limit);
    if (failed_ > spec_.backoff_limit || restarts_exceeded) {
      finish = Finish{false, kReasonBackoffLimitExceeded, kMessageBackoffLimitExceeded};
    } else if (spec_.active_deadline_seconds && !spec_.suspend &&
               now_ >= start + Duration{*spec_.active_deadline_seconds * 1000}) {
      finish = Finish{false, kReasonDeadlineExceeded, kMessageDeadlineExceeded};
    }
  }

  if (finish) {
    // A finishing Job keeps no pods running.
    std::vector<const PodState*> doomed = active_;
    std::sort(doomed.begin(), doomed.end(),
              [](const PodState* a, const PodState* b) { return RemoveBefore(*a, *b); });
    for (const PodState* p : doomed) DeletePod(*p);
  } else {
    if (spec_.suspend) {
      std::vector<const PodState*> doomed = active_;
      std::sort(doomed.begin(), doomed.end(),
                [](const PodState* a, const PodState* b) { return RemoveBefore(*a, *b); });
      for (const PodState* p : doomed) DeletePod(*p);
    } else {
      ManagePods();
    }
    const bool complete = spec_.completions ? succeeded_ >= *spec_.completions && active_count_ == 0
                                            : succeeded_ > 0 && active_count_ == 0;
    if (complete) {
      finish = Finish{true, kReasonCompletionsReached, kMessageCompletionsReached};
    } else if (spec_.suspend) {
      // The deadline counts only while running: it restarts on resume.
      has_start = false;
      if (EnsureCondition(conditions, kJobSuspended, true, kReasonJobSuspended,
                          kMessageJobSuspended, stamp_)) {
        out_.events.push_back({"Normal", "Suspended", kMessageJobSuspended});
      }
    } else if (EnsureCondition(conditions, kJobSuspended, false, kReasonJobResumed,
                               kMessageJobResumed, stamp_)) {
      out_.events.push_back({"Normal", "Resumed", kMessageJobResumed});
      start = stamp_;
      has_start = true;
    }
    if (!complete && !spec_.suspend && spec_.active_deadline_seconds) {
      Requeue(start + Duration{*spec_.active_deadline_seconds * 1000});
    }
  }

  if (finish) {
    EnsureCondition(conditions, finish->success ? kJobSuccessCriteriaMet : kJobFailureTarget, true,
                    finish->reason, finish->message, stamp_);
    // The terminal condition waits until no pod is terminating.
    if (terminating_ == 0 &&
        EnsureCondition(conditions, finish->success ? kJobComplete : kJobFailed, true,
                        finish->reason, finish->message, stamp_)) {
      if (finish->success) {
        completion = stamp_;
        out_.events.push_back({"Normal", "Completed", "Job completed"});
        if (spec_.completions && succeeded_ > *spec_.completions) {
          out_.events.push_back({"Warning", "TooManySucceededPods",
                                 "Too many succeeded pods running after completion count reached"});
        }
      } else {
        out_.events.push_back({"Warning", finish->reason, finish->message});
      }
      if (spec_.ttl_seconds_after_finished) {
        Requeue(stamp_ + Duration{*spec_.ttl_seconds_after_finished * 1000});
      }
    }
  }

  Json status = old_status;
  if (!conditions.empty() || status.contains("conditions")) status["conditions"] = conditions;
  if (has_start) {
    status["startTime"] = FormatRfc3339(start);
  } else {
    status.erase("startTime");
  }
  if (completion) status["completionTime"] = FormatRfc3339(*completion);
  SetCount(status, "active", active_count_);
  SetCount(status, "succeeded", succeeded_);
  SetCount(status, "failed", failed_);
  status["ready"] = ready_;
  status["terminating"] = terminating_;
  if (spec_.indexed) {
    const std::string text = FormatCompletedIndexes(completed_);
    if (text.empty()) {
      status.erase("completedIndexes");
    } else {
      status["completedIndexes"] = text;
    }
  }
  if (!status.contains("uncountedTerminatedPods")) {
    status["uncountedTerminatedPods"] = Json::object();
  }
  if (status_it == job.end() || status != *status_it) out_.status = std::move(status);
  return std::move(out_);
}

}  // namespace

Result<JobActions> ReconcileJob(const Json& job, const std::vector<Json>& pods, Time now,
                                const JobControllerOptions& options) {
  KUOTA_ASSIGN_OR_RETURN(JobSpec spec, ParseJobSpec(job));
  if (spec.managed_elsewhere) return JobActions{};
  return Reconciler(spec, options, now).Run(job, pods);
}

EventNote PodCreatedEvent(std::string_view pod_name) {
  return {"Normal", "SuccessfulCreate", "Created pod: " + std::string(pod_name)};
}

}  // namespace kuota::jobctl
