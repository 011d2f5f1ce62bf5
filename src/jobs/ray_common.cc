#include "jobs/ray_common.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>

#include "api/quantity.h"
#include "jobs/job_fields.h"

namespace kuota::jobs::ray {
namespace {

constexpr int64_t kMaxInt32 = 2147483647;
constexpr int kMaxWorkerGroupsManaged = 7;  // Kueue: 8 pod sets, one is the head

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const Json* Find(const Json& j, const Json::json_pointer& p) {
  if (!j.contains(p)) return nullptr;
  return &j.at(p);
}

const Json* Member(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::string StringOr(const Json& j, const char* key, const std::string& fallback) {
  const Json* v = Member(j, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : fallback;
}

int64_t IntOr(const Json& j, const char* key, int64_t fallback) {
  const Json* v = Member(j, key);
  return v != nullptr && v->is_number_integer() ? v->get<int64_t>() : fallback;
}

bool BoolOr(const Json& j, const char* key, bool fallback) {
  const Json* v = Member(j, key);
  return v != nullptr && v->is_boolean() ? v->get<bool>() : fallback;
}

bool IsDns1123Label(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-')) {
      return false;
    }
  }
  return s.front() != '-' && s.back() != '-';
}

bool IsDns1035Label(const std::string& s) {
  return IsDns1123Label(s) && std::islower(static_cast<unsigned char>(s.front()));
}

// rayStartParams: a map of strings.
Status CheckStartParams(const Json& group, const std::string& path) {
  const Json* p = Member(group, "rayStartParams");
  if (p == nullptr) return Status::Ok();
  if (!p->is_object()) return InvalidValue(path + ".rayStartParams", *p, "must be an object");
  for (const auto& [k, v] : p->items()) {
    if (!v.is_string()) return InvalidValue(path + ".rayStartParams." + k, v, "must be a string");
  }
  return Status::Ok();
}

Status CheckBool(const Json& obj, const char* key, const std::string& path) {
  const Json* v = Member(obj, key);
  if (v != nullptr && !v->is_boolean()) {
    return InvalidValue(path + "." + key, *v, "must be a boolean");
  }
  return Status::Ok();
}

// A group's replica bounds, as KubeRay reads them (CRD defaults applied).
struct Replicas {
  int64_t replicas = 0;
  int64_t min = 0;
  int64_t max = kMaxInt32;
  int64_t hosts = 1;
};

Replicas ReadReplicas(const Json& group) {
  Replicas r;
  r.replicas = IntOr(group, "replicas", 0);
  r.min = IntOr(group, "minReplicas", 0);
  r.max = IntOr(group, "maxReplicas", kMaxInt32);
  r.hosts = std::max<int64_t>(1, IntOr(group, "numOfHosts", 1));
  return r;
}

Status CheckWorkerGroup(const Json& group, const std::string& path, bool autoscaling) {
  if (!group.is_object()) return InvalidValue(path, group, "must be an object");
  const Json* name = Member(group, "groupName");
  if (name == nullptr) return Required(path + ".groupName");
  if (!name->is_string()) return InvalidValue(path + ".groupName", *name, "must be a string");
  if (name->get<std::string>().empty()) return Required(path + ".groupName");
  KUOTA_ASSIGN_OR_RETURN(int64_t replicas, IntField(group, "replicas", path, 0));
  KUOTA_ASSIGN_OR_RETURN(int64_t min, IntField(group, "minReplicas", path, 0));
  KUOTA_ASSIGN_OR_RETURN(int64_t max, IntField(group, "maxReplicas", path, kMaxInt32));
  KUOTA_ASSIGN_OR_RETURN(int64_t hosts, IntField(group, "numOfHosts", path, 1, 1));
  const std::initializer_list<std::pair<const char*, int64_t>> counts = {
      {"replicas", replicas}, {"minReplicas", min}, {"maxReplicas", max}, {"numOfHosts", hosts}};
  for (const auto& [key, v] : counts) {
    if (v > kMaxInt32) {
      return InvalidValue(path + "." + key, v, "must be less than or equal to 2147483647");
    }
  }
  if (min > max) {
    return InvalidValue(path + ".minReplicas", min,
                        "must be less than or equal to maxReplicas (" + std::to_string(max) + ")");
  }
  // Without the autoscaler the group runs `replicas` pods; outside its bounds
  // KubeRay would run another count than the Workload asks quota for.
  if (!autoscaling && (replicas < min || replicas > max)) {
    return InvalidValue(path + ".replicas", replicas,
                        "must be between minReplicas (" + std::to_string(min) +
                            ") and maxReplicas (" + std::to_string(max) + ")");
  }
  KUOTA_RETURN_IF_ERROR(CheckBool(group, "suspend", path));
  KUOTA_RETURN_IF_ERROR(CheckStartParams(group, path));
  const Json* tmpl = Member(group, "template");
  if (tmpl == nullptr) return Required(path + ".template");
  return CheckPodTemplate(*tmpl, path + ".template");
}

// ---- Quantities, formatted as Go's resource.Quantity prints them ----

// A running sum with the format of its first non-zero term, as
// resource.Quantity.Add keeps it.
struct QuantitySum {
  int64_t milli = 0;
  bool binary = false;
  void Add(const api::Quantity& q, bool q_binary) {
    if (milli == 0) binary = q_binary;
    milli = api::Quantity::Add(milli, q.milli());
  }
  std::string ToString() const;
};

std::string QuantitySum::ToString() const {
  if (milli == 0) return "0";
  const bool neg = milli < 0;
  const int64_t m = neg ? -milli : milli;
  std::string sign = neg ? "-" : "";
  if (m % 1000 != 0) return sign + std::to_string(m) + "m";
  static const char* kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  static const char* kDecimal[] = {"", "k", "M", "G", "T", "P", "E"};
  int64_t units = m / 1000;
  const bool in_binary = binary && units >= 1024;
  const int64_t base = in_binary ? 1024 : 1000;
  int idx = 0;
  while (idx < 6 && units % base == 0) {
    units /= base;
    ++idx;
  }
  return sign + std::to_string(units) + (in_binary ? kBinary : kDecimal)[idx];
}

bool IsBinarySuffix(const std::string& text) { return text.size() >= 2 && text.back() == 'i'; }

// The quantity at `v` (a string or number), or nullopt.
std::optional<std::pair<api::Quantity, bool>> ParseQuantity(const Json& v) {
  std::string text;
  if (v.is_string()) {
    text = v.get<std::string>();
  } else if (v.is_number_integer()) {
    text = std::to_string(v.get<int64_t>());
  } else if (v.is_number()) {
    text = v.dump();
  } else {
    return std::nullopt;
  }
  Result<api::Quantity> q = api::Quantity::Parse(text);
  if (!q.ok()) return std::nullopt;
  return std::make_pair(*q, IsBinarySuffix(text));
}

bool IsGpuResource(const std::string& name) {
  if (name.size() >= 3 && name.compare(name.size() - 3, 3, "gpu") == 0) return true;
  // NVIDIA MIG slices: nvidia.com/mig-<n>g.<m>gb
  return name.rfind("nvidia.com/mig-", 0) == 0 && name.size() > 2 &&
         name.compare(name.size() - 2, 2, "gb") == 0;
}

// One pod's resources as KubeRay counts them: per container the requests,
// limits filling names without a request; summed over containers.
std::map<std::string, std::vector<std::pair<api::Quantity, bool>>> PodResources(const Json& tmpl) {
  std::map<std::string, std::vector<std::pair<api::Quantity, bool>>> out;
  const Json* spec = Member(tmpl, "spec");
  const Json* containers = spec != nullptr ? Member(*spec, "containers") : nullptr;
  if (containers == nullptr || !containers->is_array()) return out;
  for (const Json& c : *containers) {
    const Json* res = Member(c, "resources");
    if (res == nullptr) continue;
    std::map<std::string, std::pair<api::Quantity, bool>> merged;
    for (const char* kind : {"requests", "limits"}) {
      const Json* list = Member(*res, kind);
      if (list == nullptr || !list->is_object()) continue;
      for (const auto& [name, v] : list->items()) {
        if (merged.count(name) != 0) continue;
        if (auto q = ParseQuantity(v)) merged[name] = *q;
      }
    }
    for (auto& [name, q] : merged) out[name].push_back(q);
  }
  return out;
}

// The Ray container's resource quantity `name` from `kind` (limits/requests).
std::optional<api::Quantity> RayContainerResource(const Json& group, const char* kind,
                                                  const std::string& name) {
  const Json* tmpl = Member(group, "template");
  const Json* spec = tmpl != nullptr ? Member(*tmpl, "spec") : nullptr;
  const Json* containers = spec != nullptr ? Member(*spec, "containers") : nullptr;
  if (containers == nullptr || !containers->is_array() || containers->empty()) {
    return std::nullopt;
  }
  const Json* res = Member((*containers)[0], "resources");
  const Json* list = res != nullptr ? Member(*res, kind) : nullptr;
  const Json* v = list != nullptr ? Member(*list, name.c_str()) : nullptr;
  if (v == nullptr) return std::nullopt;
  auto q = ParseQuantity(*v);
  if (!q) return std::nullopt;
  return q->first;
}

Json ClusterSpecOf(const Json& job, const ClusterSpecAt& at) {
  const Json* s = Find(job, at.pointer);
  return s != nullptr && s->is_object() ? *s : Json::object();
}

// Sets `key` to `value`, or erases it when `value` is 0.
void SetCount(Json& status, const char* key, int64_t value) {
  if (value == 0) {
    status.erase(key);
  } else {
    status[key] = value;
  }
}

bool ConditionTrue(const Json& status, const std::string& type) {
  const Json* conds = Member(status, "conditions");
  if (conds == nullptr || !conds->is_array()) return false;
  for (const Json& c : *conds) {
    if (c.is_object() && c.value("type", "") == type && c.value("status", "") == "True") {
      return true;
    }
  }
  return false;
}

bool HasCondition(const Json& status, const std::string& type) {
  const Json* conds = Member(status, "conditions");
  if (conds == nullptr || !conds->is_array()) return false;
  for (const Json& c : *conds) {
    if (c.is_object() && c.value("type", "") == type) return true;
  }
  return false;
}

Json WithoutUpdateTime(Json s) {
  if (s.is_object()) s.erase("lastUpdateTime");
  return s;
}

}  // namespace

Status ValidateName(const Json& job, size_t max_len) {
  const std::string name = JobName(job);
  if (name.empty()) return Status::Ok();
  if (name.size() > max_len) {
    return InvalidValue("metadata.name", name,
                        "must be no more than " + std::to_string(max_len) + " characters");
  }
  if (!IsDns1035Label(name)) {
    return InvalidValue("metadata.name", name,
                        "a DNS-1035 label must consist of lower case alphanumeric characters or "
                        "'-', start with an alphabetic character, and end with an alphanumeric "
                        "character");
  }
  return Status::Ok();
}

Status ValidateClusterSpec(const Json& job, const ClusterSpecAt& at, bool managed,
                           const std::string& autoscaling_why) {
  const Json* spec = Find(job, at.pointer);
  if (spec == nullptr || spec->is_null()) return Required(at.field);
  if (!spec->is_object()) return InvalidValue(at.field, *spec, "must be an object");
  // CRD schema.
  KUOTA_ASSIGN_OR_RETURN(const Json* head, ObjectField(*spec, "headGroupSpec", at.field));
  const std::string head_path = at.field + ".headGroupSpec";
  const Json* head_tmpl = Member(*head, "template");
  if (head_tmpl == nullptr) return Required(head_path + ".template");
  KUOTA_RETURN_IF_ERROR(CheckPodTemplate(*head_tmpl, head_path + ".template"));
  KUOTA_RETURN_IF_ERROR(CheckStartParams(*head, head_path));
  KUOTA_RETURN_IF_ERROR(CheckBool(*spec, "enableInTreeAutoscaling", at.field));
  KUOTA_RETURN_IF_ERROR(CheckBool(*spec, "suspend", at.field));
  const bool autoscaling = BoolOr(*spec, "enableInTreeAutoscaling", false);
  const std::string workers_path = at.field + ".workerGroupSpecs";
  const Json* workers = Member(*spec, "workerGroupSpecs");
  if (workers != nullptr && !workers->is_array()) {
    return InvalidValue(workers_path, *workers, "must be an array");
  }
  const Json groups = workers != nullptr ? *workers : Json::array();
  for (size_t i = 0; i < groups.size(); ++i) {
    KUOTA_RETURN_IF_ERROR(
        CheckWorkerGroup(groups[i], workers_path + "[" + std::to_string(i) + "]", autoscaling));
  }
  // KubeRay's webhook: unique group names; Kueue's pod set names are the
  // lower-cased names, so they must be unique and valid labels as such.
  std::set<std::string> seen;
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string path = workers_path + "[" + std::to_string(i) + "].groupName";
    const std::string name = groups[i]["groupName"].get<std::string>();
    if (Lower(name) == kHeadPodSet) {
      return Status::Invalid(path + ": Forbidden: \"head\" is reserved for the head group");
    }
    if (!seen.insert(Lower(name)).second) {
      return InvalidValue(path, name, "worker group names must be unique");
    }
    if (!IsDns1123Label(Lower(name))) {
      return InvalidValue(path, name,
                          "a lowercase RFC 1123 label must consist of lower case alphanumeric "
                          "characters or '-', and must start and end with an alphanumeric "
                          "character");
    }
  }
  if (!managed) return Status::Ok();
  // Kueue's webhook.
  if (autoscaling) {
    return InvalidValue(at.field + ".enableInTreeAutoscaling", true, autoscaling_why);
  }
  if (groups.size() > kMaxWorkerGroupsManaged) {
    return Status::Invalid(workers_path + ": Too many: " + std::to_string(groups.size()) +
                           ": must have at most " + std::to_string(kMaxWorkerGroupsManaged) +
                           " items");
  }
  return Status::Ok();
}

std::vector<PodSetDef> ClusterPodSets(const Json& job, const ClusterSpecAt& at) {
  std::vector<PodSetDef> sets;
  PodSetDef head;
  head.name = kHeadPodSet;
  head.template_path = at.pointer / "headGroupSpec" / "template";
  head.count = 1;
  head.stage = 0;
  sets.push_back(std::move(head));
  const Json spec = ClusterSpecOf(job, at);
  const Json* workers = Member(spec, "workerGroupSpecs");
  if (workers == nullptr || !workers->is_array()) return sets;
  for (size_t i = 0; i < workers->size(); ++i) {
    const Json& g = (*workers)[i];
    PodSetDef set;
    set.name = Lower(StringOr(g, "groupName", ""));
    set.template_path = at.pointer / "workerGroupSpecs" / i / "template";
    const Replicas r = ReadReplicas(g);
    // A suspended group (RayJob's deletion policy) runs no pods.
    set.count = BoolOr(g, "suspend", false) ? 0 : r.replicas * r.hosts;
    set.stage = 1;
    sets.push_back(std::move(set));
  }
  return sets;
}

std::string RayPodName(const std::string& cluster, const PodSetDef& set, int64_t index) {
  if (set.name == kHeadPodSet) return cluster + "-head-" + std::to_string(index);
  return cluster + "-worker-" + set.name + "-" + std::to_string(index);
}

std::string HeadPort(const Json& job, const ClusterSpecAt& at) {
  const Json* p = Find(job, at.pointer / "headGroupSpec" / "rayStartParams");
  return p != nullptr ? StringOr(*p, "port", "6379") : "6379";
}

std::string DashboardPort(const Json& job, const ClusterSpecAt& at) {
  const Json* p = Find(job, at.pointer / "headGroupSpec" / "rayStartParams");
  return p != nullptr ? StringOr(*p, "dashboard-port", "8265") : "8265";
}

std::string RayStartCommand(const Json& group, bool head, const std::string& head_address) {
  std::map<std::string, std::string> params;
  if (const Json* p = Member(group, "rayStartParams"); p != nullptr && p->is_object()) {
    for (const auto& [k, v] : p->items()) {
      if (v.is_string()) params[k] = v.get<std::string>();
    }
  }
  if (!head && params.count("address") == 0) params["address"] = head_address;
  if (head && params.count("dashboard-host") == 0) params["dashboard-host"] = "0.0.0.0";
  if (params.count("metrics-export-port") == 0) params["metrics-export-port"] = "8080";
  params["block"] = "true";
  if (params.count("dashboard-agent-listen-port") == 0) {
    params["dashboard-agent-listen-port"] = "52365";
  }
  if (params.count("num-cpus") == 0) {
    auto cpu = RayContainerResource(group, "limits", "cpu");
    if (!cpu || cpu->is_zero()) cpu = RayContainerResource(group, "requests", "cpu");
    if (cpu && !cpu->is_zero()) params["num-cpus"] = std::to_string(cpu->units_ceil());
  }
  if (params.count("memory") == 0) {
    auto mem = RayContainerResource(group, "limits", "memory");
    if (mem && !mem->is_zero()) params["memory"] = std::to_string(mem->units_ceil());
  }
  if (params.count("num-gpus") == 0) {
    const Json* tmpl = Member(group, "template");
    const Json* spec = tmpl != nullptr ? Member(*tmpl, "spec") : nullptr;
    const Json* cs = spec != nullptr ? Member(*spec, "containers") : nullptr;
    const Json* res =
        cs != nullptr && cs->is_array() && !cs->empty() ? Member((*cs)[0], "resources") : nullptr;
    const Json* limits = res != nullptr ? Member(*res, "limits") : nullptr;
    if (limits != nullptr && limits->is_object()) {
      for (const auto& [name, v] : limits->items()) {  // sorted by name
        auto q = ParseQuantity(v);
        if (IsGpuResource(name) && q && !q->first.is_zero()) {
          params["num-gpus"] = std::to_string(q->first.units_ceil());
          break;
        }
      }
    }
  }
  // KubeRay joins " --flag " / " --flag=value " pieces; true/false values of
  // switch options become a bare flag or nothing.
  std::string cmd = head ? "ray start --head " : "ray start ";
  for (const auto& [k, v] : params) {
    const std::string lv = Lower(v);
    const bool switch_option = k != "log-color" && k != "include-dashboard";
    if ((lv == "true" || lv == "false") && switch_option) {
      if (lv == "true") cmd += " --" + k + " ";
    } else {
      cmd += " --" + k + "=" + v + " ";
    }
  }
  return cmd;
}

void AddEnv(Json& pod, const std::string& name, const std::string& value, bool unless_set) {
  if (!pod.contains("spec") || !pod["spec"].is_object()) return;
  auto it = pod["spec"].find("containers");
  if (it == pod["spec"].end() || !it->is_array()) return;
  for (Json& c : *it) {
    if (!c.is_object()) continue;
    Json& env = c["env"];
    if (!env.is_array()) env = Json::array();
    if (unless_set) {
      bool set = false;
      for (const Json& e : env) set = set || (e.is_object() && e.value("name", "") == name);
      if (set) continue;
    }
    env.push_back({{"name", name}, {"value", value}});
  }
}

void SetLabel(Json& pod, const std::string& key, const std::string& value) {
  Json& labels = pod["metadata"]["labels"];
  if (!labels.is_object()) labels = Json::object();
  labels[key] = value;
}

void CustomizeRayPod(const Json& job, const ClusterSpecAt& at, const std::string& cluster,
                     const PodPosition& where, Json& pod) {
  if (where.sets == nullptr || where.set >= where.sets->size()) return;
  const PodSetDef& set = (*where.sets)[where.set];
  const bool head = set.name == kHeadPodSet;
  const Json* group_ptr = Find(job, set.template_path.parent_pointer());
  const Json group = group_ptr != nullptr ? *group_ptr : Json::object();
  const std::string group_name = head ? kHeadGroupName : StringOr(group, "groupName", set.name);
  const std::string node_type = head ? "head" : "worker";
  const std::string port = HeadPort(job, at);
  std::string pod_name = RayPodName(cluster, set, where.index);
  if (const Json* n = Find(pod, Json::json_pointer("/metadata/name"));
      n != nullptr && n->is_string()) {
    pod_name = n->get<std::string>();
  }

  // Labels: the template's own win, except these three.
  Json& labels = pod["metadata"]["labels"];
  if (!labels.is_object()) labels = Json::object();
  for (const auto& [k, v] :
       std::map<std::string, std::string>{{"ray.io/is-ray-node", "yes"},
                                          {"ray.io/identifier", cluster + "-" + node_type},
                                          {"app.kubernetes.io/name", "kuberay"},
                                          {"app.kubernetes.io/created-by", "kuberay-operator"}}) {
    if (!labels.contains(k)) labels[k] = v;
  }
  labels["ray.io/cluster"] = cluster;
  labels["ray.io/group"] = group_name;
  labels["ray.io/node-type"] = node_type;

  // Environment: the head reaches itself on localhost, workers the head's
  // service; on one machine both are `where.address`.
  if (!head) {
    AddEnv(pod, "FQ_RAY_IP", where.address, false);
    AddEnv(pod, "RAY_IP", where.address, false);
  }
  AddEnv(pod, "RAY_CLUSTER_NAME", cluster, false);
  AddEnv(pod, "RAY_CLOUD_INSTANCE_ID", pod_name, false);
  AddEnv(pod, "RAY_NODE_TYPE_NAME", group_name, false);
  AddEnv(pod, "KUBERAY_GEN_RAY_START_CMD", RayStartCommand(group, head, where.address + ":" + port),
         false);
  AddEnv(pod, "RAY_PORT", port, true);
  AddEnv(pod, "RAY_ADDRESS", where.address + ":" + port, true);
  AddEnv(pod, "RAY_USAGE_STATS_KUBERAY_IN_USE", "1", true);
  AddEnv(pod, "RAY_DASHBOARD_ENABLE_K8S_DISK_USAGE", "1", true);
}

DesiredResources SumDesiredResources(const Json& job, const ClusterSpecAt& at) {
  std::map<std::string, QuantitySum> total;
  auto add_pods = [&](const Json& tmpl, int64_t pods) {
    if (pods <= 0) return;
    for (const auto& [name, qs] : PodResources(tmpl)) {
      for (const auto& [q, binary] : qs) {
        total[name].Add(api::Quantity::FromMilli(api::Quantity::Mul(q.milli(), pods)), binary);
      }
    }
  };
  const Json spec = ClusterSpecOf(job, at);
  const Json* head = Member(spec, "headGroupSpec");
  if (head != nullptr) add_pods(head->value("template", Json::object()), 1);
  for (const PodSetDef& set : ClusterPodSets(job, at)) {
    if (set.name == kHeadPodSet) continue;
    const Json* tmpl = Find(job, set.template_path);
    if (tmpl != nullptr) add_pods(*tmpl, set.count);
  }
  DesiredResources out;
  if (auto it = total.find("cpu"); it != total.end()) out.cpu = it->second.ToString();
  if (auto it = total.find("memory"); it != total.end()) out.memory = it->second.ToString();
  if (auto it = total.find("google.com/tpu"); it != total.end()) out.tpu = it->second.ToString();
  QuantitySum gpus;
  for (const auto& [name, sum] : total) {
    if (IsGpuResource(name) && sum.milli != 0) {
      gpus.Add(api::Quantity::FromMilli(sum.milli), sum.binary);
    }
  }
  out.gpu = gpus.ToString();
  return out;
}

Json ClusterStatus(const Json& job, const ClusterSpecAt& at, const std::string& cluster,
                   const std::vector<PodSetDef>& sets, const GroupObservation& seen,
                   const Json& old) {
  Json st = old.is_object() ? old : Json::object();
  const Json spec = ClusterSpecOf(job, at);
  const Json* workers = Member(spec, "workerGroupSpecs");
  int64_t desired = 0, min_workers = 0, max_workers = 0;
  if (workers != nullptr && workers->is_array()) {
    for (const Json& g : *workers) {
      if (BoolOr(g, "suspend", false)) continue;
      const Replicas r = ReadReplicas(g);
      desired += r.replicas * r.hosts;
      min_workers += r.min * r.hosts;
      max_workers = std::min<int64_t>(kMaxInt32, max_workers + r.max * r.hosts);
    }
  }
  int64_t head_running = 0, head_present = 0, workers_running = 0, pods = 0;
  bool all_running = true;
  for (size_t i = 0; i < sets.size() && i < seen.sets.size(); ++i) {
    const PodSetObservation& o = seen.sets[i];
    const int64_t present = o.pending + o.running + o.failed;
    pods += present;
    if (o.pending != 0 || o.failed != 0 || o.running < sets[i].count) all_running = false;
    if (i == 0) {
      head_running = o.running;
      head_present = present;
    } else {
      workers_running += o.running;
    }
  }
  all_running = all_running && head_running > 0 && !seen.suspended;

  SetCount(st, "readyWorkerReplicas", workers_running);
  SetCount(st, "availableWorkerReplicas", workers_running);
  SetCount(st, "desiredWorkerReplicas", desired);
  SetCount(st, "minWorkerReplicas", min_workers);
  SetCount(st, "maxWorkerReplicas", max_workers);
  const DesiredResources res = SumDesiredResources(job, at);
  st["desiredCPU"] = res.cpu;
  st["desiredMemory"] = res.memory;
  st["desiredGPU"] = res.gpu;
  st["desiredTPU"] = res.tpu;
  const std::string address = kLocalAddress;
  st["endpoints"] = {{"client", "10001"},
                     {"dashboard", DashboardPort(job, at)},
                     {"gcs-server", HeadPort(job, at)},
                     {"metrics", "8080"}};
  Json head_info = {{"serviceName", cluster + "-head-svc"}, {"serviceIP", address}};
  if (head_present > 0) head_info["podName"] = RayPodName(cluster, sets.front(), 0);
  if (head_running > 0) head_info["podIP"] = address;
  st["head"] = head_info;
  if (const Json* gen = Find(job, Json::json_pointer("/metadata/generation"));
      gen != nullptr && gen->is_number_integer()) {
    st["observedGeneration"] = *gen;
  }

  // State: "ready" once every pod runs, "suspended" once a suspended cluster
  // has no pods; otherwise it stays as it was.
  const std::string old_state = StringOr(st, "state", "");
  std::string state = old_state;
  if (all_running) {
    state = "ready";
    st.erase("reason");
  }
  if (seen.suspended && pods == 0) state = "suspended";
  if (!state.empty()) st["state"] = state;
  if (state != old_state) st["stateTransitionTimes"][state] = seen.now;

  // Conditions.
  Json conds = st.value("conditions", Json::array());
  if (head_running > 0) {
    SetCondition(conds,
                 MakeCondition("HeadPodReady", "True", "HeadPodRunningAndReady", "", seen.now));
  } else if (head_present > 0) {
    SetCondition(conds, MakeCondition("HeadPodReady", "False", "ContainersNotReady",
                                      "containers with unready status", seen.now));
  } else {
    SetCondition(conds, MakeCondition("HeadPodReady", "False", "HeadPodNotFound",
                                      "Head Pod not found", seen.now));
  }
  if (seen.suspended) {
    if (pods == 0) {
      SetCondition(conds,
                   MakeCondition("RayClusterProvisioned", "False", "RayClusterPodsProvisioning",
                                 "RayCluster has been suspended", seen.now));
      SetCondition(conds, MakeCondition("RayClusterSuspending", "False", "RayClusterSuspending", "",
                                        seen.now));
      SetCondition(
          conds, MakeCondition("RayClusterSuspended", "True", "RayClusterSuspended", "", seen.now));
    } else {
      SetCondition(conds, MakeCondition("RayClusterSuspending", "True", "RayClusterSuspending", "",
                                        seen.now));
    }
  } else {
    if (HasCondition(Json{{"conditions", conds}}, "RayClusterSuspended")) {
      SetCondition(conds, MakeCondition("RayClusterSuspended", "False", "RayClusterSuspended", "",
                                        seen.now));
    }
    if (!ConditionTrue(Json{{"conditions", conds}}, "RayClusterProvisioned")) {
      if (all_running) {
        SetCondition(
            conds, MakeCondition("RayClusterProvisioned", "True", "AllPodRunningAndReadyFirstTime",
                                 "All Ray Pods are ready for the first time", seen.now));
      } else {
        SetCondition(
            conds, MakeCondition("RayClusterProvisioned", "False", "RayClusterPodsProvisioning",
                                 "RayCluster Pods are being provisioned for first time", seen.now));
      }
    }
  }
  st["conditions"] = conds;

  if (old.is_object() && WithoutUpdateTime(st) == WithoutUpdateTime(old)) return old;
  st["lastUpdateTime"] = seen.now;
  return st;
}

bool ClusterPodsReady(const Json& status) {
  if (!status.is_object() || !ConditionTrue(status, "HeadPodReady")) return false;
  return IntOr(status, "readyWorkerReplicas", 0) >= IntOr(status, "desiredWorkerReplicas", 0);
}

int64_t RecordedRestarts(const Json& job) {
  const Json* st = Member(job, "status");
  return st != nullptr ? IntOr(*st, "restarts", 0) : 0;
}

void RecordRestarts(Json& status, int64_t restarts) { SetCount(status, "restarts", restarts); }

Json ValueAt(const Json& job, const char* path) {
  const Json* v = Find(job, Json::json_pointer(path));
  return v != nullptr ? *v : Json();
}

PrinterColumn Column(const char* name, const char* type, const char* path, int priority,
                     const char* description) {
  return {name, type, description, priority,
          [path](const Json& job) { return ValueAt(job, path); }};
}

const ClusterSpecAt& RayClusterSpecAt() {
  static const ClusterSpecAt kAt{Json::json_pointer("/spec"), "spec"};
  return kAt;
}

const ClusterSpecAt& RayJobClusterSpecAt() {
  static const ClusterSpecAt kAt{Json::json_pointer("/spec/rayClusterSpec"), "spec.rayClusterSpec"};
  return kAt;
}

}  // namespace kuota::jobs::ray
