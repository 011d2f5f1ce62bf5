#include "control/volcano_queue.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "api/object.h"
#include "api/quantity.h"
#include "control/admission_hook.h"
#include "jobs/volcano_job.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

constexpr const char* kCoreResources[] = {"cpu", "memory", kGpuResource};
// Fields of Volcano's QueueSpec (v1beta1), and "state", its deprecated one.
constexpr const char* kKnownSpecFields[] = {
    "weight", "capability", "reclaimable", "extendClusters", "guarantee", "affinity",
    "type",   "parent",     "deserved",    "priority",       "state"};
constexpr const char* kHierarchyAnnotations[] = {"volcano.sh/hierarchy",
                                                 "volcano.sh/hierarchy-weights"};
constexpr size_t kMaxNameLength = 253 - 8;  // "volcano-" + name is an object name

const Json* Find(const Json& object, std::initializer_list<const char*> path) {
  const Json* cur = &object;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end() || it->is_null()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string Show(const Json& v) {
  return v.is_string() ? "\"" + v.get<std::string>() + "\"" : v.dump();
}

Status InvalidValue(const std::string& path, const Json& value, const std::string& why) {
  return Status::Invalid(path + ": Invalid value: " + Show(value) + ": " + why);
}

Status TypeError(const std::string& path, const Json& value, const char* type) {
  return Status::Invalid(path + ": Invalid value: " + Show(value) + ": " + path +
                         " in body must be of type " + type);
}

std::string StringAt(const Json& object, std::initializer_list<const char*> path) {
  const Json* v = Find(object, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

// A quantity as written: a string or a number.
Result<api::Quantity> ParseQuantity(const Json& v) {
  if (v.is_string()) return api::Quantity::Parse(v.get<std::string>());
  if (v.is_number()) return api::Quantity::Parse(v.dump());
  return Status::Invalid("not a quantity");
}

// A ResourceList field (capability, deserved, guarantee.resource), checked:
// resource name -> quantity.
Result<std::map<std::string, api::Quantity>> ResourceList(const Json* list,
                                                          const std::string& path) {
  std::map<std::string, api::Quantity> out;
  if (list == nullptr) return out;
  if (!list->is_object()) return TypeError(path, *list, "object");
  for (auto it = list->begin(); it != list->end(); ++it) {
    const std::string field = path + "." + it.key();
    if (it.key().empty())
      return Status::Invalid(path + ": Invalid value: \"\": resource name must not be empty");
    Result<api::Quantity> q = ParseQuantity(it.value());
    if (!q.ok()) {
      return InvalidValue(field, it.value(),
                          "quantities must match the regular expression "
                          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }
    if (q->milli() < 0)
      return InvalidValue(field, it.value(), "must be greater than or equal to 0");
    out[it.key()] = *q;
  }
  return out;
}

struct QueueResources {
  std::map<std::string, api::Quantity> capability, deserved, guarantee;
};

Result<QueueResources> ReadResources(const Json& queue) {
  QueueResources r;
  KUOTA_ASSIGN_OR_RETURN(r.capability,
                         ResourceList(Find(queue, {"spec", "capability"}), "spec.capability"));
  KUOTA_ASSIGN_OR_RETURN(r.deserved,
                         ResourceList(Find(queue, {"spec", "deserved"}), "spec.deserved"));
  if (const Json* g = Find(queue, {"spec", "guarantee"}); g != nullptr && !g->is_object()) {
    return TypeError("spec.guarantee", *g, "object");
  }
  KUOTA_ASSIGN_OR_RETURN(r.guarantee, ResourceList(Find(queue, {"spec", "guarantee", "resource"}),
                                                   "spec.guarantee.resource"));
  return r;
}

// Every resource of `small` that `big` also names is at most big's amount.
Status NotAbove(const std::map<std::string, api::Quantity>& small,
                const std::map<std::string, api::Quantity>& big, const std::string& path,
                const std::string& why) {
  for (const auto& [name, q] : small) {
    auto it = big.find(name);
    if (it != big.end() && q > it->second) {
      return Status::Invalid(path + "." + name + ": Invalid value: \"" +
                             q.ToString(api::IsBinaryResource(name)) + "\": " + why);
    }
  }
  return Status::Ok();
}

Status ValidateState(const Json* state, const std::string& path) {
  if (state == nullptr) return Status::Ok();
  if (!state->is_string() || (*state != "Open" && *state != "Closed")) {
    return Status::Invalid(path + ": Unsupported value: " + Show(*state) +
                           ": supported values: \"Open\", \"Closed\"");
  }
  return Status::Ok();
}

Json Quota(const std::string& name, api::Quantity q) {
  return q.ToString(api::IsBinaryResource(name));
}

}  // namespace

std::string VolcanoQueueObjectName(const std::string& queue) {
  return jobs::kVolcanoQueuePrefix + queue;
}

void DefaultVolcanoQueue(Json& queue) {
  if (!queue.is_object()) return;
  if (!queue.contains("spec") || queue["spec"].is_null()) queue["spec"] = Json::object();
  Json& spec = queue["spec"];
  if (!spec.is_object()) return;
  if (!spec.contains("weight") || spec["weight"].is_null()) spec["weight"] = 1;
  if (!spec.contains("reclaimable") || spec["reclaimable"].is_null()) spec["reclaimable"] = true;
}

Status ValidateVolcanoQueue(const Json& queue) {
  const std::string name = StringAt(queue, {"metadata", "name"});
  if (name.size() > kMaxNameLength) {
    return Status::Invalid("metadata.name: Too long: must have at most " +
                           std::to_string(kMaxNameLength) +
                           " characters (Kuota names the queue's ClusterQueue volcano-<name>)");
  }
  if (const Json* spec = Find(queue, {"spec"}); spec != nullptr && !spec->is_object()) {
    return TypeError("spec", *spec, "object");
  }
  if (const Json* w = Find(queue, {"spec", "weight"})) {
    if (!w->is_number_integer()) return TypeError("spec.weight", *w, "integer");
    const int64_t weight = w->get<int64_t>();
    if (weight <= 0)
      return InvalidValue("spec.weight", *w, "queue weight must be a positive integer");
    if (weight > INT32_MAX) return InvalidValue("spec.weight", *w, "must be at most 2147483647");
  }
  if (const Json* r = Find(queue, {"spec", "reclaimable"}); r != nullptr && !r->is_boolean()) {
    return TypeError("spec.reclaimable", *r, "boolean");
  }
  if (const Json* p = Find(queue, {"spec", "priority"}); p != nullptr && !p->is_number_integer()) {
    return TypeError("spec.priority", *p, "integer");
  }
  for (const char* f : {"parent", "type"}) {
    const Json* v = Find(queue, {"spec", f});
    if (v != nullptr && !v->is_string()) return TypeError(std::string("spec.") + f, *v, "string");
  }
  if (const Json* e = Find(queue, {"spec", "extendClusters"}); e != nullptr && !e->is_array()) {
    return TypeError("spec.extendClusters", *e, "array");
  }
  if (const Json* a = Find(queue, {"spec", "affinity"}); a != nullptr && !a->is_object()) {
    return TypeError("spec.affinity", *a, "object");
  }
  KUOTA_RETURN_IF_ERROR(ValidateState(Find(queue, {"spec", "state"}), "spec.state"));
  KUOTA_RETURN_IF_ERROR(ValidateState(Find(queue, {"status", "state"}), "status.state"));
  KUOTA_ASSIGN_OR_RETURN(QueueResources r, ReadResources(queue));
  KUOTA_RETURN_IF_ERROR(NotAbove(r.deserved, r.capability, "spec.deserved",
                                 "deserved should less equal than capability"));
  KUOTA_RETURN_IF_ERROR(NotAbove(r.guarantee, r.capability, "spec.guarantee.resource",
                                 "guarantee should less equal than capability"));
  KUOTA_RETURN_IF_ERROR(NotAbove(r.guarantee, r.deserved, "spec.guarantee.resource",
                                 "guarantee should less equal than deserved"));
  return Status::Ok();
}

Status ValidateVolcanoQueueDeletion(const Json& queue) {
  if (StringAt(queue, {"metadata", "name"}) == kDefaultVolcanoQueue) {
    return Status::Invalid("metadata.name: Forbidden: `default` queue can not be deleted");
  }
  return Status::Ok();
}

std::vector<std::string> VolcanoQueueWarnings(const Json& queue) {
  std::vector<std::string> w;
  const std::string cq = VolcanoQueueObjectName(StringAt(queue, {"metadata", "name"}));
  if (!VolcanoQueueReclaimable(queue)) {
    w.push_back(
        "spec.reclaimable: false is approximated: Kueue reclaims quota from a whole cohort, not "
        "from chosen queues, so while this queue is not reclaimable no other Volcano queue "
        "reclaims what it lent (their ClusterQueues get reclaimWithinCohort: Never)");
  }
  if (const Json* e = Find(queue, {"spec", "extendClusters"}); e != nullptr && !e->empty()) {
    w.push_back("spec.extendClusters: ignored: kuotad runs every job on this machine");
  }
  if (Find(queue, {"spec", "affinity"}) != nullptr) {
    w.push_back(
        "spec.affinity: ignored: kuotad has no node groups; the jobs of this queue run on "
        "this machine");
  }
  const std::string parent = StringAt(queue, {"spec", "parent"});
  if (!parent.empty() && parent != "root") {
    w.push_back("spec.parent: ignored: hierarchical queues are not mapped; ClusterQueue " + cq +
                " sits directly in cohort volcano");
  }
  for (const char* a : kHierarchyAnnotations) {
    if (Find(queue, {"metadata", "annotations", a}) != nullptr) {
      w.push_back(std::string("metadata.annotations[") + a +
                  "]: ignored: hierarchical queues are not mapped");
    }
  }
  if (const Json* p = Find(queue, {"spec", "priority"}); p != nullptr && *p != 0) {
    w.push_back(
        "spec.priority: ignored: Kueue orders ClusterQueues by fair sharing (spec.weight), "
        "not by queue priority");
  }
  if (!StringAt(queue, {"spec", "type"}).empty()) {
    w.push_back("spec.type: ignored");
  }
  if (const Json* spec = Find(queue, {"spec"}); spec != nullptr && spec->is_object()) {
    for (auto it = spec->begin(); it != spec->end(); ++it) {
      const auto* known =
          std::find(std::begin(kKnownSpecFields), std::end(kKnownSpecFields), it.key());
      if (known == std::end(kKnownSpecFields)) {
        w.push_back("unknown field \"spec." + it.key() + "\"");
      }
    }
  }
  return w;
}

std::string VolcanoQueueState(const Json& queue) {
  std::string state = StringAt(queue, {"spec", "state"});
  if (state.empty()) state = StringAt(queue, {"status", "state"});
  return state == "Closed" || state == "Closing" ? "Closed" : "Open";
}

bool VolcanoQueueReclaimable(const Json& queue) {
  const Json* r = Find(queue, {"spec", "reclaimable"});
  return r == nullptr || !r->is_boolean() || r->get<bool>();
}

VolcanoQueueMapping MapVolcanoQueue(const Json& queue, const ResourceAmounts& machine,
                                    bool others_reclaimable) {
  VolcanoQueueMapping m;
  const std::string name = StringAt(queue, {"metadata", "name"});
  m.state = VolcanoQueueState(queue);
  m.warnings = VolcanoQueueWarnings(queue);
  Result<QueueResources> read = ReadResources(queue);
  QueueResources r = read.ok() ? std::move(read).value() : QueueResources{};

  std::vector<std::string> names(std::begin(kCoreResources), std::end(kCoreResources));
  std::set<std::string> extra;
  for (const auto* list : {&r.capability, &r.deserved, &r.guarantee}) {
    for (const auto& [n, q] : *list) extra.insert(n);
  }
  for (const std::string& n : extra) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  auto lookup = [](const std::map<std::string, api::Quantity>& list,
                   const std::string& n) -> std::optional<api::Quantity> {
    auto it = list.find(n);
    if (it == list.end()) return std::nullopt;
    return it->second;
  };
  Json resources = Json::array();
  for (const std::string& n : names) {
    const auto capability = lookup(r.capability, n);
    const auto deserved = lookup(r.deserved, n);
    const auto guarantee = lookup(r.guarantee, n);
    api::Quantity nominal;
    if (deserved) {
      nominal = *deserved;
    } else if (guarantee) {
      nominal = *guarantee;
    } else if (capability) {
      nominal = *capability;
    } else {
      auto it = machine.find(n);
      nominal = api::Quantity::FromMilli(it == machine.end() ? 0 : it->second);
    }
    Json quota = {{"name", n}, {"nominalQuota", Quota(n, nominal)}};
    if (capability) {
      quota["borrowingLimit"] = Quota(n, std::max(*capability - nominal, api::Quantity()));
    }
    if (guarantee) {
      quota["lendingLimit"] = Quota(n, std::max(nominal - *guarantee, api::Quantity()));
    }
    resources.push_back(std::move(quota));
  }
  const Json* weight = Find(queue, {"spec", "weight"});
  const int64_t w = weight != nullptr && weight->is_number_integer() ? weight->get<int64_t>() : 1;
  Json cq = {
      {"apiVersion", api::kKueueV1beta2},
      {"kind", "ClusterQueue"},
      {"metadata",
       {{"name", VolcanoQueueObjectName(name)}, {"labels", {{kVolcanoQueueLabel, name}}}}},
      {"spec",
       {{"cohortName", kVolcanoCohort},
        {"namespaceSelector", Json::object()},
        {"resourceGroups", Json::array({{{"coveredResources", names},
                                         {"flavors", Json::array({{{"name", kVolcanoFlavor},
                                                                   {"resources", resources}}})}}})},
        {"fairSharing", {{"weight", std::to_string(w)}}},
        {"preemption", {{"reclaimWithinCohort", others_reclaimable ? "Any" : "Never"}}},
        {"stopPolicy", m.state == "Closed" ? "Hold" : "None"}}}};
  ApplyKueueDefaults("ClusterQueue", cq);
  m.cluster_queue = std::move(cq);
  return m;
}

Json VolcanoLocalQueue(const std::string& queue, const std::string& ns) {
  Json lq = {{"apiVersion", api::kKueueV1beta2},
             {"kind", "LocalQueue"},
             {"metadata",
              {{"name", VolcanoQueueObjectName(queue)},
               {"namespace", ns},
               {"labels", {{kVolcanoQueueLabel, queue}}}}},
             {"spec", {{"clusterQueue", VolcanoQueueObjectName(queue)}}}};
  ApplyKueueDefaults("LocalQueue", lq);
  return lq;
}

Json VolcanoResourceFlavor() {
  return {{"apiVersion", api::kKueueV1beta2},
          {"kind", "ResourceFlavor"},
          {"metadata", {{"name", kVolcanoFlavor}}},
          {"spec", Json::object()}};
}

Json DefaultVolcanoQueueObject() {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "Queue"},
          {"metadata", {{"name", kDefaultVolcanoQueue}}},
          {"spec", {{"weight", 1}, {"reclaimable", true}}}};
}

}  // namespace kuota::control
