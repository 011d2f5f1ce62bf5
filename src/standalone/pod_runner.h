// PodRunner: kuotad's kubelet. Runs the pods stored in kuotad as local
// processes: each container's command in its own process group (see
// runtime/spawn.h), stdout and stderr in <pods_dir>/<pod uid>/<container>.log
// (capped in size), GPUs handed out whole by index through
// CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES (the closest free ones by the
// machine's GPU topology, a gang's pods packed together: runtime/
// gpu_placement.h), CPU and memory limits in a
// cgroup where the machine allows. The pods of one owner (a Job) start
// together once the machine can hold them all; a pod with spec.schedulingGates
// waits (PodScheduled=False, reason SchedulingGated) until they are removed,
// as kube-scheduler leaves it. It writes pod status
// (Pending -> Running -> Succeeded/Failed, container states, exit codes,
// restarts), restarts containers for restartPolicy OnFailure/Always, stops a
// pod being deleted with SIGTERM then SIGKILL after its grace period and then
// releases it (removes its finalizer), and publishes the machine as a Node.
// A pod's configMap, secret and emptyDir volumes are written under
// <pods_dir>/<uid>/volumes before its containers start (pod_volumes.h), and
// its env drawn from ConfigMaps and Secrets (pod_command.h); while one that
// is not optional is missing the pod waits, as under the kubelet (a
// FailedMount or CreateContainerConfigError Event naming it), looking again
// every second.
// With require_submitter each pod's processes run as the user who submitted
// it (run_as_policy.h), and a pod that names none it may run as fails.
//
// Restarts: a container runs at most once per start, and exactly once when
// kuotad dies at any instant of that start. Each start is recorded in
// <pods_dir>/<uid>/runtime.json: "starting" before the keeper is forked, then
// "started" with the processes' identity (keeper and command pids, their
// start times, the boot id) while the command waits just before exec; only
// then is it released (runtime/spawn.h). A restarted kuotad adopts processes
// that still run and records those that ended meanwhile; a start that provably
// never exec'd (its record says "starting" and no keeper of it is left, or its
// keeper recorded "aborted before exec") is started again, as if kuotad had
// not stopped. Only a keeper killed or lost with no exit file (a reboot, say)
// leaves a container reported Lost, never run twice.
// Owns one thread; Start/Stop are thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "control/object_errors.h"
#include "control/pod_resources.h"
#include "runtime/cgroup_manager.h"
#include "runtime/gpu_allocator.h"
#include "runtime/machine_capacity.h"
#include "standalone/fault_point.h"
#include "standalone/run_as_policy.h"
#include "store/object_store.h"

namespace kuota::standalone {

inline constexpr char kPodFinalizer[] = "kuota.dev/pod-runner";
// Pods created by one controller action carry the same start group and its
// size; the runner starts them together once all are there (gang start).
inline constexpr char kStartGroupAnnotation[] = "kuota.dev/start-group";
inline constexpr char kStartGroupSizeAnnotation[] = "kuota.dev/start-group-size";
// A pod given GPUs carries this status condition (True) whose message says
// which and why ("GPUs 4,5 share NVLink island 4-7 (best fit: it had 3
// free)"); reason TopologyBestFit, or LowestFree when nothing is known of
// the GPUs' topology. The Node's kuota.dev/gpu-topology annotation shows the
// topology (runtime/gpu_topology_spec.h's form).
inline constexpr char kGpuPlacementCondition[] = "kuota.dev/GPUPlacement";
inline constexpr char kGpuTopologyAnnotation[] = "kuota.dev/gpu-topology";

struct PodRunnerOptions {
  std::string pods_dir;  // <data dir>/pods; required
  runtime::MachineCapacity machine;
  // Try cgroup v2 limits (else pods run unlimited; the Node says so).
  bool use_cgroups = true;
  // A container's log is cut back to half of this when it grows past it.
  int64_t max_log_bytes = int64_t{64} << 20;
  // Delay before restarting a failed container (restartPolicy OnFailure /
  // Always): base * 2^(restarts), capped.
  Duration restart_backoff_base{10'000};
  Duration restart_backoff_max{300'000};
  std::chrono::milliseconds tick{100};
  // Run each pod's processes as its submitter (kuota.dev/submitter-uid; see
  // run_as_policy.h), failing pods without a valid one (reason NoSubmitter)
  // or whose user kuotad cannot become. kuotad sets it whenever requests are
  // authenticated. false: pods run as kuotad's own user (--insecure-http).
  bool require_submitter = false;
  // How a submitter's uid becomes a user; empty: runtime::LookUpUser
  // (getpwuid_r, getgrouplist). Tests swap in their own.
  UserLookup look_up_user;
  // kuotad's effective uid as the policy sees it; nullopt: geteuid().
  // Tests only.
  std::optional<uint32_t> daemon_uid;
  // Crash tests only: where kuotad kills itself (see fault_point.h).
  // Default: disarmed.
  FaultInjector faults;
};

struct PodRun;

class PodRunner {
 public:
  // `store` and `clock` must outlive the runner.
  PodRunner(store::ObjectStore& store, const Clock& clock, PodRunnerOptions options);
  ~PodRunner();
  PodRunner(const PodRunner&) = delete;
  PodRunner& operator=(const PodRunner&) = delete;

  // Publishes the Node, recovers pods left by a previous run, starts the loop.
  Status Start();
  // Ends the loop; processes keep running (a restarted kuotad adopts them).
  void Stop();
  // The Node's name (the host name).
  const std::string& node_name() const { return options_.machine.hostname; }
  // How CPU and memory limits are (or are not) enforced, for logs.
  std::string LimitsNote() const;
  // Which pod (uid) holds which GPU; thread-safe.
  const runtime::GpuAllocator& gpus() const { return gpus_; }

 private:
  using Json = nlohmann::json;
  Status PublishNode();
  Status Sync();
  void Run();
  void RunLoop();  // Run's body; may throw (Run catches)
  void Handle(const std::string& type, const Json& pod);
  // Handle, reporting an exception as the pod's error (the pod fails).
  void HandleSafely(const std::string& type, const Json& pod);
  void Recover(PodRun& run);
  void Step();
  void TryStartWaiting();
  bool StartPod(PodRun& run);
  // A pod that cannot run (run.fail_reason): its containers fail, what it
  // held is released.
  void FailPod(PodRun& run);
  // Mounts the pod's volumes, then starts each container; a container whose
  // env names a missing ConfigMap, Secret or key waits (config_wait), and
  // so does the whole pod while its volumes do (volume_wait).
  void StartContainers(PodRun& run);
  bool MountVolumes(PodRun& run);
  bool StartContainer(PodRun& run, size_t i);
  bool ResumeStart(PodRun& run, size_t i);
  void PollContainers(PodRun& run);
  void StepDeletion(PodRun& run);
  void Forget(const std::string& key, bool kill);
  void WriteStatus(PodRun& run);
  Status SaveRecord(const PodRun& run) const;
  void RemoveFinalizer(const PodRun& run);
  void CollectOrphanDirs();
  std::string PodDir(const std::string& uid) const;
  std::string VolumesDir(const std::string& uid) const;  // absolute

  control::ObjectErrors errors_;  // pods the runner could not use (loop thread)
  store::ObjectStore& store_;
  const Clock& clock_;
  PodRunnerOptions options_;
  RunAsPolicy run_as_policy_;
  UserLookup look_up_user_;
  control::ResourceAmounts capacity_;
  runtime::GpuAllocator gpus_;
  std::unique_ptr<runtime::CgroupManager> cgroups_;
  std::unique_ptr<store::Watcher> watcher_;
  std::thread thread_;
  std::atomic<bool> stop_{false};

  // Loop-thread state.
  std::map<std::string, std::unique_ptr<PodRun>> pods_;  // "ns/name" -> run
  control::ResourceAmounts in_use_;                      // requests of started pods
  std::chrono::steady_clock::time_point last_log_cap_{};
};

}  // namespace kuota::standalone
