#include "jobs/volcano_job.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "jobs/job_fields.h"

namespace kuota::jobs {
namespace {

constexpr const char* kPhasePending = "Pending";
constexpr const char* kPhaseRunning = "Running";
constexpr const char* kPhaseRestarting = "Restarting";
constexpr const char* kPhaseCompleted = "Completed";
constexpr const char* kPhaseFailed = "Failed";
constexpr const char* kPhaseAborted = "Aborted";
constexpr const char* kPhaseTerminated = "Terminated";
constexpr int64_t kDefaultMaxRetry = 3;

// Events and actions Volcano's webhook lets users write (bus/v1alpha1).
const std::vector<std::string>& KnownEvents() {
  static const std::vector<std::string> kEvents = {
      "*", "PodFailed", "PodEvicted", "Unknown", "TaskCompleted", "TaskFailed", "JobUpdated"};
  return kEvents;
}
const std::vector<std::string>& KnownActions() {
  static const std::vector<std::string> kActions = {"AbortJob",     "RestartJob",  "RestartTask",
                                                    "TerminateJob", "CompleteJob", "ResumeJob"};
  return kActions;
}
// The job plugins Kuota provides locally (Volcano also has mpi, pytorch,
// tensorflow, ray, hcclrank: their environment is not reproduced).
const std::vector<std::string>& KnownPlugins() {
  static const std::vector<std::string> kPlugins = {"env", "ssh", "svc"};
  return kPlugins;
}

const Json& Tasks(const Json& job) {
  const Json& spec = SpecOf(job);
  auto it = spec.find("tasks");
  return it != spec.end() && it->is_array() ? *it : EmptyArray();
}

const Json& Task(const Json& job, size_t i) {
  const Json& tasks = Tasks(job);
  return i < tasks.size() && tasks[i].is_object() ? tasks[i] : EmptyObject();
}

// "worker-a" -> "WORKER_A", as Volcano's svc plugin keys its variables.
std::string EnvKey(const std::string& task) {
  std::string out = task;
  for (auto& c : out) {
    c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

bool HasPlugin(const Json& job, const char* name) {
  const Json& spec = SpecOf(job);
  auto it = spec.find("plugins");
  return it != spec.end() && it->is_object() && it->contains(name);
}

// The events a policy lists (`event` and `events`).
std::vector<std::string> PolicyEvents(const Json& policy) {
  std::vector<std::string> out;
  if (std::string e = StrAt(policy, "event"); !e.empty()) out.push_back(e);
  auto it = policy.find("events");
  if (it != policy.end() && it->is_array()) {
    for (const auto& e : *it) {
      if (e.is_string() && !Contains(out, e.get<std::string>()))
        out.push_back(e.get<std::string>());
    }
  }
  return out;
}

// Volcano's validatePolicies for the list at `path` ("spec.policies").
Status CheckPolicies(const Json& obj, const std::string& path) {
  auto it = obj.find("policies");
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return InvalidValue(path, *it, "must be an array");
  std::set<std::string> events_seen;
  std::set<int64_t> codes_seen;
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& p = (*it)[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (!p.is_object()) return InvalidValue(at, p, "must be an object");
    KUOTA_ASSIGN_OR_RETURN(std::string action, StringField(p, "action", at));
    KUOTA_RETURN_IF_ERROR(StringField(p, "event", at).status());
    if (auto ev = p.find("events"); ev != p.end() && !ev->is_null()) {
      if (!ev->is_array()) return InvalidValue(at + ".events", *ev, "must be an array");
      for (size_t j = 0; j < ev->size(); ++j) {
        if (!(*ev)[j].is_string()) {
          return InvalidValue(at + ".events[" + std::to_string(j) + "]", (*ev)[j],
                              "must be a string");
        }
      }
    }
    const std::vector<std::string> events = PolicyEvents(p);
    const bool has_code = p.contains("exitCode") && !p["exitCode"].is_null();
    if (!events.empty() && has_code) {
      return InvalidValue(at, p, "must not specify event and exitCode simultaneously");
    }
    if (events.empty() && !has_code) {
      return Status::Invalid(at + ": Required value: either event or exitCode should be specified");
    }
    if (!action.empty() || !events.empty()) {
      if (!Contains(KnownActions(), action)) {
        return NotSupportedValue(at + ".action", action, KnownActions());
      }
    }
    for (const std::string& e : events) {
      if (!Contains(KnownEvents(), e)) return NotSupportedValue(at + ".event", e, KnownEvents());
      if (!events_seen.insert(e).second) {
        return Status::Invalid(at + ".event: Duplicate value: " + Quoted(e) +
                               ": duplicate event across different policies");
      }
    }
    if (has_code) {
      KUOTA_ASSIGN_OR_RETURN(int64_t code, IntField(p, "exitCode", at, 0, INT32_MIN));
      if (code == 0) return InvalidValue(at + ".exitCode", 0, "0 is not a valid error code");
      if (!codes_seen.insert(code).second) {
        return Status::Invalid(at + ".exitCode: Duplicate value: " + std::to_string(code));
      }
    }
  }
  if (events_seen.count("*") && events_seen.size() > 1) {
    return InvalidValue(path, *it, "if there's * here, no other policy should be here");
  }
  return Status::Ok();
}

// The stage of each task: 0, or one after the latest task it depends on.
// Empty when the dependencies form a cycle or name unknown tasks.
std::vector<int> TaskStages(const Json& job) {
  const Json& tasks = Tasks(job);
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < tasks.size(); ++i) index[StrAt(Task(job, i), "name")] = i;
  std::vector<int> stage(tasks.size(), 0);
  for (size_t round = 0; round <= tasks.size(); ++round) {
    bool changed = false;
    for (size_t i = 0; i < tasks.size(); ++i) {
      const Json& deps = ObjAt(Task(job, i), "dependsOn");
      auto names = deps.find("name");
      if (names == deps.end() || !names->is_array()) continue;
      for (const auto& n : *names) {
        auto d = n.is_string() ? index.find(n.get<std::string>()) : index.end();
        if (d == index.end()) return {};
        if (stage[i] < stage[d->second] + 1) {
          stage[i] = stage[d->second] + 1;
          changed = true;
        }
      }
    }
    if (!changed) return stage;
  }
  return {};  // still moving after n rounds: a cycle
}

bool TerminalJobPhase(const std::string& phase) {
  return phase == kPhaseCompleted || phase == kPhaseFailed || phase == kPhaseAborted ||
         phase == kPhaseTerminated;
}

std::string JobPhase(const Json& job) {
  auto st = job.find("status");
  if (st == job.end() || !st->is_object()) return "";
  auto state = st->find("state");
  return state != st->end() ? StrAt(*state, "phase") : "";
}

GroupAction ActionToGroup(const std::string& action) {
  if (action == "RestartJob") return GroupAction::kRestartJob;
  if (action == "AbortJob" || action == "TerminateJob") return GroupAction::kFailJob;
  if (action == "CompleteJob") return GroupAction::kCompleteJob;
  if (action == "RestartTask") return GroupAction::kRestartPod;
  return GroupAction::kNone;  // ResumeJob: nothing to resume while running
}

}  // namespace

const KindInfo& VolcanoJobKind::Info() const {
  static const KindInfo kInfo = [] {
    auto status_field = [](const char* key) {
      return [key](const Json& job) -> Json {
        auto st = job.find("status");
        if (st == job.end() || !st->is_object() || !st->contains(key)) return nullptr;
        return (*st)[key];
      };
    };
    return CrdKindInfo(
        "batch.volcano.sh", "v1alpha1", "Job", "vcjob",
        {.short_names = {"vcjob", "vj"},
         .columns = {
             {"STATUS", "string", "", 0,
              [](const Json& job) -> Json {
                std::string p = JobPhase(job);
                return p.empty() ? Json() : Json(p);
              }},
             {"minAvailable", "integer", "", 0, status_field("minAvailable")},
             {"RUNNINGS", "integer", "", 0, status_field("running")},
             {"AGE", "date", "", 0,
              [](const Json& job) -> Json {
                auto m = job.find("metadata");
                if (m == job.end() || !m->is_object() || !m->contains("creationTimestamp")) {
                  return nullptr;
                }
                return (*m)["creationTimestamp"];
              }},
             {"QUEUE", "string", "", 1,
              [](const Json& job) -> Json {
                std::string q = StrAt(SpecOf(job), "queue");
                return q.empty() ? Json() : Json(q);
              }},
         }});
  }();
  return kInfo;
}

Status VolcanoJobKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  KUOTA_ASSIGN_OR_RETURN(const Json* spec_ptr, ObjectField(job, "spec", ""));
  const Json& spec = *spec_ptr;
  KUOTA_ASSIGN_OR_RETURN(int64_t min_available, IntField(spec, "minAvailable", "spec", 0, 0));
  KUOTA_RETURN_IF_ERROR(IntField(spec, "maxRetry", "spec", 0, 0).status());
  KUOTA_RETURN_IF_ERROR(IntField(spec, "ttlSecondsAfterFinished", "spec", 0, 0).status());
  KUOTA_RETURN_IF_ERROR(IntField(spec, "minSuccess", "spec", 1, 1).status());
  for (const char* f : {"schedulerName", "queue", "priorityClassName"}) {
    KUOTA_RETURN_IF_ERROR(StringField(spec, f, "spec").status());
  }
  if (auto v = spec.find("volumes"); v != spec.end() && !v->is_null() && !v->is_array()) {
    return InvalidValue("spec.volumes", *v, "must be an array");
  }

  auto tasks_it = spec.find("tasks");
  if (tasks_it == spec.end() || tasks_it->is_null() ||
      (tasks_it->is_array() && tasks_it->empty())) {
    return Status::Invalid("spec.tasks: Required value: no task specified in job spec");
  }
  if (!tasks_it->is_array()) return InvalidValue("spec.tasks", *tasks_it, "must be an array");
  const std::string job_name = JobName(job);
  std::set<std::string> names;
  int64_t total_replicas = 0;
  for (size_t i = 0; i < tasks_it->size(); ++i) {
    const Json& task = (*tasks_it)[i];
    const std::string at = "spec.tasks[" + std::to_string(i) + "]";
    if (!task.is_object()) return InvalidValue(at, task, "must be an object");
    KUOTA_ASSIGN_OR_RETURN(std::string name, StringField(task, "name", at));
    if (name.empty()) return Required(at + ".name");
    if (std::string why = CheckDns1123(name); !why.empty()) {
      return InvalidValue(at + ".name", name, why);
    }
    if (!names.insert(name).second) {
      return Status::Invalid(at + ".name: Duplicate value: " + Quoted(name));
    }
    KUOTA_ASSIGN_OR_RETURN(int64_t replicas, IntField(task, "replicas", at, 0, 0));
    if (auto m = task.find("minAvailable"); m != task.end() && !m->is_null()) {
      KUOTA_ASSIGN_OR_RETURN(int64_t task_min, IntField(task, "minAvailable", at, 0, 0));
      if (task_min > replicas) {
        return InvalidValue(
            at + ".minAvailable", task_min,
            "must be less than or equal to replicas (" + std::to_string(replicas) + ")");
      }
    }
    KUOTA_RETURN_IF_ERROR(IntField(task, "maxRetry", at, 0, 0).status());
    total_replicas += replicas;
    // Volcano checks the name of the task's last pod: a DNS label at most.
    const std::string last_pod =
        job_name + "-" + name + "-" + std::to_string(std::max<int64_t>(replicas - 1, 0));
    if (!job_name.empty() && last_pod.size() > kMaxLabelLength) {
      return InvalidValue(at + ".name", name,
                          "pod name " + Quoted(last_pod) + " must be no more than 63 characters");
    }
    KUOTA_ASSIGN_OR_RETURN(const Json* tmpl, ObjectField(task, "template", at));
    KUOTA_RETURN_IF_ERROR(CheckPodTemplate(*tmpl, at + ".template"));
    KUOTA_RETURN_IF_ERROR(CheckPolicies(task, at + ".policies"));
    if (auto d = task.find("dependsOn"); d != task.end() && !d->is_null()) {
      if (!d->is_object()) return InvalidValue(at + ".dependsOn", *d, "must be an object");
      KUOTA_RETURN_IF_ERROR(StringField(*d, "iteration", at + ".dependsOn").status());
      auto n = d->find("name");
      if (n != d->end() && !n->is_null() && !n->is_array()) {
        return InvalidValue(at + ".dependsOn.name", *n, "must be an array");
      }
    }
  }
  if (min_available > total_replicas) {
    return InvalidValue("spec.minAvailable", min_available,
                        "should not be greater than total replicas in tasks (" +
                            std::to_string(total_replicas) + ")");
  }
  KUOTA_RETURN_IF_ERROR(CheckPolicies(spec, "spec.policies"));
  if (auto p = spec.find("plugins"); p != spec.end() && !p->is_null()) {
    if (!p->is_object()) return InvalidValue("spec.plugins", *p, "must be an object");
    for (const auto& [name, args] : p->items()) {
      const std::string at = "spec.plugins[" + name + "]";
      if (!Contains(KnownPlugins(), name)) return NotSupportedValue(at, name, KnownPlugins());
      if (args.is_null()) continue;
      if (!args.is_array()) return InvalidValue(at, args, "must be an array of strings");
      for (const auto& a : args) {
        if (!a.is_string()) return InvalidValue(at, args, "must be an array of strings");
      }
    }
  }
  for (size_t i = 0; i < tasks_it->size(); ++i) {
    const Json& deps = ObjAt((*tasks_it)[i], "dependsOn");
    if (!deps.contains("name") || !deps["name"].is_array()) continue;
    for (size_t j = 0; j < deps["name"].size(); ++j) {
      const Json& n = deps["name"][j];
      if (!n.is_string() || !names.count(n.get<std::string>())) {
        return Status::Invalid("spec.tasks[" + std::to_string(i) + "].dependsOn.name[" +
                               std::to_string(j) + "]: Not found: " + n.dump());
      }
    }
  }
  if (TaskStages(job).empty()) {
    return Status::Invalid(
        "spec.tasks: Invalid value: job has dependencies between tasks, but doesn't form a "
        "directed acyclic graph(DAG)");
  }
  // As Kueue's webhooks check the other kinds: topology annotations, groups.
  return ValidateTopology(job, true);
}

std::string VolcanoJobKind::LocalQueueName(const Json& job) const {
  std::string label = QueueName(job);
  if (!label.empty()) return label;
  std::string queue = StrAt(SpecOf(job), "queue");
  return kVolcanoQueuePrefix + (queue.empty() ? std::string("default") : queue);
}

void VolcanoJobKind::Default(Json& job) const {
  if (job.contains("spec") && job["spec"].is_object()) {
    Json& spec = job["spec"];
    if (StrAt(spec, "queue").empty()) spec["queue"] = "default";
    if (StrAt(spec, "schedulerName").empty()) spec["schedulerName"] = "volcano";
    if (IntAt(spec, "maxRetry", 0) == 0) spec["maxRetry"] = kDefaultMaxRetry;
    if (IntAt(spec, "minAvailable", 0) == 0) spec["minAvailable"] = MinAvailable(job);
  }
}

int64_t VolcanoJobKind::MinAvailable(const Json& job) {
  int64_t set = IntAt(SpecOf(job), "minAvailable", 0);
  if (set > 0) return set;
  int64_t sum = 0;
  for (size_t i = 0; i < Tasks(job).size(); ++i) {
    const Json& t = Task(job, i);
    sum += IntAt(t, "minAvailable", IntAt(t, "replicas", 0));
  }
  return sum;
}

std::vector<PodSetDef> VolcanoJobKind::PodSets(const Json& job) const {
  std::vector<PodSetDef> sets;
  const std::vector<int> stages = TaskStages(job);
  const size_t n = Tasks(job).size();
  for (size_t i = 0; i < n; ++i) {
    const Json& t = Task(job, i);
    PodSetDef s;
    s.name = StrAt(t, "name");
    const std::string base = "/spec/tasks/" + std::to_string(i);
    s.template_path = Json::json_pointer(base + "/template");
    s.replicas_path = Json::json_pointer(base + "/replicas");
    s.count = std::max<int64_t>(0, IntAt(t, "replicas", 0));
    s.stage = i < stages.size() ? stages[i] : 0;
    s.index_labels.pod_index_label = kVolcanoTaskIndexLabel;
    if (n == 1) {
      // The task's own minAvailable, when higher, is a floor too.
      // BuildWorkload keeps it only below the count asked for (the one saved
      // while a partial admission runs with fewer replicas).
      s.min_count = std::max<int64_t>(0, std::max(MinAvailable(job), IntAt(t, "minAvailable", 0)));
    }
    sets.push_back(std::move(s));
  }
  return sets;
}

std::string VolcanoJobKind::PolicyAction(const Json& job, size_t task, const std::string& event) {
  auto match = [&](const Json& owner) -> std::string {
    auto it = owner.find("policies");
    if (it == owner.end() || !it->is_array()) return "";
    for (const Json& p : *it) {
      if (!p.is_object()) continue;
      for (const std::string& e : PolicyEvents(p)) {
        if (e == event || e == "*") return StrAt(p, "action");
      }
    }
    return "";
  };
  if (std::string a = match(Task(job, task)); !a.empty()) return a;
  return match(SpecOf(job));
}

void VolcanoJobKind::CustomizePod(const Json& job, const PodPosition& where, Json& pod) const {
  const Json& task = Task(job, where.set);
  const std::string task_name = StrAt(task, "name");
  const std::string name = JobName(job);
  const std::string index = std::to_string(where.index);
  const std::string ns = StrAt(ObjAt(job, "metadata"), "namespace");
  std::string queue = StrAt(SpecOf(job), "queue");
  if (queue.empty()) queue = "default";

  Json& labels = pod["metadata"]["labels"];
  labels["volcano.sh/job-name"] = name;
  labels["volcano.sh/job-namespace"] = ns;
  labels["volcano.sh/queue-name"] = queue;
  labels["volcano.sh/task-spec"] = task_name;
  labels[kVolcanoTaskIndexLabel] = index;
  Json& annotations = pod["metadata"]["annotations"];
  annotations["volcano.sh/job-name"] = name;
  annotations["volcano.sh/task-spec"] = task_name;
  annotations["volcano.sh/task-index"] = index;
  if (!pod.contains("spec") || !pod["spec"].is_object()) pod["spec"] = Json::object();
  if (StrAt(pod["spec"], "schedulerName").empty() && !StrAt(SpecOf(job), "schedulerName").empty()) {
    pod["spec"]["schedulerName"] = StrAt(SpecOf(job), "schedulerName");
  }

  std::vector<std::pair<std::string, std::string>> env;
  if (HasPlugin(job, "env")) {
    env.emplace_back("VK_TASK_INDEX", index);
    env.emplace_back("VC_TASK_INDEX", index);
  }
  if (HasPlugin(job, "svc")) {
    if (StrAt(pod["spec"], "hostname").empty() && where.sets != nullptr &&
        where.set < where.sets->size()) {
      pod["spec"]["hostname"] = PodName(job, (*where.sets)[where.set], where.index);
    }
    if (StrAt(pod["spec"], "subdomain").empty()) pod["spec"]["subdomain"] = name;
    for (size_t i = 0; i < Tasks(job).size(); ++i) {
      const Json& t = Task(job, i);
      const std::string key = EnvKey(StrAt(t, "name"));
      int64_t replicas = std::max<int64_t>(0, IntAt(t, "replicas", 0));
      // A template with a fixed hostname is one host, as Volcano lists it.
      if (!StrAt(ObjAt(ObjAt(t, "template"), "spec"), "hostname").empty()) {
        replicas = std::min<int64_t>(replicas, 1);
      }
      std::string hosts;
      for (int64_t r = 0; r < replicas; ++r) hosts += (r ? "," : "") + where.address;
      env.emplace_back("VC_" + key + "_HOSTS", hosts);
      env.emplace_back("VC_" + key + "_NUM", std::to_string(replicas));
      for (int64_t r = 0; r < replicas; ++r) {
        env.emplace_back("VC_" + key + "_" + std::to_string(r) + "_SVC", where.address);
      }
    }
  }
  AppendEnv(pod, env);
}

GroupAction VolcanoJobKind::OnPodEvent(const Json& job, const PodSetDef& set,
                                       PodEvent event) const {
  size_t task = Tasks(job).size();
  for (size_t i = 0; i < Tasks(job).size(); ++i) {
    if (StrAt(Task(job, i), "name") == set.name) task = i;
  }
  if (event == PodEvent::kSucceeded) {
    // TaskCompleted: every pod of the task succeeded; with one pod, this one.
    if (set.count > 1) return GroupAction::kNone;
    return ActionToGroup(PolicyAction(job, task, "TaskCompleted"));
  }
  const std::string action =
      PolicyAction(job, task, event == PodEvent::kEvicted ? "PodEvicted" : "PodFailed");
  if (!action.empty()) return ActionToGroup(action);
  if (event == PodEvent::kEvicted) return GroupAction::kRestartPod;  // recreated
  const Json* t = FindTemplate(job, set);
  const std::string policy = t != nullptr ? StrAt(ObjAt(*t, "spec"), "restartPolicy") : "";
  // Never: the pod stays failed; NextStatus decides once every pod ended.
  return policy == "Never" ? GroupAction::kNone : GroupAction::kRestartPod;
}

bool VolcanoJobKind::Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                               const GroupObservation& seen) const {
  int64_t total = 0, succeeded = 0, ended = 0;
  for (size_t i = 0; i < sets.size() && i < seen.sets.size(); ++i) {
    total += sets[i].count;
    succeeded += seen.sets[i].succeeded;
    ended += seen.sets[i].succeeded + seen.sets[i].failed;
    if (sets[i].count > 0 && seen.sets[i].succeeded >= sets[i].count &&
        PolicyAction(job, i, "TaskCompleted") == "CompleteJob") {
      return true;
    }
  }
  const Json& spec = SpecOf(job);
  if (spec.contains("minSuccess") && spec["minSuccess"].is_number_integer()) {
    const int64_t min_success = spec["minSuccess"].get<int64_t>();
    if (succeeded >= min_success) return true;
    if (total > 0 && ended >= total) return false;
  }
  return total > 0 && ended >= total && succeeded >= MinAvailable(job);
}

Json VolcanoJobKind::NextStatus(const Json& job, const GroupObservation& seen) const {
  const Json old =
      job.contains("status") && job["status"].is_object() ? job["status"] : Json::object();
  Json st = old;
  const std::vector<PodSetDef> sets = PodSets(job);
  int64_t pending = 0, running = 0, succeeded = 0, failed = 0, total = 0;
  Json counts = Json::object();
  for (size_t i = 0; i < sets.size() && i < seen.sets.size(); ++i) {
    const PodSetObservation& o = seen.sets[i];
    pending += o.pending;
    running += o.running;
    succeeded += o.succeeded;
    failed += o.failed;
    total += sets[i].count;
    Json phase = Json::object();
    if (o.pending) phase["Pending"] = o.pending;
    if (o.running) phase["Running"] = o.running;
    if (o.succeeded) phase["Succeeded"] = o.succeeded;
    if (o.failed) phase["Failed"] = o.failed;
    if (!phase.empty()) counts[sets[i].name] = {{"phase", phase}};
  }
  const int64_t min_available = MinAvailable(job);
  auto put = [&st](const char* key, int64_t v) {
    if (v != 0) {
      st[key] = v;
    } else {
      st.erase(key);  // omitempty, as Volcano writes it
    }
  };
  put("pending", pending);
  put("running", running);
  put("succeeded", succeeded);
  put("failed", failed);
  put("minAvailable", min_available);
  put("retryCount", seen.restarts);
  if (counts.empty()) {
    st.erase("taskStatusCount");
  } else {
    st["taskStatusCount"] = counts;
  }

  const std::string old_phase = JobPhase(job);
  std::string phase, reason, message;
  if (seen.outcome == GroupObservation::Outcome::kSucceeded) {
    phase = kPhaseCompleted;
    reason = seen.reason;
    message = seen.message;
  } else if (seen.outcome == GroupObservation::Outcome::kFailed) {
    phase = kPhaseFailed;
    reason = seen.reason;
    message = seen.message;
    if (seen.restarts < MaxRestarts(job)) {
      // Ended by a policy: the action of the first task with a failed pod.
      for (size_t i = 0; i < sets.size() && i < seen.sets.size(); ++i) {
        if (seen.sets[i].failed == 0) continue;
        for (const char* ev : {"PodFailed", "PodEvicted"}) {
          const std::string a = PolicyAction(job, i, ev);
          if (a == "AbortJob") phase = kPhaseAborted;
          if (a == "TerminateJob") phase = kPhaseTerminated;
          if (!a.empty()) break;
        }
        break;
      }
    }
  } else if (TerminalJobPhase(old_phase)) {
    phase = old_phase;
  } else if (seen.restarting) {
    phase = kPhaseRestarting;
  } else if (seen.suspended) {
    phase = kPhasePending;
    reason = "Suspended";
    message = "the job is suspended until Kueue admits it";
  } else if (total > 0 && succeeded + failed >= total) {
    // Every pod ended without a deciding policy (Volcano's running state).
    phase = succeeded >= min_available ? kPhaseCompleted : kPhaseFailed;
  } else if (running + succeeded + failed >= min_available && running + succeeded > 0) {
    phase = kPhaseRunning;
  } else {
    phase = kPhasePending;
  }

  if (phase == old_phase && TerminalJobPhase(old_phase) &&
      seen.outcome == GroupObservation::Outcome::kRunning) {
    return st;  // finished: the state stays as written
  }
  Json state = old.contains("state") && old["state"].is_object() ? old["state"] : Json::object();
  const bool changed = phase != old_phase;
  state["phase"] = phase;
  auto put_text = [&state](const char* key, const std::string& v) {
    if (v.empty()) {
      state.erase(key);
    } else {
      state[key] = v;
    }
  };
  put_text("reason", reason);
  put_text("message", message);
  if (changed || !state.contains("lastTransitionTime")) state["lastTransitionTime"] = seen.now;
  st["state"] = state;
  if (changed) {
    Json& conds = st["conditions"];
    if (!conds.is_array()) conds = Json::array();
    conds.push_back({{"status", phase}, {"lastTransitionTime", seen.now}});
  }
  return st;
}

int64_t VolcanoJobKind::Restarts(const Json& job) const {
  return IntAt(ObjAt(job, "status"), "retryCount", 0);
}

int64_t VolcanoJobKind::MaxRestarts(const Json& job) const {
  const int64_t v = IntAt(SpecOf(job), "maxRetry", 0);
  return v > 0 ? v : kDefaultMaxRetry;
}

std::string VolcanoJobKind::PodPriorityClass(const Json& job) const {
  if (std::string p = StrAt(SpecOf(job), "priorityClassName"); !p.empty()) return p;
  return GroupJobKind::PodPriorityClass(job);
}

bool VolcanoJobKind::IsFinished(const Json& job, bool* succeeded) const {
  const std::string phase = JobPhase(job);
  if (!TerminalJobPhase(phase)) return false;
  if (succeeded != nullptr) *succeeded = phase == kPhaseCompleted;
  return true;
}

bool VolcanoJobKind::PodsReady(const Json& job) const {
  auto st = job.find("status");
  if (st == job.end() || !st->is_object() || !st->contains("state")) return false;
  if (IsSuspended(job)) return false;
  const int64_t min_available = IntAt(*st, "minAvailable", MinAvailable(job));
  return IntAt(*st, "running", 0) + IntAt(*st, "succeeded", 0) >= min_available;
}

}  // namespace kuota::jobs
