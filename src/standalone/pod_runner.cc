#include "standalone/pod_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <vector>

#include "control/events.h"
#include "control/meta_string.h"
#include "runtime/gpu_topology_spec.h"
#include "runtime/group_terminator.h"
#include "runtime/log_cap.h"
#include "runtime/os_files.h"
#include "runtime/process_group.h"
#include "runtime/process_state.h"
#include "runtime/spawn.h"
#include "runtime/user_lookup.h"
#include "standalone/machine_amounts.h"
#include "standalone/pod_command.h"
#include "standalone/pod_config_objects.h"
#include "standalone/pod_volumes.h"
#include "store/list_all.h"

namespace kuota::standalone {

using Json = nlohmann::json;

struct ContainerRun {
  std::string name;
  Json spec;
  std::string log_path, exit_path;
  bool running = false;
  bool ever_started = false;
  // A start interrupted by a kuotad crash before its command could exec:
  // started again once no process of it is left (runtime::StartInProgress).
  bool start_pending = false;
  runtime::ProcessHandle handle;
  int restarts = 0;
  Time started_at{};
  // The last run's end, while it is not running.
  bool terminated = false;
  int exit_code = 0;
  int signal = 0;
  std::string reason, message;
  Time finished_at{};
  Json last_state = Json::object();  // kube's lastTerminationState
  std::optional<Time> restart_at;
  // Waiting for a ConfigMap, Secret or key its env names (the kubelet's
  // CreateContainerConfigError): what is missing; retried at config_retry_at.
  std::string config_wait;
  Time config_retry_at{};
  std::unique_ptr<runtime::GroupTerminator> terminator;
};

struct PodRun {
  enum class Stage { kWaiting, kRunning, kDone };
  std::string key, ns, name, uid, owner;
  std::string start_group;       // pods created together by one controller action
  int64_t start_group_size = 1;  // how many pods that action created
  Json pod;
  Stage stage = Stage::kWaiting;
  std::vector<ContainerRun> containers;
  control::ResourceAmounts requests;
  std::vector<int> gpus;
  std::string gpu_reason;  // why those GPUs (runtime::GpuGrant::reason)
  std::string cgroup_dir;
  bool placed = false;  // counted in in_use_
  Time start_time{};
  bool deleting = false;
  std::string wait_message;
  std::string fail_reason, fail_message;
  // Who its processes run as, decided once when the runner first sees the
  // pod (its submitter annotations cannot change afterwards).
  RunAsDecision run_as;
  // Its configMap, secret and emptyDir volumes are written (before its first
  // container starts); until then, while one's source is missing, what is
  // missing (the kubelet's FailedMount), retried at volume_retry_at.
  bool volumes_ready = false;
  std::string volume_wait;
  Time volume_retry_at{};
  Json written_status;
};

namespace {

constexpr const char* kPods = "pods";
constexpr const char* kComponent = "kuotad-runner";
// How often a pod waiting for a ConfigMap or Secret looks again.
constexpr Duration kConfigRetry{1000};

std::string Phase(const Json& pod) {
  auto st = pod.find("status");
  if (st == pod.end() || !st->is_object()) return "";
  return st->value("phase", "");
}

bool HasFinalizer(const Json& pod, const std::string& f) {
  auto m = pod.find("metadata");
  if (m == pod.end() || !m->contains("finalizers") || !(*m)["finalizers"].is_array()) return false;
  for (const auto& x : (*m)["finalizers"]) {
    if (x.is_string() && x.get<std::string>() == f) return true;
  }
  return false;
}

std::string OwnerUid(const Json& pod) {
  auto m = pod.find("metadata");
  if (m == pod.end() || !m->contains("ownerReferences")) return "";
  for (const auto& r : (*m)["ownerReferences"]) {
    if (r.is_object() && r.value("controller", false)) return r.value("uid", "");
  }
  return "";
}

// kube-scheduler leaves a pod with scheduling gates (Kueue's admission gate,
// say) alone until every gate is removed.
constexpr const char* kSchedulingGated = "SchedulingGated";
constexpr const char* kGatedMessage = "Scheduling is blocked due to non-empty scheduling gates";

bool HasSchedulingGates(const Json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return false;
  auto gates = spec->find("schedulingGates");
  return gates != spec->end() && gates->is_array() && !gates->empty();
}

std::string RestartPolicy(const Json& pod) {
  return pod.value("spec", Json::object()).value("restartPolicy", "Always");
}

std::string SignalName(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGKILL:
      return "SIGKILL";
    case SIGINT:
      return "SIGINT";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGXFSZ:
      return "SIGXFSZ";
    default:
      return "signal " + std::to_string(sig);
  }
}

// Writes `text` to `path` durably: temporary file, fsync, rename.
Status WriteFileDurably(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Unavailable("cannot write " + tmp + ": " + runtime::ErrnoText(errno));
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Status::Unavailable("cannot write " + tmp + ": " + runtime::ErrnoText(err));
    }
    off += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Unavailable("cannot rename " + tmp + ": " + runtime::ErrnoText(errno));
  }
  // The rename itself must be durable before a command is released.
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::Ok();
}

// A pod's record of what was started (its runtime.json, at `path`); null
// when there is none, discarded when it does not parse.
Json ReadRecord(const std::string& path) {
  std::ifstream in(path);
  return in ? Json::parse(in, nullptr, false) : Json();
}

// A container's process handle as SaveRecord writes it.
runtime::ProcessHandle HandleFromRecord(const Json& c) {
  runtime::ProcessHandle h;
  h.keeper_pid = c.value("keeper", 0);
  h.keeper_start_time = c.value("keeperStart", uint64_t{0});
  h.pgid = c.value("pgid", 0);
  h.pgid_start_time = c.value("pgidStart", uint64_t{0});
  h.boot_id = c.value("bootId", "");
  return h;
}

}  // namespace

PodRunner::PodRunner(store::ObjectStore& store, const Clock& clock, PodRunnerOptions options)
    : errors_(store, clock, "kubelet"),
      store_(store),
      clock_(clock),
      options_(std::move(options)),
      run_as_policy_{options_.require_submitter,
                     options_.daemon_uid.value_or(static_cast<uint32_t>(::geteuid()))},
      look_up_user_(options_.look_up_user ? options_.look_up_user
                                          : UserLookup(runtime::LookUpUser)),
      capacity_(MachineAmounts(options_.machine)),
      gpus_([this] {
        std::vector<int> idx;
        for (const auto& g : options_.machine.gpus) idx.push_back(g.index);
        runtime::GpuTopology flat = runtime::GpuTopology::Flat(idx);
        // A topology of other GPUs than those found (or none) counts as flat.
        const runtime::GpuTopology& t = options_.machine.gpu_topology;
        return t.indices == flat.indices ? t : flat;
      }()) {}

PodRunner::~PodRunner() { Stop(); }

std::string PodRunner::LimitsNote() const {
  if (cgroups_ && cgroups_->enforced()) {
    return "CPU and memory limits enforced with cgroup v2 under " + cgroups_->subtree_dir();
  }
  return "CPU and memory limits NOT enforced: " +
         (cgroups_ ? cgroups_->reason() : std::string("disabled (--no-cgroups)"));
}

std::string PodRunner::PodDir(const std::string& uid) const {
  return options_.pods_dir + "/" + uid;
}

std::string PodRunner::VolumesDir(const std::string& uid) const {
  // Absolute: the container's processes run in a directory of their own.
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(PodDir(uid) + "/volumes", ec);
  return ec ? PodDir(uid) + "/volumes" : dir.lexically_normal().string();
}

Status PodRunner::Start() {
  if (options_.pods_dir.empty()) return Status::Invalid("PodRunner: pods_dir is required");
  KUOTA_RETURN_IF_ERROR(runtime::MakeDirs(options_.pods_dir, 0700));
  if (options_.use_cgroups) {
    cgroups_ = std::make_unique<runtime::CgroupManager>(runtime::CgroupManager::Detect());
  }
  KUOTA_RETURN_IF_ERROR(PublishNode());
  KUOTA_RETURN_IF_ERROR(Sync());
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void PodRunner::Stop() {
  stop_ = true;
  if (watcher_) watcher_->Stop();
  if (thread_.joinable()) thread_.join();
}

Status PodRunner::PublishNode() {
  const auto& m = options_.machine;
  auto amount = [](int64_t v) { return std::to_string(v); };
  Json resources = {
      {"cpu", m.cpu_millis % 1000 == 0 ? amount(m.cpu_millis / 1000) : amount(m.cpu_millis) + "m"},
      {"memory", amount(m.memory_bytes / 1024) + "Ki"},
      {"pods", "110"}};
  if (!m.gpus.empty())
    resources[control::kGpuResource] = amount(static_cast<int64_t>(m.gpus.size()));
  std::string notes;
  for (const auto& n : m.notes) notes += (notes.empty() ? "" : "; ") + n;
  const std::string now = FormatRfc3339(clock_.Now());
  Json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata",
                {{"name", m.hostname},
                 {"labels",
                  {{"kubernetes.io/hostname", m.hostname},
                   {"kubernetes.io/os", "linux"},
                   {"node-role.kubernetes.io/kuota", ""}}},
                 {"annotations",
                  {{"kuota.dev/capacity-notes", notes}, {"kuota.dev/limits", LimitsNote()}}}}},
               {"spec", Json::object()},
               {"status",
                {{"capacity", resources},
                 {"allocatable", resources},
                 {"conditions", Json::array({{{"type", "Ready"},
                                              {"status", "True"},
                                              {"reason", "KuotadReady"},
                                              {"message", "kuotad runs pods on this machine"},
                                              {"lastHeartbeatTime", now},
                                              {"lastTransitionTime", now}}})},
                 {"addresses", Json::array({{{"type", "InternalIP"}, {"address", "127.0.0.1"}},
                                            {{"type", "Hostname"}, {"address", m.hostname}}})},
                 {"nodeInfo",
                  {{"kubeletVersion", "kuota"},
                   {"operatingSystem", "linux"},
                   {"architecture", ""},
                   {"containerRuntimeVersion", "kuota-local://processes"}}}}}};
  for (const auto& g : m.gpus) {
    node["metadata"]["annotations"]["kuota.dev/gpu-" + std::to_string(g.index)] =
        g.uuid + (g.name.empty() ? "" : " " + g.name);
  }
  if (std::string layout = runtime::FormatGpuTopologySpec(gpus_.topology()); !layout.empty()) {
    node["metadata"]["annotations"][kGpuTopologyAnnotation] = layout;
  }
  auto existing = store_.Get("nodes", "", m.hostname);
  if (!existing.ok()) {
    auto created = store_.Create("nodes", node);
    if (!created.ok()) return created.status().WithContext("publishing Node " + m.hostname);
    return Status::Ok();
  }
  auto updated = store_.Update("nodes", node);
  if (!updated.ok()) return updated.status().WithContext("publishing Node " + m.hostname);
  store::UpdateOptions uo;
  uo.status_only = true;
  (void)store_.Update("nodes", node, uo);
  return Status::Ok();
}

Status PodRunner::Sync() {
  const int64_t rv = store_.CurrentResourceVersion();
  KUOTA_RETURN_IF_ERROR(
      store::ListEach(store_, kPods, [&](Json& item) { HandleSafely("ADDED", item); }));
  KUOTA_ASSIGN_OR_RETURN(watcher_, store_.Watch(kPods, "", rv));
  CollectOrphanDirs();
  return Status::Ok();
}

void PodRunner::CollectOrphanDirs() {
  std::set<std::string> known;
  for (const auto& [key, run] : pods_) known.insert(run->uid);
  std::error_code ec;
  std::vector<std::string> orphans;
  for (const auto& entry : std::filesystem::directory_iterator(options_.pods_dir, ec)) {
    const std::string uid = entry.path().filename().string();
    if (!known.count(uid) && entry.is_directory()) orphans.push_back(uid);
  }
  for (const auto& uid : orphans) {
    // Its pod is gone: stop whatever it left running, then drop its files.
    Json rec = ReadRecord(PodDir(uid) + "/runtime.json");
    if (rec.is_object()) {
      const Json containers = rec.contains("containers") ? rec["containers"] : Json::object();
      for (const auto& [name, c] : containers.items()) {
        const runtime::ProcessHandle h = HandleFromRecord(c);
        if (h.pgid > 0) (void)runtime::SignalGroup(h, SIGKILL);
      }
    }
    if (cgroups_ && cgroups_->enforced()) (void)cgroups_->Remove(uid);
    std::filesystem::remove_all(PodDir(uid), ec);
  }
}

void PodRunner::Handle(const std::string& type, const Json& pod) {
  const std::string key =
      control::MetaString(pod, "namespace") + "/" + control::MetaString(pod, "name");
  if (type == "DELETED") {
    Forget(key, /*kill=*/true);
    return;
  }
  auto it = pods_.find(key);
  if (it != pods_.end() && it->second->uid != control::MetaString(pod, "uid")) {
    Forget(key, true);  // a new pod with the old one's name
    it = pods_.end();
  }
  const bool deleting = pod["metadata"].contains("deletionTimestamp");
  if (it == pods_.end()) {
    const std::string phase = Phase(pod);
    const bool terminal = phase == "Succeeded" || phase == "Failed";
    if (terminal && !(deleting && HasFinalizer(pod, kPodFinalizer))) return;
    auto run = std::make_unique<PodRun>();
    run->key = key;
    run->ns = control::MetaString(pod, "namespace");
    run->name = control::MetaString(pod, "name");
    run->uid = control::MetaString(pod, "uid");
    run->owner = OwnerUid(pod);
    if (run->owner.empty()) run->owner = "pod:" + run->uid;
    const Json annotations = pod["metadata"].value("annotations", Json::object());
    run->start_group = annotations.value(kStartGroupAnnotation, "");
    if (!run->start_group.empty()) {
      run->start_group_size =
          std::strtoll(annotations.value(kStartGroupSizeAnnotation, "1").c_str(), nullptr, 10);
    }
    run->pod = pod;
    const std::string dir = PodDir(run->uid);
    for (const auto& c : pod.value("spec", Json::object()).value("containers", Json::array())) {
      ContainerRun cr;
      cr.name = c.value("name", "");
      cr.spec = c;
      cr.log_path = dir + "/" + cr.name + ".log";
      cr.exit_path = dir + "/" + cr.name + ".exit";
      run->containers.push_back(std::move(cr));
    }
    auto req = control::PodRequests(pod);
    if (!req.ok()) {
      run->fail_reason = "InvalidResources";
      run->fail_message = req.status().message();
    } else {
      run->requests = std::move(req).value();
    }
    if (terminal) {
      run->stage = PodRun::Stage::kDone;
      run->written_status = pod.value("status", Json::object());
    } else {
      run->run_as = DecideRunAs(pod, run_as_policy_, look_up_user_);
      Recover(*run);
      if (run->stage != PodRun::Stage::kWaiting) WriteStatus(*run);
    }
    it = pods_.emplace(key, std::move(run)).first;
  }
  PodRun& run = *it->second;
  run.pod = pod;
  if (deleting) run.deleting = true;
}

void PodRunner::Recover(PodRun& run) {
  Json rec = ReadRecord(PodDir(run.uid) + "/runtime.json");
  const std::string phase = Phase(run.pod);
  if (!rec.is_object()) {
    if (phase == "Running") {
      // It ran under a kuotad that kept no record of it: nothing to adopt.
      run.stage = PodRun::Stage::kDone;
      run.fail_reason = "Lost";
      run.fail_message = "kuotad restarted and found no record of this pod's processes";
      for (auto& c : run.containers) {
        c.terminated = true;
        c.exit_code = 137;
        c.reason = "Lost";
        c.finished_at = clock_.Now();
      }
    }
    return;  // a fresh pod: it waits for placement
  }
  run.stage = PodRun::Stage::kRunning;
  run.placed = true;
  for (const auto& [k, v] : run.requests) in_use_[k] += v;
  if (auto st = ParseRfc3339(rec.value("startTime", "")); st.ok()) run.start_time = *st;
  run.cgroup_dir = rec.value("cgroup", "");
  std::vector<int> gpus = rec.value("gpus", std::vector<int>{});
  if (!gpus.empty()) {
    run.gpu_reason = rec.value("gpuReason", "");
    Status st = gpus_.Restore(run.uid, gpus, run.gpu_reason);
    if (!st.ok())
      std::fprintf(stderr, "kuotad: pod %s: %s\n", run.key.c_str(), st.message().c_str());
    run.gpus = gpus;
  }
  const Json containers = rec.value("containers", Json::object());
  for (auto& c : run.containers) {
    auto r = containers.find(c.name);
    if (r == containers.end()) {
      // The pod was half started when kuotad stopped: "starting" is recorded
      // before a keeper is forked, so this container never started. Start it.
      c.start_pending = true;
      continue;
    }
    c.restarts = r->value("restarts", 0);
    if (auto t = ParseRfc3339(r->value("startedAt", "")); t.ok()) c.started_at = *t;
    if (r->value("state", "") == "starting") {
      // kuotad stopped before recording the start's processes, so it never
      // released the command: it never ran. Its keeper, if one was forked,
      // is killing it; start it again once that keeper is gone.
      c.start_pending = true;
      continue;
    }
    if (r->value("state", "") == "failed") {
      c.terminated = true;
      c.exit_code = r->value("exitCode", 128);
      c.reason = r->value("reason", "StartError");
      c.message = r->value("message", "");
      c.finished_at = clock_.Now();
      continue;
    }
    c.ever_started = true;
    c.handle = HandleFromRecord(*r);
    c.running = true;  // PollContainers learns the truth on the next step
  }
}

Status PodRunner::SaveRecord(const PodRun& run) const {
  Json containers = Json::object();
  for (const auto& c : run.containers) {
    if (!c.ever_started && !c.terminated && !c.running) {
      continue;
    }
    Json r = {{"restarts", c.restarts}, {"startedAt", FormatRfc3339(c.started_at)}};
    if (c.ever_started) {
      r["state"] = "started";
      r["keeper"] = c.handle.keeper_pid;
      r["keeperStart"] = c.handle.keeper_start_time;
      r["pgid"] = c.handle.pgid;
      r["pgidStart"] = c.handle.pgid_start_time;
      r["bootId"] = c.handle.boot_id;
    } else {
      r["state"] = "failed";
      r["exitCode"] = c.exit_code;
      r["reason"] = c.reason;
      r["message"] = c.message;
    }
    containers[c.name] = r;
  }
  Json rec = {{"pod", run.key},           {"startTime", FormatRfc3339(run.start_time)},
              {"gpus", run.gpus},         {"gpuReason", run.gpu_reason},
              {"cgroup", run.cgroup_dir}, {"containers", containers}};
  return WriteFileDurably(PodDir(run.uid) + "/runtime.json", rec.dump(1) + "\n");
}

void PodRunner::HandleSafely(const std::string& type, const Json& pod) {
  std::string err = control::CatchAll([&] { Handle(type, pod); });
  if (err.empty()) return;
  errors_.Report(kPods, pod, "InvalidPod", err);
  // What was half set up for it must not block the others: forget it.
  const std::string key =
      control::MetaString(pod, "namespace") + "/" + control::MetaString(pod, "name");
  std::string forget = control::CatchAll([&] { Forget(key, /*kill=*/true); });
  if (!forget.empty()) std::fprintf(stderr, "kuotad: pod %s: %s\n", key.c_str(), forget.c_str());
}

void PodRunner::Run() {
  // No exception may end the loop (and kuotad with it): per-pod failures are
  // reported on the pod; anything else is logged and the loop goes on.
  while (!stop_) {
    std::string err = control::CatchAll([&] { RunLoop(); });
    if (err.empty()) break;
    std::fprintf(stderr, "kuotad: pod runner: %s\n", err.c_str());
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

void PodRunner::RunLoop() {
  while (!stop_) {
    store::WatchEvent ev;
    auto wait = options_.tick;
    while (!stop_ && watcher_->Next(&ev, wait)) {
      if (ev.type != store::EventType::kBookmark) {
        HandleSafely(store::EventTypeName(ev.type), ev.object);
      }
      wait = std::chrono::milliseconds(0);
    }
    if (stop_) break;
    if (!watcher_->Alive()) {
      std::fprintf(stderr, "kuotad: pod runner watch ended; resynchronizing\n");
      auto w = store_.Watch(kPods, "", store_.CurrentResourceVersion());
      if (w.ok()) {
        watcher_ = std::move(w).value();
        store::ListOptions lo;
        auto all = store_.List(kPods, lo);
        if (all.ok()) {
          std::set<std::string> present;
          for (const auto& p : all->items) {
            present.insert(control::MetaString(p, "namespace") + "/" +
                           control::MetaString(p, "name"));
            HandleSafely("MODIFIED", p);
          }
          std::vector<std::string> gone;
          for (const auto& [key, run] : pods_) {
            if (!present.count(key)) gone.push_back(key);
          }
          for (const auto& key : gone) Forget(key, true);
        }
      } else {
        std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      continue;
    }
    Step();
  }
}

void PodRunner::Step() {
  std::vector<std::string> keys;
  for (const auto& [key, run] : pods_) keys.push_back(key);
  for (const auto& key : keys) {
    auto it = pods_.find(key);
    if (it == pods_.end()) continue;
    PodRun& run = *it->second;
    std::string err = control::CatchAll([&] {
      if (run.deleting) {
        StepDeletion(run);
      } else if (run.stage == PodRun::Stage::kRunning) {
        PollContainers(run);
      }
    });
    if (!err.empty()) errors_.Report(kPods, run.pod, "InvalidPod", err);
  }
  TryStartWaiting();
  auto now = std::chrono::steady_clock::now();
  if (now - last_log_cap_ >= std::chrono::seconds(1)) {
    last_log_cap_ = now;
    for (const auto& [key, run] : pods_) {
      if (run->stage != PodRun::Stage::kRunning) continue;
      for (const auto& c : run->containers) {
        if (!c.ever_started) continue;
        Status st = runtime::EnforceLogCap(c.log_path, options_.max_log_bytes);
        if (!st.ok())
          std::fprintf(stderr, "kuotad: log cap %s: %s\n", c.log_path.c_str(),
                       st.message().c_str());
      }
    }
  }
}

void PodRunner::TryStartWaiting() {
  // The waiting pods of each owner start together, or not at all.
  std::map<std::string, std::vector<PodRun*>> groups;
  std::map<std::string, int64_t> seen;  // start group -> pods of it known
  std::vector<std::string> order;
  for (auto& [key, run] : pods_) {
    const std::string group = run->owner + "/" + run->start_group;
    seen[group]++;
    if (run->stage != PodRun::Stage::kWaiting || run->deleting) continue;
    if (HasSchedulingGates(run->pod)) {
      if (run->wait_message != kGatedMessage) {
        run->wait_message = kGatedMessage;
        WriteStatus(*run);
      }
      continue;
    }
    if (!run->run_as.allowed()) {
      // It will never run: fail it now rather than once the machine has room.
      if (run->fail_reason.empty()) {
        run->fail_reason = run->run_as.reason;
        run->fail_message = run->run_as.message;
      }
      StartPod(*run);
      continue;
    }
    if (!groups.count(group)) order.push_back(group);
    groups[group].push_back(run.get());
  }
  for (const auto& owner : order) {
    auto& group = groups[owner];
    // Pods created together start together: wait until all are here.
    if (group.front()->start_group_size > seen[owner]) continue;
    control::ResourceAmounts need;
    for (PodRun* r : group) {
      for (const auto& [k, v] : r->requests) need[k] += v;
    }
    std::string why;
    if (std::string s = control::FirstShortfall(need, capacity_); !s.empty()) {
      why = "0/1 nodes are available: the pods of this job need " + s +
            " even when the machine is empty";
    } else {
      control::ResourceAmounts free = capacity_;
      for (const auto& [k, v] : in_use_) {
        if (auto f = free.find(k); f != free.end()) f->second -= v;
      }
      if (std::string f = control::FirstShortfall(need, free); !f.empty()) {
        why = "0/1 nodes are available: waiting for " + f + " to be free";
        // FirstShortfall names the capacity; say what is free instead.
        why.replace(why.find("the machine has"), std::string("the machine has").size(), "free:");
      }
    }
    if (!why.empty()) {
      for (PodRun* r : group) {
        if (r->wait_message != why) {
          r->wait_message = why;
          WriteStatus(*r);
        }
      }
      continue;
    }
    // The group's GPUs together: the closest free ones, its pods packed
    // into one group where they fit (runtime/gpu_placement.h).
    std::vector<runtime::GpuRequest> want;
    for (PodRun* r : group) {
      auto n = r->requests.find(control::kGpuResource);
      const int count = n == r->requests.end() ? 0 : static_cast<int>((n->second + 999) / 1000);
      if (count > 0) want.push_back({r->uid, count});
    }
    auto grants = gpus_.AllocateGang(want);
    if (!grants.ok()) continue;
    for (const auto& g : *grants) {
      for (PodRun* r : group) {
        if (r->uid != g.owner) continue;
        r->gpus = g.indices;
        r->gpu_reason = g.reason;
      }
    }
    for (PodRun* r : group) StartPod(*r);
  }
}

bool PodRunner::StartPod(PodRun& run) {
  run.wait_message.clear();
  run.stage = PodRun::Stage::kRunning;
  run.start_time = clock_.Now();
  run.placed = true;
  for (const auto& [k, v] : run.requests) in_use_[k] += v;
  const Json spec = run.pod.value("spec", Json::object());
  if (run.fail_reason.empty() && spec.contains("initContainers") &&
      !spec["initContainers"].empty()) {
    run.fail_reason = "Unsupported";
    run.fail_message = "spec.initContainers: not supported by kuotad's local runtime";
  }
  if (run.fail_reason.empty() && run.containers.empty()) {
    run.fail_reason = "Invalid";
    run.fail_message = "spec.containers: the pod has no containers";
  }
  if (!run.fail_reason.empty()) {
    FailPod(run);
    return false;
  }
  if (!HasFinalizer(run.pod, kPodFinalizer)) {
    // A pod created directly (not by a Job): hold it while its processes run.
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto cur = store_.Get(kPods, run.ns, run.name);
      if (!cur.ok()) break;
      Json obj = *cur;
      obj["metadata"]["finalizers"].push_back(kPodFinalizer);
      auto up = store_.Update(kPods, obj);
      if (up.ok()) {
        run.pod = *up;
        break;
      }
    }
  }
  if (cgroups_ && cgroups_->enforced()) {
    int64_t cpu = 0, mem = 0;
    for (const auto& c : run.containers) {
      control::ContainerLimits l = control::LimitsOf(c.spec);
      cpu += l.cpu_millis;
      mem += l.memory_bytes;
    }
    if (cpu > 0 || mem > 0) {
      auto placement = cgroups_->Create(run.uid, cpu, mem);
      if (placement.ok()) {
        run.cgroup_dir = placement->dir;
      } else {
        std::fprintf(stderr, "kuotad: pod %s: cgroup: %s\n", run.key.c_str(),
                     placement.status().message().c_str());
      }
    }
  }
  (void)runtime::MakeDirs(PodDir(run.uid), 0700);
  StartContainers(run);
  if (run.stage == PodRun::Stage::kDone) return false;  // a volume kuotad could not write
  WriteStatus(run);
  options_.faults.Reach(FaultPoint::kAfterRunning, run.name);
  return true;
}

void PodRunner::FailPod(PodRun& run) {
  for (auto& c : run.containers) {
    c.running = false;
    c.terminated = true;
    c.exit_code = 128;
    c.reason = run.fail_reason;
    c.message = run.fail_message;
    c.finished_at = clock_.Now();
    c.config_wait.clear();
  }
  run.volume_wait.clear();
  run.stage = PodRun::Stage::kDone;
  control::RecordEvent(store_, clock_, run.pod, "Warning", "Failed", run.fail_message, kComponent);
  if (cgroups_ && !run.cgroup_dir.empty()) (void)cgroups_->Remove(run.uid);
  gpus_.Release(run.uid);
  if (run.placed) {
    for (const auto& [k, v] : run.requests) in_use_[k] -= v;
    run.placed = false;
  }
  WriteStatus(run);
}

void PodRunner::StartContainers(PodRun& run) {
  if (!MountVolumes(run)) return;
  size_t started = 0;
  for (size_t i = 0; i < run.containers.size(); ++i) {
    if (StartContainer(run, i)) ++started;
  }
  if (started == 0) return;
  control::RecordEvent(
      store_, clock_, run.pod, "Normal", "Started",
      "Started " + std::to_string(started) + " container(s) on " + options_.machine.hostname +
          (run.gpus.empty() ? std::string()
                            : " with GPUs " + Json(run.gpus).dump() +
                                  (run.gpu_reason.empty() ? "" : ": " + run.gpu_reason)),
      kComponent);
}

bool PodRunner::MountVolumes(PodRun& run) {
  if (run.volumes_ready) return true;
  std::optional<VolumeOwner> owner;
  if (run.run_as.run_as) owner = VolumeOwner{run.run_as.run_as->uid, run.run_as.run_as->gid};
  Result<PodConfigObjects> config = ReadPodConfigObjects(store_, run.pod);
  Status st = config.status();
  if (config.ok()) {
    Result<std::vector<VolumeContent>> plan = PlanVolumes(run.pod, *config);
    st = plan.status();
    if (plan.ok() && !plan->empty()) {
      if (owner && owner->uid != ::geteuid()) {
        // The user the pod runs as must reach <pods dir>/<uid>/volumes/<name>,
        // which only that user may enter; the directories above it list nothing.
        ::chmod(options_.pods_dir.c_str(), 0711);
        ::chmod(PodDir(run.uid).c_str(), 0711);
      }
      st = WriteVolumes(VolumesDir(run.uid), *plan, owner);
    }
  }
  if (st.ok()) {
    run.volumes_ready = true;
    run.volume_wait.clear();
    return true;
  }
  if (st.code() == StatusCode::kNotFound ||
      (!config.ok() && st.code() == StatusCode::kUnavailable)) {
    // The kubelet's FailedMount: the pod waits until the object exists.
    if (run.volume_wait != st.message()) {
      control::RecordEvent(store_, clock_, run.pod, "Warning", "FailedMount", st.message(),
                           kComponent);
    }
    run.volume_wait = st.message();
    run.volume_retry_at = clock_.Now() + kConfigRetry;
    return false;
  }
  run.fail_reason = "FailedMount";
  run.fail_message = st.message();
  FailPod(run);
  return false;
}

// One start of container i, in the order that keeps it at most once across
// a kuotad crash at any instant (each step is a fault point):
//   record "starting" -> fork the keeper, whose command waits before exec ->
//   record "started" with their identity -> release ("go").
// A kuotad that dies before "go" leaves a command that never ran (the keeper
// kills it); Recover tells which step was reached and resumes.
bool PodRunner::StartContainer(PodRun& run, size_t i) {
  ContainerRun& c = run.containers[i];
  std::vector<runtime::EnvVar> extra;
  if (!run.gpus.empty()) {
    extra = runtime::GpuVisibilityEnv(run.gpus);
  } else if (!options_.machine.gpus.empty()) {
    // A pod that asked for no GPU sees none.
    extra = {{"CUDA_VISIBLE_DEVICES", ""}, {"NVIDIA_VISIBLE_DEVICES", "void"}};
  }
  Result<PodConfigObjects> config = ReadPodConfigObjects(store_, run.pod);
  ContainerMounts mounts = MountsOf(run.pod, c.spec, VolumesDir(run.uid));
  ContainerInputs inputs;
  inputs.config = config.ok() ? &*config : nullptr;
  inputs.mounts = mounts.mounts;
  Result<ContainerCommand> cmd = config.ok() ? BuildContainerCommand(run.pod, c.spec, extra, inputs)
                                             : Result<ContainerCommand>(config.status());
  if (run.run_as.allowed() && !cmd.ok() &&
      (cmd.status().code() == StatusCode::kNotFound ||
       cmd.status().code() == StatusCode::kUnavailable)) {
    // The kubelet's CreateContainerConfigError: it waits until what its env
    // names exists, looking again every second.
    if (c.config_wait != cmd.status().message()) {
      control::RecordEvent(store_, clock_, run.pod, "Warning", "Failed",
                           "Error: " + cmd.status().message(), kComponent);
    }
    c.config_wait = cmd.status().message();
    c.config_retry_at = clock_.Now() + kConfigRetry;
    c.running = false;
    c.restart_at.reset();
    return false;
  }
  c.config_wait.clear();
  if (cmd.ok()) {
    for (const auto& w : mounts.warnings) cmd->warnings.push_back(w);
  }
  Result<runtime::ProcessHandle> handle = Status::Internal("container not started");
  if (!run.run_as.allowed()) {
    // A pod recovered after a restart of kuotad whose user it can no longer
    // become: no further start of its containers.
    handle = Status::Invalid(run.run_as.message);
  } else if (!cmd.ok()) {
    handle = cmd.status();
  } else {
    for (const auto& w : cmd->warnings) {
      control::RecordEvent(store_, clock_, run.pod, "Warning", "UnsupportedField", w, kComponent);
    }
    options_.faults.Reach(FaultPoint::kBeforeStarting, run.name);
    Status st = runtime::MakeDirs(PodDir(run.uid), 0700);
    Json rec = ReadRecord(PodDir(run.uid) + "/runtime.json");
    if (!rec.is_object()) rec = Json::object();
    rec["containers"][c.name] = {{"state", "starting"}, {"restarts", c.restarts}};
    rec["gpus"] = run.gpus;
    rec["gpuReason"] = run.gpu_reason;
    rec["cgroup"] = run.cgroup_dir;
    rec["startTime"] = FormatRfc3339(run.start_time);
    if (st.ok()) st = WriteFileDurably(PodDir(run.uid) + "/runtime.json", rec.dump(1) + "\n");
    if (!st.ok()) {
      handle = st;
    } else {
      options_.faults.Reach(FaultPoint::kAfterStarting, run.name);
      runtime::ProcessSpec spec;
      spec.argv = cmd->argv;
      spec.env = cmd->env;
      spec.working_dir = cmd->working_dir;
      spec.log_path = c.log_path;
      spec.exit_path = c.exit_path;
      spec.cgroup_dir = run.cgroup_dir;
      spec.run_as = run.run_as.run_as;
      auto pending = runtime::BeginSpawn(spec);
      if (!pending.ok()) {
        handle = pending.status();
      } else {
        options_.faults.Reach(FaultPoint::kAfterFork, run.name);
        // Record who is about to run before letting it run.
        const bool was_started = c.ever_started;
        const runtime::ProcessHandle was_handle = c.handle;
        c.handle = pending->handle();
        c.ever_started = true;
        c.started_at = clock_.Now();
        st = SaveRecord(run);
        if (!st.ok()) {
          pending->Abort();
          handle = st.WithContext("recording the start (the command was not started)");
        } else {
          options_.faults.Reach(FaultPoint::kAfterStarted, run.name);
          handle = pending->Release();
          if (handle.ok()) options_.faults.Reach(FaultPoint::kAfterGo, run.name);
        }
        if (!handle.ok()) {
          c.ever_started = was_started;
          c.handle = was_handle;
        }
      }
    }
  }
  const Time now = clock_.Now();
  c.restart_at.reset();
  if (!handle.ok()) {
    c.running = false;
    c.terminated = true;
    c.exit_code = 128;
    c.signal = 0;
    c.reason = "StartError";
    c.message = handle.status().message();
    c.started_at = now;
    c.finished_at = now;
    control::RecordEvent(store_, clock_, run.pod, "Warning", "Failed",
                         "Error: container " + c.name + ": " + c.message, kComponent);
    (void)SaveRecord(run);
    return false;
  }
  // runtime.json already says "started" with this handle.
  c.handle = *handle;
  c.ever_started = true;
  c.running = true;
  c.terminated = false;
  return true;
}

// Starts container i, whose start a crashed kuotad left unfinished, once no
// process of that start is left. True when its state changed.
bool PodRunner::ResumeStart(PodRun& run, size_t i) {
  ContainerRun& c = run.containers[i];
  auto busy = runtime::StartInProgress(c.exit_path);
  if (busy.ok() && *busy) return false;  // its keeper is still stopping
  c.start_pending = false;
  if (!busy.ok()) {
    // Cannot tell whether a process of it is alive: do not risk a second run.
    c.terminated = true;
    c.exit_code = 128;
    c.reason = "StartInterrupted";
    c.message = "kuotad stopped while starting this container and cannot tell whether it ran: " +
                busy.status().message();
    c.started_at = c.finished_at = clock_.Now();
    return true;
  }
  StartContainer(run, i);
  return true;
}

void PodRunner::PollContainers(PodRun& run) {
  const Time now = clock_.Now();
  if (!run.volume_wait.empty()) {
    // Its volumes wait for a ConfigMap or Secret: look again.
    if (run.volume_retry_at > now) return;
    StartContainers(run);
    if (run.stage != PodRun::Stage::kDone) WriteStatus(run);
    return;
  }
  const std::string policy = RestartPolicy(run.pod);
  bool changed = false;
  for (size_t i = 0; i < run.containers.size(); ++i) {
    ContainerRun& c = run.containers[i];
    if (c.running) {
      runtime::ProcessState ps = runtime::Inspect(c.handle, c.exit_path);
      if (!ps.finished()) continue;
      if (ps.phase == runtime::ProcessPhase::kNeverStarted) {
        // An earlier kuotad recorded this start and died before releasing
        // the command: it never ran. Start it now.
        c.running = false;
        c.start_pending = true;
        changed = true;
        ResumeStart(run, i);
        continue;
      }
      c.running = false;
      c.terminated = true;
      c.finished_at = now;
      c.signal = 0;
      c.message.clear();
      switch (ps.phase) {
        case runtime::ProcessPhase::kExited:
          c.exit_code = ps.exit_code;
          c.reason = ps.exit_code == 0 ? "Completed" : "Error";
          break;
        case runtime::ProcessPhase::kKilled:
          c.exit_code = 128 + ps.signal;
          c.signal = ps.signal;
          c.reason = "Error";
          c.message = "killed by " + SignalName(ps.signal);
          break;
        default:
          c.exit_code = 137;
          c.reason = "Lost";
          c.message = ps.detail;
      }
      // Leftovers of the command in its group go with it.
      (void)runtime::SignalGroup(c.handle, SIGKILL);
      changed = true;
      const bool failed = c.exit_code != 0;
      if (policy == "Always" || (policy == "OnFailure" && failed)) {
        int64_t delay = options_.restart_backoff_base.ms;
        for (int k = 0; k < c.restarts && delay < options_.restart_backoff_max.ms; ++k) delay *= 2;
        delay = std::min(delay, options_.restart_backoff_max.ms);
        c.restart_at = now + Duration{delay};
      }
    } else if (c.start_pending) {
      changed = ResumeStart(run, i) || changed;
    } else if (!c.config_wait.empty()) {
      if (c.config_retry_at <= now) {
        if (StartContainer(run, i)) {
          control::RecordEvent(store_, clock_, run.pod, "Normal", "Started",
                               "Started container " + c.name, kComponent);
        }
        changed = true;
      }
    } else if (c.restart_at && *c.restart_at <= now) {
      c.last_state = {{"terminated",
                       {{"exitCode", c.exit_code},
                        {"reason", c.reason},
                        {"startedAt", FormatRfc3339(c.started_at)},
                        {"finishedAt", FormatRfc3339(c.finished_at)}}}};
      c.restarts++;
      StartContainer(run, i);
      changed = true;
    }
  }
  bool all_done = true;
  for (const auto& c : run.containers) {
    if (c.running || c.restart_at || c.start_pending || !c.config_wait.empty()) all_done = false;
  }
  if (all_done) {
    run.stage = PodRun::Stage::kDone;
    if (cgroups_ && !run.cgroup_dir.empty()) (void)cgroups_->Remove(run.uid);
    gpus_.Release(run.uid);
    if (run.placed) {
      for (const auto& [k, v] : run.requests) in_use_[k] -= v;
      run.placed = false;
    }
    changed = true;
  }
  if (changed) WriteStatus(run);
}

void PodRunner::StepDeletion(PodRun& run) {
  bool running = false;
  for (auto& c : run.containers) {
    if (!c.running) continue;
    if (!c.terminator) {
      int64_t grace = 30;
      const Json spec = run.pod.value("spec", Json::object());
      if (spec.contains("terminationGracePeriodSeconds") &&
          spec["terminationGracePeriodSeconds"].is_number_integer()) {
        grace = std::max<int64_t>(0, spec["terminationGracePeriodSeconds"].get<int64_t>());
      }
      c.terminator = std::make_unique<runtime::GroupTerminator>(c.handle, c.exit_path,
                                                                Duration{grace * 1000}, clock_);
    }
    runtime::TerminationProgress p = c.terminator->Poll();
    if (!p.done) {
      running = true;
      continue;
    }
    c.running = false;
    c.terminated = true;
    c.finished_at = clock_.Now();
    c.exit_code =
        p.state.phase == runtime::ProcessPhase::kExited ? p.state.exit_code : 128 + p.state.signal;
    c.reason = p.state.exit_code == 0 && p.state.phase == runtime::ProcessPhase::kExited
                   ? "Completed"
                   : "Error";
    c.terminator.reset();
  }
  if (running) return;
  for (auto& c : run.containers) {
    c.restart_at.reset();
    c.start_pending = false;
    c.config_wait.clear();
  }
  run.volume_wait.clear();
  if (run.stage != PodRun::Stage::kDone) run.stage = PodRun::Stage::kDone;
  if (cgroups_ && !run.cgroup_dir.empty()) (void)cgroups_->Remove(run.uid);
  gpus_.Release(run.uid);
  if (run.placed) {
    for (const auto& [k, v] : run.requests) in_use_[k] -= v;
    run.placed = false;
  }
  RemoveFinalizer(run);
}

void PodRunner::RemoveFinalizer(const PodRun& run) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto cur = store_.Get(kPods, run.ns, run.name);
    if (!cur.ok() || control::MetaString(*cur, "uid") != run.uid) return;
    Json obj = *cur;
    Json kept = Json::array();
    for (const auto& f : obj["metadata"].value("finalizers", Json::array())) {
      if (!(f.is_string() && f.get<std::string>() == kPodFinalizer)) kept.push_back(f);
    }
    if (kept.size() == obj["metadata"].value("finalizers", Json::array()).size()) return;
    obj["metadata"]["finalizers"] = kept;
    auto up = store_.Update(kPods, obj);
    if (up.ok() || up.status().code() == StatusCode::kNotFound) return;
  }
}

void PodRunner::Forget(const std::string& key, bool kill) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  PodRun& run = *it->second;
  for (auto& c : run.containers) {
    if (kill && c.running) (void)runtime::SignalGroup(c.handle, SIGKILL);
  }
  if (cgroups_ && !run.cgroup_dir.empty()) (void)cgroups_->Remove(run.uid);
  gpus_.Release(run.uid);
  if (run.placed) {
    for (const auto& [k, v] : run.requests) in_use_[k] -= v;
  }
  std::error_code ec;
  if (kill) {
    // The keeper records the exit once the group dies; give it a moment so
    // the directory is not recreated after we remove it.
    for (auto& c : run.containers) {
      if (!c.running) continue;
      for (int i = 0; i < 100; ++i) {
        if (runtime::Inspect(c.handle, c.exit_path).finished()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }
  std::filesystem::remove_all(PodDir(run.uid), ec);
  pods_.erase(it);
}

void PodRunner::WriteStatus(PodRun& run) {
  const std::string now = FormatRfc3339(clock_.Now());
  Json status = run.pod.value("status", Json::object());
  auto cond = [&](const char* type, bool ok, const std::string& reason = "",
                  const std::string& message = "") {
    Json c = {{"type", type}, {"status", ok ? "True" : "False"}};
    if (!reason.empty()) c["reason"] = reason;
    if (!message.empty()) c["message"] = message;
    // Keep the transition time while the status is the same.
    std::string since = now;
    for (const auto& old : status.value("conditions", Json::array())) {
      if (old.value("type", "") == type && old.value("status", "") == c["status"]) {
        since = old.value("lastTransitionTime", now);
      }
    }
    c["lastTransitionTime"] = since;
    return c;
  };
  bool all_running = !run.containers.empty();
  bool any_failed = false;
  // A container that never ran waits for its config: the pod is Pending, as
  // the kubelet has it.
  bool waiting_first_start = !run.volume_wait.empty();
  Json statuses = Json::array();
  for (const auto& c : run.containers) {
    all_running = all_running && c.running;
    Json cs = {{"name", c.name},       {"image", c.spec.value("image", "")},
               {"imageID", ""},        {"ready", c.running},
               {"started", c.running}, {"restartCount", c.restarts}};
    if (c.ever_started) cs["containerID"] = "kuota://" + std::to_string(c.handle.pgid);
    if (c.running) {
      cs["state"] = {{"running", {{"startedAt", FormatRfc3339(c.started_at)}}}};
    } else if (!c.config_wait.empty()) {
      cs["state"] = {
          {"waiting", {{"reason", "CreateContainerConfigError"}, {"message", c.config_wait}}}};
      if (!c.last_state.empty()) cs["lastState"] = c.last_state;
      if (!c.ever_started) waiting_first_start = true;
    } else if (c.restart_at) {
      cs["state"] = {{"waiting",
                      {{"reason", "CrashLoopBackOff"},
                       {"message", "back-off restarting failed container " + c.name}}}};
      cs["lastState"] = {{"terminated",
                          {{"exitCode", c.exit_code},
                           {"reason", c.reason},
                           {"startedAt", FormatRfc3339(c.started_at)},
                           {"finishedAt", FormatRfc3339(c.finished_at)}}}};
    } else if (c.terminated) {
      Json t = {{"exitCode", c.exit_code},
                {"reason", c.reason},
                {"startedAt", FormatRfc3339(c.started_at)},
                {"finishedAt", FormatRfc3339(c.finished_at)}};
      if (c.signal) t["signal"] = c.signal;
      if (!c.message.empty()) t["message"] = c.message;
      cs["state"] = {{"terminated", t}};
      if (!c.last_state.empty()) cs["lastState"] = c.last_state;
      if (c.exit_code != 0) any_failed = true;
    } else {
      cs["state"] = {{"waiting", {{"reason", "ContainerCreating"}}}};
    }
    if (run.stage != PodRun::Stage::kWaiting) statuses.push_back(cs);
  }
  std::string phase = "Pending";
  if (run.stage == PodRun::Stage::kRunning && !waiting_first_start) phase = "Running";
  if (run.stage == PodRun::Stage::kDone)
    phase = any_failed || run.containers.empty() ? "Failed" : "Succeeded";
  status["phase"] = phase;
  const bool scheduled = run.stage != PodRun::Stage::kWaiting;
  const bool gated = !scheduled && run.wait_message == kGatedMessage;
  status["conditions"] = Json::array(
      {cond("PodScheduled", scheduled,
            scheduled ? "" : (gated ? kSchedulingGated : "Unschedulable"), run.wait_message),
       cond("Initialized", scheduled), cond("ContainersReady", all_running),
       cond("Ready", all_running)});
  if (scheduled && !run.gpus.empty()) {
    std::string why = run.gpu_reason;
    if (why.empty()) why = "GPUs " + Json(run.gpus).dump();  // placed before reasons were kept
    status["conditions"].push_back(cond(kGpuPlacementCondition, true,
                                        gpus_.topology().known ? "TopologyBestFit" : "LowestFree",
                                        why));
  }
  status["containerStatuses"] = statuses;
  status["hostIP"] = "127.0.0.1";
  status["podIP"] = "127.0.0.1";
  if (scheduled) status["startTime"] = FormatRfc3339(run.start_time);
  if (!run.fail_reason.empty()) {
    status["reason"] = run.fail_reason;
    status["message"] = run.fail_message;
  }
  if (status == run.written_status) return;
  Json obj = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", run.name}, {"namespace", run.ns}}},
              {"status", status}};
  store::UpdateOptions uo;
  uo.status_only = true;
  auto stored = store_.Update(kPods, obj, uo);
  if (stored.ok()) {
    run.written_status = status;
    run.pod["status"] = status;
  }
}

}  // namespace kuota::standalone
