#include "jobctl/pod_state.h"

#include <algorithm>
#include <tuple>

#include "jobctl/job_labels.h"

namespace kuota::jobctl {
namespace {

using Json = nlohmann::json;

const Json& Field(const Json& obj, const char* key) {
  static const Json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

std::optional<Time> ReadTime(const Json& v) {
  if (!v.is_string()) return std::nullopt;
  Result<Time> t = ParseRfc3339(v.get<std::string>());
  if (!t.ok()) return std::nullopt;
  return *t;
}

std::optional<Time> Later(std::optional<Time> a, std::optional<Time> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

std::optional<int32_t> ReadIndex(const Json& map) {
  const Json& v = Field(map, kCompletionIndexKey);
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  if (s.empty() || s.size() > 9) return std::nullopt;
  int32_t out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    out = out * 10 + (c - '0');
  }
  return out;
}

int PhaseRank(PodPhase p) {
  switch (p) {
    case PodPhase::kPending:
      return 0;
    case PodPhase::kUnknown:
      return 1;
    case PodPhase::kRunning:
      return 2;
    default:
      return 3;
  }
}

}  // namespace

PodState ReadPodState(const Json& pod) {
  PodState out;
  const Json& meta = Field(pod, "metadata");
  const Json& status = Field(pod, "status");
  if (Field(meta, "name").is_string()) out.name = Field(meta, "name").get<std::string>();
  out.deleting = !Field(meta, "deletionTimestamp").is_null();
  out.created = ReadTime(Field(meta, "creationTimestamp"));
  const Json& node = Field(Field(pod, "spec"), "nodeName");
  out.assigned = node.is_string() && !node.get<std::string>().empty();

  const Json& phase = Field(status, "phase");
  if (phase == "Running") {
    out.phase = PodPhase::kRunning;
  } else if (phase == "Succeeded") {
    out.phase = PodPhase::kSucceeded;
  } else if (phase == "Failed") {
    out.phase = PodPhase::kFailed;
  } else if (phase == "Unknown") {
    out.phase = PodPhase::kUnknown;
  }

  out.index = ReadIndex(Field(meta, "annotations"));
  if (!out.index) out.index = ReadIndex(Field(meta, "labels"));

  std::optional<Time> ready_false_since;
  const Json& conditions = Field(status, "conditions");
  if (conditions.is_array()) {
    for (const Json& c : conditions) {
      if (Field(c, "type") != "Ready") continue;
      if (Field(c, "status") == "True") {
        out.ready = true;
        out.ready_since = ReadTime(Field(c, "lastTransitionTime"));
      } else {
        ready_false_since = ReadTime(Field(c, "lastTransitionTime"));
      }
    }
  }

  std::optional<Time> container_finish;
  for (const char* key : {"initContainerStatuses", "containerStatuses"}) {
    const Json& list = Field(status, key);
    if (!list.is_array()) continue;
    for (const Json& cs : list) {
      const Json& rc = Field(cs, "restartCount");
      if (rc.is_number_integer() && rc.get<int64_t>() > 0) {
        out.restarts += std::min<int64_t>(rc.get<int64_t>(), 1'000'000'000);
      }
      const Json& term = Field(Field(cs, "state"), "terminated");
      container_finish = Later(container_finish, ReadTime(Field(term, "finishedAt")));
    }
  }
  if (out.terminal()) {
    out.finished = container_finish;
    if (!out.finished) out.finished = ready_false_since;
    if (!out.finished) out.finished = ReadTime(Field(meta, "deletionTimestamp"));
    if (!out.finished) out.finished = ReadTime(Field(status, "startTime"));
    if (!out.finished) out.finished = out.created;
  }
  return out;
}

bool IsControlledBy(const Json& pod, std::string_view uid) {
  const Json& refs = Field(Field(pod, "metadata"), "ownerReferences");
  if (!refs.is_array()) return false;
  for (const Json& r : refs) {
    if (Field(r, "controller") != true) continue;
    const Json& u = Field(r, "uid");
    return u.is_string() && u.get<std::string>() == uid;
  }
  return false;
}

bool RemoveBefore(const PodState& a, const PodState& b) {
  if (a.assigned != b.assigned) return !a.assigned;
  if (PhaseRank(a.phase) != PhaseRank(b.phase)) return PhaseRank(a.phase) < PhaseRank(b.phase);
  if (a.ready != b.ready) return !a.ready;
  // Ready more recently (or at an unknown time) first: shorter-lived work is lost.
  if (a.ready && a.ready_since != b.ready_since) {
    if (!a.ready_since) return true;
    if (!b.ready_since) return false;
    return *a.ready_since > *b.ready_since;
  }
  if (a.restarts != b.restarts) return a.restarts > b.restarts;
  if (a.created != b.created) {
    if (!a.created) return true;
    if (!b.created) return false;
    return *a.created > *b.created;
  }
  return a.name < b.name;
}

}  // namespace kuota::jobctl
