#include "standalone/app_wrapper_reconciler.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "control/events.h"
#include "control/meta_string.h"
#include "jobctl/submitter.h"
#include "jobs/app_wrapper.h"
#include "jobs/job_fields.h"
#include "jobs/registry.h"
#include "server/resource_info.h"
#include "store/list_all.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

constexpr const char* kAwrResource = "appwrappers.workload.codeflare.dev";
constexpr const char* kAwrPods = "pods";
constexpr const char* kAwrComponent = "appwrapper-controller";
constexpr const char* kAwrApiVersion = "workload.codeflare.dev/v1beta2";

// The controller's phases and conditions.
constexpr const char* kAwrSuspended = "Suspended";
constexpr const char* kAwrResuming = "Resuming";
constexpr const char* kAwrRunning = "Running";
constexpr const char* kAwrSuspending = "Suspending";
constexpr const char* kAwrResetting = "Resetting";
constexpr const char* kAwrSucceeded = "Succeeded";
constexpr const char* kAwrFailed = "Failed";
constexpr const char* kAwrQuotaReserved = "QuotaReserved";
constexpr const char* kAwrResourcesDeployed = "ResourcesDeployed";
constexpr const char* kAwrPodsReady = "PodsReady";
constexpr const char* kAwrUnhealthy = "Unhealthy";

std::string AwrKey(const Json& obj) {
  return control::MetaString(obj, "namespace") + "/" + control::MetaString(obj, "name");
}

// meta.SetStatusCondition: the transition time changes with the status only.
void AwrSetCondition(Json& status, const std::string& type, const std::string& value,
                     const std::string& reason, const std::string& message,
                     const std::string& now) {
  Json& conds = status["conditions"];
  if (!conds.is_array()) conds = Json::array();
  for (Json& c : conds) {
    if (!c.is_object() || c.value("type", "") != type) continue;
    if (c.value("status", "") != value) c["lastTransitionTime"] = now;
    c["status"] = value;
    c["reason"] = reason;
    c["message"] = message;
    return;
  }
  conds.push_back({{"type", type},
                   {"status", value},
                   {"reason", reason},
                   {"message", message},
                   {"lastTransitionTime", now}});
}

// The controller's clearCondition: False, unless absent.
void AwrClearCondition(Json& status, const std::string& type, const std::string& reason,
                       const std::string& message, const std::string& now) {
  for (const Json& c : jobs::ArrAt(status, "conditions")) {
    if (jobs::StrAt(c, "type") == type) {
      AwrSetCondition(status, type, "False", reason, message, now);
      return;
    }
  }
}

const Json* AwrCondition(const Json& status, const std::string& type) {
  for (const Json& c : jobs::ArrAt(status, "conditions")) {
    if (jobs::StrAt(c, "type") == type) return &c;
  }
  return nullptr;
}

bool AwrConditionTrue(const Json& status, const std::string& type) {
  const Json* c = AwrCondition(status, type);
  return c != nullptr && jobs::StrAt(*c, "status") == "True";
}

// When condition `type` last changed; `now` when it has no time.
Time AwrSince(const Json& status, const std::string& type, Time now) {
  const Json* c = AwrCondition(status, type);
  if (c == nullptr) return now;
  Result<Time> t = ParseRfc3339(jobs::StrAt(*c, "lastTransitionTime"));
  return t.ok() ? *t : now;
}

// An annotation's duration (the controller's *GraceDuration), else `fallback`.
Duration AwrDuration(const Json& aw, const char* annotation, std::chrono::milliseconds fallback) {
  const std::string v = jobs::MetaMapValue(aw, "annotations", annotation);
  if (!v.empty()) {
    Result<Duration> d = ParseDuration(v);
    if (d.ok() && d->ms >= 0) return *d;
  }
  return Duration{fallback.count()};
}

// Where each component lives: its store resource, name and kind.
struct AwrComponentRef {
  std::string resource;  // "" when kuotad serves no such kind
  std::string name;
  std::string api_version;
  std::string kind;
};

AwrComponentRef AwrRefOf(const Json& aw, size_t i) {
  const Json& comp = jobs::ArrAt(jobs::SpecOf(aw), "components")[i];
  const Json& tmpl = jobs::ObjAt(comp, "template");
  AwrComponentRef ref;
  ref.api_version = jobs::StrAt(tmpl, "apiVersion");
  ref.kind = jobs::StrAt(tmpl, "kind");
  ref.name = jobs::MetaStr(tmpl, "name");
  const Json& statuses = jobs::ArrAt(jobs::ObjAt(aw, "status"), "componentStatus");
  if (i < statuses.size() && !jobs::StrAt(statuses[i], "name").empty()) {
    ref.name = jobs::StrAt(statuses[i], "name");
  }
  if (const server::ResourceInfo* r = server::FindResourceByKind(ref.api_version, ref.kind)) {
    ref.resource = r->StoreKey();
  }
  return ref;
}

// Whether `obj`'s controlling owner is the AppWrapper `aw_name`.
bool AwrControlledBy(const Json& obj, const std::string& aw_name) {
  for (const Json& r : jobs::ArrAt(jobs::ObjAt(obj, "metadata"), "ownerReferences")) {
    if (r.value("controller", false) && jobs::StrAt(r, "kind") == "AppWrapper" &&
        jobs::StrAt(r, "apiVersion") == kAwrApiVersion && jobs::StrAt(r, "name") == aw_name) {
      return true;
    }
  }
  return false;
}

// The controller's EnsureComponentStatusInitialized: one entry per
// component with its pod sets.
Json AwrInitialComponentStatus(const Json& aw) {
  Json out = Json::array();
  const Json& comps = jobs::ArrAt(jobs::SpecOf(aw), "components");
  Result<std::vector<jobs::AppWrapperPodSet>> sets = jobs::AppWrapperKind::PodSets(aw);
  for (size_t i = 0; i < comps.size(); ++i) {
    const Json& tmpl = jobs::ObjAt(comps[i], "template");
    Json podsets = Json::array();
    if (sets.ok()) {
      for (const jobs::AppWrapperPodSet& ps : *sets) {
        if (ps.component != i) continue;
        Json p = {{"path", ps.path}, {"replicas", ps.replicas}};
        if (!ps.annotations.empty()) p["annotations"] = ps.annotations;
        podsets.push_back(std::move(p));
      }
    }
    out.push_back({{"name", jobs::MetaStr(tmpl, "name")},
                   {"kind", jobs::StrAt(tmpl, "kind")},
                   {"apiVersion", jobs::StrAt(tmpl, "apiVersion")},
                   {"podSets", podsets}});
  }
  return out;
}

// What the pods labelled with the AppWrapper are doing.
struct AwrPodSummary {
  int64_t expected = 0, pending = 0, running = 0, succeeded = 0, failed = 0;
  // A failed pod's exit code says retrying is pointless (the terminal and
  // retryable exit codes annotations).
  bool terminal_failure = false;
};

// The exit codes a comma-separated annotation lists (the controller's
// terminalExitCodes / retryableExitCodes); malformed entries are skipped.
std::set<int64_t> AwrExitCodes(const Json& aw, const char* annotation) {
  std::set<int64_t> out;
  const std::string v = jobs::MetaMapValue(aw, "annotations", annotation);
  size_t start = 0;
  while (start <= v.size()) {
    size_t end = v.find(',', start);
    if (end == std::string::npos) end = v.size();
    const std::string item = v.substr(start, end - start);
    char* stop = nullptr;
    const long long code = item.empty() ? 0 : std::strtoll(item.c_str(), &stop, 10);
    if (!item.empty() && stop != nullptr && *stop == '\0') out.insert(code);
    start = end + 1;
  }
  return out;
}

// Whether failed `pod`'s non-zero exit codes make its failure terminal: one
// of `terminal`, or one not among a non-empty `retryable`.
bool AwrTerminalFailure(const Json& pod, const std::set<int64_t>& terminal,
                        const std::set<int64_t>& retryable) {
  for (const Json& cs : jobs::ArrAt(jobs::ObjAt(pod, "status"), "containerStatuses")) {
    const Json& t = jobs::ObjAt(jobs::ObjAt(cs, "state"), "terminated");
    const int64_t code = jobs::IntAt(t, "exitCode", 0);
    if (code == 0) continue;
    if (terminal.count(code) != 0) return true;
    if (!retryable.empty() && retryable.count(code) == 0) return true;
  }
  return false;
}

}  // namespace

AppWrapperReconciler::AppWrapperReconciler(store::ObjectStore& store, const Clock& clock,
                                           AppWrapperReconcilerOptions options)
    : StoreLoop(store, clock, "appwrapper controller", options.idle_tick),
      store_(store),
      clock_(clock),
      options_(options) {}

AppWrapperReconciler::~AppWrapperReconciler() { Stop(); }

Status AppWrapperReconciler::List() {
  return store::ListEach(store_, kAwrResource, [&](Json& aw) { MarkDirty(AwrKey(aw)); });
}

void AppWrapperReconciler::Handle(const store::WatchEvent& ev) {
  const Json& obj = ev.object;
  const std::string ns = control::MetaString(obj, "namespace");
  if (ev.resource == kAwrResource) {
    if (ev.type == store::EventType::kDeleted) {
      // Its components go with it (kube's garbage collector would take them
      // by their owner reference).
      (void)DeleteComponents(obj);
      Forget(AwrKey(obj));
      return;
    }
    MarkDirty(AwrKey(obj));
    return;
  }
  if (ev.resource == kAwrPods) {
    const std::string aw = jobs::MetaMapValue(obj, "labels", jobs::kAppWrapperLabel);
    if (!aw.empty()) MarkDirty(ns + "/" + aw);
    return;
  }
  for (const Json& r : jobs::ArrAt(jobs::ObjAt(obj, "metadata"), "ownerReferences")) {
    if (r.value("controller", false) && jobs::StrAt(r, "kind") == "AppWrapper" &&
        jobs::StrAt(r, "apiVersion") == kAwrApiVersion) {
      MarkDirty(ns + "/" + jobs::StrAt(r, "name"));
    }
  }
}

void AppWrapperReconciler::Event(const Json& aw, const std::string& reason,
                                 const std::string& message) {
  control::RecordEvent(store_, clock_, aw, "Normal", reason, message, kAwrComponent);
}

bool AppWrapperReconciler::WriteStatus(Json& aw) {
  Json patch = {{"apiVersion", kAwrApiVersion},
                {"kind", "AppWrapper"},
                {"metadata",
                 {{"name", control::MetaString(aw, "name")},
                  {"namespace", control::MetaString(aw, "namespace")},
                  {"resourceVersion", control::MetaString(aw, "resourceVersion")}}},
                {"status", aw["status"]}};
  store::UpdateOptions uo;
  uo.status_only = true;
  Result<Json> stored = store_.Update(kAwrResource, patch, uo);
  if (!stored.ok()) return false;  // a conflict: the newer version comes as an event
  aw = std::move(*stored);
  return true;
}

Status AppWrapperReconciler::CreateComponents(Json& aw, bool* fatal) {
  *fatal = false;
  const Json& comps = jobs::ArrAt(jobs::SpecOf(aw), "components");
  const std::string name = control::MetaString(aw, "name");
  for (size_t i = 0; i < comps.size(); ++i) {
    Json& cs = aw["status"]["componentStatus"][i];
    if (AwrConditionTrue(cs, kAwrResourcesDeployed)) continue;
    Result<Json> obj = jobs::AppWrapperKind::ComponentObject(aw, i);
    if (!obj.ok()) {
      *fatal = true;
      return obj.status();
    }
    // It runs as whoever submitted the AppWrapper (never as its template says).
    jobctl::CopySubmitterAnnotations(aw, *obj);
    const AwrComponentRef ref = AwrRefOf(aw, i);
    if (ref.resource.empty()) {
      *fatal = true;  // the API's NoMatch
      return Status::Invalid("no matches for kind " + jobs::Quoted(ref.kind) + " in version " +
                             jobs::Quoted(ref.api_version));
    }
    // What the component's API server would refuse (its kind's webhook).
    if (const jobs::JobKind* kind = jobs::FindJobKind(ref.resource)) {
      kind->Default(*obj);
      // (The uid the store has not assigned yet.)
      Json probe = *obj;
      probe["metadata"]["uid"] = "to-be-assigned";
      if (Status st = kind->Validate(probe); !st.ok()) {
        *fatal = true;
        return Status::Invalid(ref.kind + " " + jobs::Quoted(ref.name) +
                               " is invalid: " + st.message());
      }
    }
    Result<Json> created = store_.Create(ref.resource, *obj);
    if (!created.ok()) {
      if (created.status().code() != StatusCode::kAlreadyExists) {
        *fatal = created.status().code() == StatusCode::kInvalid;
        return created.status();
      }
      Result<Json> existing =
          store_.Get(ref.resource, control::MetaString(aw, "namespace"), ref.name);
      if (!existing.ok()) return existing.status();
      if (!AwrControlledBy(*existing, name)) {
        *fatal = true;
        return Status::Invalid("resource " + ref.name +
                               " exists, but is not controlled by appwrapper");
      }
      created = std::move(existing);
    }
    cs["name"] = control::MetaString(*created, "name");
    AwrSetCondition(cs, kAwrResourcesDeployed, "True", "ComponentCreatedSuccessfully", "",
                    FormatRfc3339(clock_.Now()));
  }
  return Status::Ok();
}

bool AppWrapperReconciler::DeleteComponents(const Json& aw) {
  const std::string ns = control::MetaString(aw, "namespace");
  const std::string name = control::MetaString(aw, "name");
  bool gone = true;
  const size_t n = jobs::ArrAt(jobs::SpecOf(aw), "components").size();
  for (size_t i = 0; i < n; ++i) {
    const AwrComponentRef ref = AwrRefOf(aw, i);
    if (ref.resource.empty() || ref.name.empty()) continue;
    Result<Json> obj = store_.Get(ref.resource, ns, ref.name);
    if (!obj.ok() || !AwrControlledBy(*obj, name)) continue;
    gone = false;
    if (control::MetaString(*obj, "deletionTimestamp").empty()) {
      (void)store_.Delete(ref.resource, ns, ref.name);
    }
  }
  // The components' pods go with them; the AppWrapper waits for them.
  store::ListOptions lo;
  lo.ns = ns;
  lo.label_selector = std::string(jobs::kAppWrapperLabel) + "=" + name;
  Result<store::ListResult> pods = store_.List(kAwrPods, lo);
  if (pods.ok() && !pods->items.empty()) gone = false;
  return gone;
}

bool AppWrapperReconciler::Reconcile(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  Result<Json> got = store_.Get(kAwrResource, ns, name);
  if (!got.ok()) return false;
  Json aw = std::move(*got);
  const Json& spec = jobs::SpecOf(aw);
  if (const std::string mb = jobs::StrAt(spec, "managedBy");
      !mb.empty() && mb != jobs::kAppWrapperControllerName) {
    return false;  // another controller (MultiKueue) runs it
  }
  if (!control::MetaString(aw, "deletionTimestamp").empty()) return false;
  Json& status = aw["status"];
  if (!status.is_object()) status = Json::object();
  const Json before = status;
  const bool suspend = spec.value("suspend", false);
  const Time now = clock_.Now();
  const std::string now_s = FormatRfc3339(now);
  std::string phase = jobs::StrAt(status, "phase");
  auto transition = [&](const char* to) {
    status["phase"] = to;
    return WriteStatus(aw);
  };
  auto retry_limit = [&] {
    const std::string v =
        jobs::MetaMapValue(aw, "annotations", "workload.codeflare.dev.appwrapper/retryLimit");
    char* end = nullptr;
    const long long n = v.empty() ? -1 : std::strtoll(v.c_str(), &end, 10);
    return n >= 0 && end != nullptr && *end == '\0' ? static_cast<int64_t>(n)
                                                    : options_.retry_limit;
  };
  auto reset_or_fail = [&](bool terminal) {
    const int64_t retries = jobs::IntAt(status, "resettingCount", 0);
    if (!terminal && retries < retry_limit()) {
      status["resettingCount"] = retries + 1;
      return transition(kAwrResetting);
    }
    return transition(kAwrFailed);
  };

  if (phase.empty()) {
    status["componentStatus"] = AwrInitialComponentStatus(aw);
    return transition(kAwrSuspended);
  }
  if (phase == kAwrSuspended) {
    if (suspend) return false;
    for (const char* c : {kAwrQuotaReserved, kAwrResourcesDeployed}) {
      AwrSetCondition(status, c, "True", kAwrResuming, "Suspend is false", now_s);
    }
    for (const char* c : {kAwrPodsReady, kAwrUnhealthy}) {
      AwrSetCondition(status, c, "False", kAwrResuming, "Suspend is false", now_s);
    }
    // Components are made again from scratch.
    status["componentStatus"] = AwrInitialComponentStatus(aw);
    return transition(kAwrResuming);
  }
  if (phase == kAwrResuming) {
    if (suspend) {
      Event(aw, kAwrSuspending, "Externally suspended while in the Resuming phase");
      return transition(kAwrSuspending);
    }
    bool fatal = false;
    Status created = CreateComponents(aw, &fatal);
    if (!created.ok()) {
      if (!fatal) {
        const Time since = AwrSince(status, kAwrResourcesDeployed, now);
        const Duration grace =
            AwrDuration(aw, "workload.codeflare.dev.appwrapper/admissionGracePeriodDuration",
                        options_.admission_grace);
        if (now < since + grace) {
          (void)WriteStatus(aw);
          WakeAt(key, now + Duration{1000});
          return false;
        }
      }
      const std::string msg = "error creating components: " + created.message();
      AwrSetCondition(status, kAwrUnhealthy, "True", "CreateFailed", msg, now_s);
      Event(aw, kAwrUnhealthy, "CreateFailed: " + msg);
      return fatal ? transition(kAwrFailed) : reset_or_fail(false);
    }
    return transition(kAwrRunning);
  }
  if (phase == kAwrRunning) {
    if (suspend) {
      Event(aw, kAwrSuspending, "Externally suspended while in the Running phase");
      return transition(kAwrSuspending);
    }
    // The pods.
    const std::set<int64_t> terminal_codes =
        AwrExitCodes(aw, "workload.codeflare.dev.appwrapper/terminalExitCodes");
    const std::set<int64_t> retryable_codes =
        AwrExitCodes(aw, "workload.codeflare.dev.appwrapper/retryableExitCodes");
    AwrPodSummary pods;
    for (const Json& cs : jobs::ArrAt(status, "componentStatus")) {
      for (const Json& ps : jobs::ArrAt(cs, "podSets"))
        pods.expected += jobs::IntAt(ps, "replicas", 1);
    }
    store::ListOptions lo;
    lo.ns = ns;
    lo.label_selector = std::string(jobs::kAppWrapperLabel) + "=" + name;
    Result<store::ListResult> listed = store_.List(kAwrPods, lo);
    if (!listed.ok()) return false;
    for (const Json& pod : listed->items) {
      const std::string p = jobs::StrAt(jobs::ObjAt(pod, "status"), "phase");
      if (p == "Pending" || p.empty()) {
        ++pods.pending;
      } else if (p == "Running") {
        if (control::MetaString(pod, "deletionTimestamp").empty()) ++pods.running;
      } else if (p == "Succeeded") {
        ++pods.succeeded;
      } else if (p == "Failed") {
        ++pods.failed;
        if (AwrTerminalFailure(pod, terminal_codes, retryable_codes)) {
          pods.terminal_failure = true;
        }
      }
    }
    // The components: deployed, failed.
    int64_t deployed = 0, failed_components = 0, succeeded_components = 0;
    const size_t n = jobs::ArrAt(spec, "components").size();
    for (size_t i = 0; i < n; ++i) {
      const AwrComponentRef ref = AwrRefOf(aw, i);
      if (ref.resource.empty()) continue;
      Result<Json> obj = store_.Get(ref.resource, ns, ref.name);
      if (!obj.ok() || !control::MetaString(*obj, "deletionTimestamp").empty()) continue;
      ++deployed;
      bool ok = false;
      const jobs::JobKind* kind = jobs::FindJobKind(ref.resource);
      if (kind != nullptr && kind->IsFinished(*obj, &ok))
        ++(ok ? succeeded_components : failed_components);
    }
    if (deployed != static_cast<int64_t>(n)) {
      const std::string msg = "Only found " + std::to_string(deployed) +
                              " deployed components, but was expecting " + std::to_string(n);
      AwrSetCondition(status, kAwrUnhealthy, "True", "MissingComponent", msg, now_s);
      Event(aw, kAwrUnhealthy, "MissingComponent: " + msg);
      return transition(kAwrFailed);
    }
    if (failed_components > 0) {
      const std::string msg = "Found " + std::to_string(failed_components) + " failed components";
      AwrSetCondition(status, kAwrUnhealthy, "True", "FailedComponent", msg, now_s);
      Event(aw, kAwrUnhealthy, "FailedComponent: " + msg);
      return reset_or_fail(pods.terminal_failure);
    }
    // Every expected pod succeeded, or (Kuota's addition) every component
    // succeeded: an operator may delete the pods it no longer needs once its
    // job has succeeded (a PyTorchJob's workers after its master), and they
    // would never be counted.
    const bool all_done =
        pods.succeeded >= pods.expected || succeeded_components == static_cast<int64_t>(n);
    if (all_done && pods.pending + pods.running + pods.failed == 0) {
      const std::string msg = std::to_string(pods.succeeded) +
                              " pods succeeded and no running, pending, or failed pods";
      AwrSetCondition(status, kAwrQuotaReserved, "False", kAwrSucceeded, msg, now_s);
      AwrSetCondition(status, kAwrResourcesDeployed, "True", kAwrSucceeded, msg, now_s);
      return transition(kAwrSucceeded);
    }
    if (pods.failed > 0) {
      AwrSetCondition(status, kAwrUnhealthy, "True", "FoundFailedPods", "", now_s);
      const Time deadline =
          AwrSince(status, kAwrUnhealthy, now) +
          AwrDuration(aw, "workload.codeflare.dev.appwrapper/failureGracePeriodDuration",
                      options_.failure_grace);
      if (now < deadline) {
        if (status != before) (void)WriteStatus(aw);
        WakeAt(key, deadline);
        return false;
      }
      Event(aw, kAwrUnhealthy, "FoundFailedPods: " + std::to_string(pods.failed) + " failed pods");
      return reset_or_fail(pods.terminal_failure);
    }
    AwrClearCondition(status, kAwrUnhealthy, "FoundNoFailedPods", "", now_s);
    if (pods.running + pods.succeeded >= pods.expected) {
      AwrSetCondition(status, kAwrPodsReady, "True", "SufficientPodsReady",
                      std::to_string(pods.running) + " pods running; " +
                          std::to_string(pods.succeeded) + " pods succeeded",
                      now_s);
      if (status != before) return WriteStatus(aw);
      return false;
    }
    const std::string details = std::to_string(pods.pending) + " pods pending; " +
                                std::to_string(pods.running) + " pods running; " +
                                std::to_string(pods.succeeded) + " pods succeeded";
    AwrClearCondition(status, kAwrPodsReady, "InsufficientPodsReady", details, now_s);
    const bool all_there = pods.pending + pods.running + pods.succeeded >= pods.expected;
    const Duration grace =
        all_there
            ? AwrDuration(aw, "workload.codeflare.dev.appwrapper/warmupGracePeriodDuration",
                          options_.warmup_grace)
            : AwrDuration(aw, "workload.codeflare.dev.appwrapper/admissionGracePeriodDuration",
                          options_.admission_grace);
    const Time deadline = AwrSince(status, kAwrResourcesDeployed, now) + grace;
    if (now < deadline) {
      if (status != before) (void)WriteStatus(aw);
      WakeAt(key, std::min(deadline, now + Duration{5000}));
      return false;
    }
    AwrSetCondition(status, kAwrUnhealthy, "True", "InsufficientPodsReady", details, now_s);
    Event(aw, kAwrUnhealthy, "InsufficientPodsReady: " + details);
    return reset_or_fail(pods.terminal_failure);
  }
  if (phase == kAwrSuspending) {
    if (AwrConditionTrue(status, kAwrResourcesDeployed)) {
      if (!DeleteComponents(aw)) {
        WakeAt(key, now + Duration{500});
        return false;
      }
      AwrSetCondition(status, kAwrResourcesDeployed, "False", kAwrSuspended, "Suspend is true",
                      now_s);
    }
    AwrSetCondition(status, kAwrQuotaReserved, "False", kAwrSuspended, "Suspend is true", now_s);
    AwrClearCondition(status, kAwrPodsReady, kAwrSuspended, "", now_s);
    AwrClearCondition(status, kAwrUnhealthy, kAwrSuspended, "", now_s);
    return transition(kAwrSuspended);
  }
  if (phase == kAwrResetting) {
    if (suspend) {
      Event(aw, kAwrSuspending, "Externally suspended while in the Resetting phase");
      return transition(kAwrSuspending);
    }
    AwrClearCondition(status, kAwrPodsReady, kAwrResetting, "", now_s);
    if (AwrConditionTrue(status, kAwrResourcesDeployed)) {
      if (!DeleteComponents(aw)) {
        WakeAt(key, now + Duration{500});
        return false;
      }
      AwrSetCondition(status, kAwrResourcesDeployed, "False", kAwrResetting,
                      "Resources deleted for resetting AppWrapper", now_s);
    }
    const Time deadline =
        AwrSince(status, kAwrUnhealthy, now) +
        AwrDuration(aw, "workload.codeflare.dev.appwrapper/retryPausePeriodDuration",
                    options_.retry_pause);
    if (now < deadline) {
      if (status != before) (void)WriteStatus(aw);
      WakeAt(key, deadline);
      return false;
    }
    AwrSetCondition(status, kAwrResourcesDeployed, "True", kAwrResuming, "Reset complete; resuming",
                    now_s);
    status["componentStatus"] = AwrInitialComponentStatus(aw);
    return transition(kAwrResuming);
  }
  if (phase == kAwrFailed) {
    // Debugging: the annotation keeps a failed AppWrapper's components (and
    // its quota) for a while, unless Kueue suspends it.
    const char* kDelay = "workload.codeflare.dev.appwrapper/deletionOnFailureGracePeriodDuration";
    const Duration delay = AwrDuration(aw, kDelay, std::chrono::milliseconds(0));
    if (delay.ms > 0 && !suspend && AwrConditionTrue(status, kAwrResourcesDeployed)) {
      AwrSetCondition(
          status, "DeletingResources", "False", "DeletionPaused",
          std::string(kDelay) + " has value " + jobs::MetaMapValue(aw, "annotations", kDelay),
          now_s);
      const Time deadline = AwrSince(status, "DeletingResources", now) + delay;
      if (now < deadline) {
        if (status != before) (void)WriteStatus(aw);
        WakeAt(key, deadline);
        return false;
      }
    }
    if (AwrConditionTrue(status, kAwrResourcesDeployed)) {
      if (!DeleteComponents(aw)) {
        WakeAt(key, now + Duration{500});
        return false;
      }
      AwrSetCondition(status, kAwrResourcesDeployed, "False", kAwrFailed,
                      suspend ? "Kueue forced resource deletion by suspending AppWrapper"
                              : "Resources deleted for failed AppWrapper",
                      now_s);
    }
    AwrSetCondition(status, kAwrQuotaReserved, "False", kAwrFailed, "No resources deployed", now_s);
    if (status != before) return WriteStatus(aw);
    return false;
  }
  // Succeeded: the components stay until the success TTL passed (counted,
  // as the controller counts it, from when they were deployed).
  if (phase == kAwrSucceeded && AwrConditionTrue(status, kAwrResourcesDeployed)) {
    const char* kTtl = "workload.codeflare.dev.appwrapper/successTTLDuration";
    const Duration ttl = AwrDuration(aw, kTtl, options_.success_ttl);
    const Time deadline = AwrSince(status, kAwrResourcesDeployed, now) + ttl;
    if (now < deadline) {
      WakeAt(key, deadline);
      return false;
    }
    if (!DeleteComponents(aw)) {
      WakeAt(key, now + Duration{500});
      return false;
    }
    std::string shown = jobs::MetaMapValue(aw, "annotations", kTtl);
    if (shown.empty()) shown = std::to_string(ttl.ms / 1000) + "s";
    AwrSetCondition(status, kAwrResourcesDeployed, "False", kAwrSucceeded,
                    "Time to live after success of " + shown + " expired", now_s);
    return WriteStatus(aw);
  }
  return false;
}

}  // namespace kuota::standalone
