// The objects the MultiKueue manager puts on a worker, as Kueue makes them:
// a copy of the manager's Workload (same name and namespace, its labels plus
// kueue.x-k8s.io/multikueue-origin, the manager's uid in the
// multikueue-origin-uid annotation, the same spec, no status or owners), and
// once that copy is admitted, a copy of the job (same name, labels plus the
// origin and kueue.x-k8s.io/prebuilt-workload-name naming the copy, the spec
// without managedBy so the worker's own controllers run it). Also reading a
// manager Workload: its owning job and its MultiKueue check entry.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jobs/job_kind.h"

namespace kuota::control {

inline constexpr const char* kMultiKueueOriginLabel = "kueue.x-k8s.io/multikueue-origin";
inline constexpr const char* kMultiKueueOriginUidAnnotation =
    "kueue.x-k8s.io/multikueue-origin-uid";
using jobs::kPrebuiltWorkloadLabel;

// The copy of manager Workload `local` for a worker.
nlohmann::json RemoteWorkloadFor(const nlohmann::json& local, const std::string& origin);

// The copy of manager job `local` (of `kind`) for a worker, for Workload
// `workload_name` there.
nlohmann::json RemoteJobFor(const jobs::JobKind& kind, const nlohmann::json& local,
                            const std::string& workload_name, const std::string& origin);

// The copy of manager pod `local` for a worker (Kueue's plain-pod adapter):
// as RemoteJobFor, its spec without nodeName.
nlohmann::json RemotePodFor(const nlohmann::json& local, const std::string& workload_name,
                            const std::string& origin);

// The pods owning Workload `wl` (a plain pod's or a pod group's), by name;
// empty when it is not the Workload of pods.
std::vector<std::string> OwnerPodsOf(const nlohmann::json& wl);

// The job kind and name controlling Workload `wl` (its controller owner
// reference); nullopt when it has none Kuota knows.
struct OwnerJob {
  const jobs::JobKind* kind = nullptr;
  std::string name;
  std::string uid;
};
std::optional<OwnerJob> OwnerJobOf(const nlohmann::json& wl);

// The status.admissionChecks entry named `check` of `wl`; nullptr when absent.
const nlohmann::json* CheckEntry(const nlohmann::json& wl, const std::string& check);

}  // namespace kuota::control
