#include "server/table_printer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include "jobs/registry.h"
#include "server/json_fields.h"
#include "server/served_version.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;
using CellsFn = std::function<Json(const Json& object, Time now)>;

struct Printer {
  std::vector<TableColumn> columns;  // after the Name column
  CellsFn cells;                     // cells after the Name cell
};

constexpr const char* kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated.";
constexpr const char* kAgeDescription =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is represented in RFC3339 form and is in UTC.";

TableColumn Col(std::string name, std::string type, std::string description, int priority = 0) {
  return TableColumn{std::move(name), std::move(type), "", std::move(description), priority};
}

// A string cell, or null when absent (kubectl prints nothing for it).
Json StringOrNull(const Json& object, std::initializer_list<const char*> path) {
  const Json* v = FindField(object, path);
  if (v == nullptr || v->is_null()) return nullptr;
  return v->is_string() ? *v : Json(v->dump());
}

Json IntOrNull(const Json& object, std::initializer_list<const char*> path) {
  const Json* v = FindField(object, path);
  if (v == nullptr || !v->is_number()) return nullptr;
  return *v;
}

std::string Since(const std::string& timestamp, Time now) {
  if (timestamp.empty()) return "<unknown>";
  Result<Time> t = ParseRfc3339(timestamp);
  if (!t.ok()) return "<unknown>";
  return HumanDuration(now - *t);
}

std::string Age(const Json& object, Time now) {
  return Since(StringField(object, {"metadata", "creationTimestamp"}), now);
}

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

// metav1.FormatLabelSelector: "a=b,c in (x,y)" or "<none>".
std::string FormatLabelSelector(const Json* selector) {
  if (selector == nullptr || !selector->is_object()) return "<none>";
  std::vector<std::pair<std::string, std::string>> reqs;
  if (const Json* ml = FindField(*selector, {"matchLabels"}); ml != nullptr && ml->is_object()) {
    for (auto it = ml->begin(); it != ml->end(); ++it) {
      reqs.emplace_back(it.key(), it.key() + "=" + (it->is_string() ? it->get<std::string>() : ""));
    }
  }
  if (const Json* me = FindField(*selector, {"matchExpressions"});
      me != nullptr && me->is_array()) {
    for (const Json& e : *me) {
      std::string key = StringField(e, {"key"});
      std::string op = StringField(e, {"operator"});
      std::vector<std::string> values;
      if (const Json* vs = FindField(e, {"values"}); vs != nullptr && vs->is_array()) {
        for (const Json& v : *vs) values.push_back(v.is_string() ? v.get<std::string>() : "");
      }
      std::sort(values.begin(), values.end());
      if (op == "In") reqs.emplace_back(key, key + " in (" + Join(values, ",") + ")");
      if (op == "NotIn") reqs.emplace_back(key, key + " notin (" + Join(values, ",") + ")");
      if (op == "Exists") reqs.emplace_back(key, key);
      if (op == "DoesNotExist") reqs.emplace_back(key, "!" + key);
    }
  }
  if (reqs.empty()) return "<none>";
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> parts;
  for (auto& r : reqs) parts.push_back(r.second);
  return Join(parts, ",");
}

// Container names and images of a pod spec, comma-separated.
std::pair<std::string, std::string> ContainerCells(const Json* pod_spec) {
  std::vector<std::string> names, images;
  const Json* containers = pod_spec == nullptr ? nullptr : FindField(*pod_spec, {"containers"});
  if (containers != nullptr && containers->is_array()) {
    for (const Json& c : *containers) {
      names.push_back(StringField(c, {"name"}));
      images.push_back(StringField(c, {"image"}));
    }
  }
  return {Join(names, ","), Join(images, ",")};
}

std::string ConditionStatus(const Json& object, const std::string& type) {
  const Json* c = FindCondition(object, {"status", "conditions"}, type);
  return c == nullptr ? "" : StringField(*c, {"status"});
}

Json ConditionStatusOrNull(const Json& object, const std::string& type) {
  const Json* c = FindCondition(object, {"status", "conditions"}, type);
  if (c == nullptr) return nullptr;
  return StringOrNull(*c, {"status"});
}

// --- Kueue kinds (their CRDs' additionalPrinterColumns) ---

Printer AgeOnly() {
  return {{Col("Age", "date", kAgeDescription)},
          [](const Json& o, Time now) { return Json::array({Age(o, now)}); }};
}

Printer ClusterQueuePrinter() {
  return {{Col("Cohort", "string", "Cohort that this ClusterQueue belongs to"),
           Col("Strategy", "string", "The queueing strategy used to prioritize workloads", 1),
           Col("Pending Workloads", "integer", "Number of pending workloads"),
           Col("Admitted Workloads", "integer",
               "Number of admitted workloads that haven't finished yet", 1),
           Col("Age", "date", kAgeDescription)},
          [](const Json& o, Time now) {
            // v1beta2's cohortName (stored), v1beta1's cohort.
            Json cohort = StringOrNull(o, {"spec", "cohortName"});
            if (cohort.is_null()) cohort = StringOrNull(o, {"spec", "cohort"});
            return Json::array({std::move(cohort), StringOrNull(o, {"spec", "queueingStrategy"}),
                                IntOrNull(o, {"status", "pendingWorkloads"}),
                                IntOrNull(o, {"status", "admittedWorkloads"}), Age(o, now)});
          }};
}

Printer LocalQueuePrinter() {
  return {{Col("ClusterQueue", "string", "Backing ClusterQueue"),
           Col("Pending Workloads", "integer", "Number of pending workloads"),
           Col("Admitted Workloads", "integer",
               "Number of admitted workloads that haven't finished yet."),
           Col("Age", "date", kAgeDescription)},
          [](const Json& o, Time now) {
            return Json::array({StringOrNull(o, {"spec", "clusterQueue"}),
                                IntOrNull(o, {"status", "pendingWorkloads"}),
                                IntOrNull(o, {"status", "admittedWorkloads"}), Age(o, now)});
          }};
}

// Volcano's Queue CRD prints PARENT; Kuota adds AGE, and with -o wide the
// state and weight that decide its ClusterQueue.
Printer VolcanoQueuePrinter() {
  return {
      {Col("Parent", "string", "The parent queue of this queue"),
       Col("Age", "date", kAgeDescription), Col("State", "string", "State is state of queue", 1),
       Col("Weight", "integer", "The queue's share of the cohort (fair sharing weight)", 1)},
      [](const Json& o, Time now) {
        return Json::array({StringOrNull(o, {"spec", "parent"}), Age(o, now),
                            StringOrNull(o, {"status", "state"}),
                            IntOrNull(o, {"spec", "weight"})});
      }};
}

Printer WorkloadPrinter() {
  return {{Col("Queue", "string", "Name of the queue this workload was submitted to"),
           Col("Reserved in", "string",
               "Name of the ClusterQueue where the workload is reserving quota"),
           Col("Admitted", "string", "Admission status"),
           Col("Finished", "string", "Workload finished"), Col("Age", "date", kAgeDescription)},
          [](const Json& o, Time now) {
            return Json::array({StringOrNull(o, {"spec", "queueName"}),
                                StringOrNull(o, {"status", "admission", "clusterQueue"}),
                                ConditionStatusOrNull(o, "Admitted"),
                                ConditionStatusOrNull(o, "Finished"), Age(o, now)});
          }};
}

Printer WorkloadPriorityClassPrinter() {
  return {{Col("Value", "integer", "Value of workloadPriorityClass's Priority"),
           Col("Age", "date", kAgeDescription)},
          [](const Json& o, Time now) {
            return Json::array({IntOrNull(o, {"value"}), Age(o, now)});
          }};
}

// Kueue's CRD columns for MultiKueueCluster.
Printer MultiKueueClusterPrinter() {
  return {{Col("Connected", "string", "MultiKueueCluster is connected"),
           Col("Age", "date", kAgeDescription)},
          [](const Json& o, Time now) {
            return Json::array({ConditionStatusOrNull(o, "Active"), Age(o, now)});
          }};
}

// --- Built-in kinds (kube-apiserver's printers) ---

Printer JobPrinter() {
  return {
      {Col("Status", "string", "Status of the job."),
       Col("Completions", "string", "The completion status of the job."),
       Col("Duration", "string", "Time required to complete the job."),
       Col("Age", "string", kAgeDescription),
       Col("Containers", "string", "Names of each container in the template.", 1),
       Col("Images", "string", "Images referenced by each container in the template.", 1),
       Col("Selector", "string", "Selector for the pods the job runs.", 1)},
      [](const Json& o, Time now) {
        std::string status;
        if (ConditionStatus(o, "Complete") == "True") {
          status = "Complete";
        } else if (ConditionStatus(o, "Failed") == "True") {
          status = "Failed";
        } else if (FindField(o, {"metadata", "deletionTimestamp"}) != nullptr) {
          status = "Terminating";
        } else if (ConditionStatus(o, "Suspended") == "True") {
          status = "Suspended";
        } else if (ConditionStatus(o, "FailureTarget") == "True") {
          status = "FailureTarget";
        } else if (ConditionStatus(o, "SuccessCriteriaMet") == "True") {
          status = "SuccessCriteriaMet";
        } else {
          status = "Running";
        }
        int64_t succeeded = IntField(o, {"status", "succeeded"});
        std::string completions;
        if (const Json* c = FindField(o, {"spec", "completions"}); c != nullptr && c->is_number()) {
          completions = std::to_string(succeeded) + "/" + std::to_string(c->get<int64_t>());
        } else {
          int64_t parallelism = IntField(o, {"spec", "parallelism"});
          completions = std::to_string(succeeded) + "/1";
          if (parallelism > 1) completions += " of " + std::to_string(parallelism);
        }
        std::string duration;
        std::string start = StringField(o, {"status", "startTime"});
        std::string end = StringField(o, {"status", "completionTime"});
        if (!start.empty()) {
          Result<Time> s = ParseRfc3339(start);
          Result<Time> e = end.empty() ? Result<Time>(now) : ParseRfc3339(end);
          if (s.ok() && e.ok()) duration = HumanDuration(*e - *s);
        }
        auto [names, images] = ContainerCells(FindField(o, {"spec", "template", "spec"}));
        return Json::array({status, completions, duration, Age(o, now), names, images,
                            FormatLabelSelector(FindField(o, {"spec", "selector"}))});
      }};
}

Printer PodPrinter() {
  return {
      {Col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
       Col("Status", "string", "The aggregate status of the containers in this pod."),
       Col("Restarts", "string",
           "The number of times the containers in this pod have been restarted."),
       Col("Age", "string", kAgeDescription),
       Col("IP", "string", "IP address allocated to the pod.", 1),
       Col("Node", "string", "Name of the node this pod is assigned to.", 1),
       Col("Nominated Node", "string", "Name of the node this pod is nominated to run on.", 1),
       Col("Readiness Gates", "string", "Pod readiness gates.", 1)},
      [](const Json& o, Time now) {
        int64_t total = 0, ready = 0, restarts = 0;
        if (const Json* cs = FindField(o, {"spec", "containers"});
            cs != nullptr && cs->is_array()) {
          total = static_cast<int64_t>(cs->size());
        }
        std::string reason = StringField(o, {"status", "phase"});
        if (std::string r = StringField(o, {"status", "reason"}); !r.empty()) reason = r;
        // A gated pod (Kueue's admission gate) shows as such, as kubectl does.
        if (const Json* cs = FindField(o, {"status", "conditions"});
            cs != nullptr && cs->is_array()) {
          for (const Json& c : *cs) {
            if (StringField(c, {"type"}) == "PodScheduled" &&
                StringField(c, {"reason"}) == "SchedulingGated") {
              reason = "SchedulingGated";
            }
          }
        }
        bool initializing = false;
        const Json* inits = FindField(o, {"status", "initContainerStatuses"});
        if (inits != nullptr && inits->is_array()) {
          size_t n_init = 0;
          if (const Json* ic = FindField(o, {"spec", "initContainers"});
              ic != nullptr && ic->is_array()) {
            n_init = ic->size();
          }
          for (size_t i = 0; i < inits->size(); ++i) {
            const Json& c = (*inits)[i];
            restarts += IntField(c, {"restartCount"});
            const Json* term = FindField(c, {"state", "terminated"});
            std::string waiting = StringField(c, {"state", "waiting", "reason"});
            if (term != nullptr && IntField(*term, {"exitCode"}) == 0) continue;
            initializing = true;
            if (term != nullptr) {
              std::string tr = StringField(*term, {"reason"});
              if (tr.empty()) {
                int64_t sig = IntField(*term, {"signal"});
                tr = sig != 0 ? "Signal:" + std::to_string(sig)
                              : "ExitCode:" + std::to_string(IntField(*term, {"exitCode"}));
              }
              reason = "Init:" + tr;
            } else if (!waiting.empty() && waiting != "PodInitializing") {
              reason = "Init:" + waiting;
            } else {
              reason = "Init:" + std::to_string(i) + "/" + std::to_string(n_init);
            }
            break;
          }
        }
        if (!initializing) {
          restarts = 0;
          bool has_running = false;
          const Json* cs = FindField(o, {"status", "containerStatuses"});
          if (cs != nullptr && cs->is_array()) {
            for (auto it = cs->rbegin(); it != cs->rend(); ++it) {
              const Json& c = *it;
              restarts += IntField(c, {"restartCount"});
              std::string waiting = StringField(c, {"state", "waiting", "reason"});
              const Json* term = FindField(c, {"state", "terminated"});
              if (!waiting.empty()) {
                reason = waiting;
              } else if (term != nullptr && !StringField(*term, {"reason"}).empty()) {
                reason = StringField(*term, {"reason"});
              } else if (term != nullptr) {
                int64_t sig = IntField(*term, {"signal"});
                reason = sig != 0 ? "Signal:" + std::to_string(sig)
                                  : "ExitCode:" + std::to_string(IntField(*term, {"exitCode"}));
              } else if (FindField(c, {"ready"}) != nullptr && c["ready"] == true &&
                         FindField(c, {"state", "running"}) != nullptr) {
                has_running = true;
                ++ready;
              }
            }
          }
          if (reason == "Completed" && has_running) {
            reason = ConditionIsTrue(o, "Ready") ? "Running" : "NotReady";
          }
        }
        if (FindField(o, {"metadata", "deletionTimestamp"}) != nullptr) {
          reason = StringField(o, {"status", "reason"}) == "NodeLost" ? "Unknown" : "Terminating";
        }
        auto or_none = [&](std::initializer_list<const char*> path) {
          std::string v = StringField(o, path);
          return v.empty() ? std::string("<none>") : v;
        };
        return Json::array({std::to_string(ready) + "/" + std::to_string(total), reason,
                            std::to_string(restarts), Age(o, now), or_none({"status", "podIP"}),
                            or_none({"spec", "nodeName"}), or_none({"status", "nominatedNodeName"}),
                            "<none>"});
      }};
}

Printer NamespacePrinter() {
  return {{Col("Status", "string", "The status of the namespace"),
           Col("Age", "string", kAgeDescription)},
          [](const Json& o, Time now) {
            return Json::array({StringField(o, {"status", "phase"}), Age(o, now)});
          }};
}

Printer EventPrinter() {
  return {
      {Col("Last Seen", "string",
           "The time at which the most recent occurrence of this event was recorded."),
       Col("Type", "string",
           "Type of this event (Normal, Warning), new types could be added in the future"),
       Col("Reason", "string",
           "This should be a short, machine understandable string that gives the reason for the "
           "transition into the object's current status."),
       Col("Object", "string", "The object that this event is about."),
       Col("Subobject", "string", "The field path of the object this event is about.", 1),
       Col("Source", "string", "The component reporting this event.", 1),
       Col("Message", "string", "A human-readable description of the status of this operation."),
       Col("First Seen", "string", "The time at which the event was first recorded.", 1),
       Col("Count", "string", "The number of times this event has occurred.", 1),
       TableColumn{"Name", "string", "name", kNameDescription, 1}},
      [](const Json& o, Time now) {
        std::string first_ts = StringField(o, {"firstTimestamp"});
        if (first_ts.empty()) first_ts = StringField(o, {"eventTime"});
        std::string first = Since(first_ts, now);
        std::string last_ts = StringField(o, {"lastTimestamp"});
        std::string last = last_ts.empty() ? first : Since(last_ts, now);
        int64_t count = IntField(o, {"count"});
        if (FindField(o, {"series"}) != nullptr) {
          last = Since(StringField(o, {"series", "lastObservedTime"}), now);
          count = IntField(o, {"series", "count"});
        } else if (count == 0) {
          count = 1;
        }
        std::string kind = StringField(o, {"involvedObject", "kind"});
        std::transform(kind.begin(), kind.end(), kind.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        std::string name = StringField(o, {"involvedObject", "name"});
        std::string target = name.empty() ? kind : kind + "/" + name;
        std::string component = StringField(o, {"source", "component"});
        if (component.empty()) component = StringField(o, {"reportingComponent"});
        std::string host = StringField(o, {"source", "host"});
        if (host.empty()) host = StringField(o, {"reportingInstance"});
        std::string source = component.empty() ? ""
                             : host.empty()    ? component
                                               : component + ", " + host;
        std::string message = StringField(o, {"message"});
        while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) {
          message.pop_back();
        }
        return Json::array({last, StringField(o, {"type"}), StringField(o, {"reason"}), target,
                            StringField(o, {"involvedObject", "fieldPath"}), source, message, first,
                            count, StringField(o, {"metadata", "name"})});
      }};
}

Printer NodePrinter() {
  return {
      {Col("Status", "string", "The status of the node"),
       Col("Roles", "string", "The roles of the node"), Col("Age", "string", kAgeDescription),
       Col("Version", "string", "Kubelet Version reported by the node."),
       Col("Internal-IP", "string", "List of internal IPs for the node.", 1),
       Col("External-IP", "string", "List of external IPs for the node.", 1),
       Col("OS-Image", "string",
           "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
           1),
       Col("Kernel-Version", "string",
           "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
       Col("Container-Runtime", "string",
           "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
           "containerd://1.4.2).",
           1)},
      [](const Json& o, Time now) {
        std::vector<std::string> status;
        const Json* ready = FindCondition(o, {"status", "conditions"}, "Ready");
        if (ready == nullptr) {
          status.push_back("Unknown");
        } else {
          status.push_back(StringField(*ready, {"status"}) == "True" ? "Ready" : "NotReady");
        }
        const Json* unsched = FindField(o, {"spec", "unschedulable"});
        if (unsched != nullptr && *unsched == true) status.push_back("SchedulingDisabled");
        std::vector<std::string> roles;
        if (const Json* labels = FindField(o, {"metadata", "labels"});
            labels != nullptr && labels->is_object()) {
          const std::string prefix = "node-role.kubernetes.io/";
          for (auto it = labels->begin(); it != labels->end(); ++it) {
            if (it.key().rfind(prefix, 0) == 0 && it.key().size() > prefix.size()) {
              roles.push_back(it.key().substr(prefix.size()));
            } else if (it.key() == "kubernetes.io/role" && it->is_string()) {
              roles.push_back(it->get<std::string>());
            }
          }
        }
        std::sort(roles.begin(), roles.end());
        auto address = [&](const std::string& type) {
          const Json* addrs = FindField(o, {"status", "addresses"});
          if (addrs != nullptr && addrs->is_array()) {
            for (const Json& a : *addrs) {
              if (StringField(a, {"type"}) == type) return StringField(a, {"address"});
            }
          }
          return std::string("<none>");
        };
        auto info = [&](const char* field) {
          std::string v = StringField(o, {"status", "nodeInfo", field});
          return v.empty() ? std::string("<unknown>") : v;
        };
        return Json::array({Join(status, ","), roles.empty() ? "<none>" : Join(roles, ","),
                            Age(o, now), StringField(o, {"status", "nodeInfo", "kubeletVersion"}),
                            address("InternalIP"), address("ExternalIP"), info("osImage"),
                            info("kernelVersion"), info("containerRuntimeVersion")});
      }};
}

Printer PriorityClassPrinter() {
  return {{Col("Value", "integer", "The value of this priority class."),
           Col("Global-Default", "boolean",
               "globalDefault specifies whether this PriorityClass should be considered as the "
               "default priority."),
           Col("Age", "string", kAgeDescription),
           Col("PreemptionPolicy", "string",
               "PreemptionPolicy is the Policy for preempting pods with lower priority.")},
          [](const Json& o, Time now) {
            const Json* global = FindField(o, {"globalDefault"});
            return Json::array({IntField(o, {"value"}), global != nullptr && *global == true,
                                Age(o, now),
                                StringField(o, {"preemptionPolicy"}, "PreemptLowerPriority")});
          }};
}

// The number of keys of the maps at `fields` of `o`.
int64_t KeyCount(const Json& o, std::initializer_list<const char*> fields) {
  int64_t n = 0;
  for (const char* field : fields) {
    const Json* m = FindField(o, {field});
    if (m != nullptr && m->is_object()) n += static_cast<int64_t>(m->size());
  }
  return n;
}

Printer ConfigMapPrinter() {
  return {{Col("Data", "string",
               "Data contains the configuration data. Each key must consist of alphanumeric "
               "characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the "
               "BinaryData field. The keys stored in Data must not overlap with the keys in the "
               "BinaryData field, this is enforced during validation process."),
           Col("Age", "string", kAgeDescription)},
          [](const Json& o, Time now) {
            return Json::array({KeyCount(o, {"data", "binaryData"}), Age(o, now)});
          }};
}

Printer SecretPrinter() {
  return {{Col("Type", "string",
               "Used to facilitate programmatic handling of secret data. More info: "
               "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
           Col("Data", "string",
               "Data contains the secret data. Each key must consist of alphanumeric characters, "
               "'-', '_' or '.'. The serialized form of the secret data is a base64 encoded "
               "string, representing the arbitrary (possibly non-string) data value here. "
               "Described in https://tools.ietf.org/html/rfc4648#section-4"),
           Col("Age", "string", kAgeDescription)},
          [](const Json& o, Time now) {
            return Json::array({StringField(o, {"type"}), KeyCount(o, {"data"}), Age(o, now)});
          }};
}

// kube-apiserver's columns for apps/v1 Deployment, StatefulSet and ReplicaSet.
std::string ReplicasOf(const Json& o, const char* field) {
  return std::to_string(IntField(o, {"status", field})) + "/" +
         std::to_string(IntField(o, {"spec", "replicas"}));
}

std::vector<TableColumn> TemplateColumns(bool with_selector) {
  std::vector<TableColumn> cols = {
      Col("Containers", "string", "Names of each container in the template.", 1),
      Col("Images", "string", "Images referenced by each container in the template.", 1)};
  if (with_selector) cols.push_back(Col("Selector", "string", "Label selector for pods.", 1));
  return cols;
}

void AddTemplateCells(const Json& o, bool with_selector, Json& cells) {
  auto [names, images] = ContainerCells(FindField(o, {"spec", "template", "spec"}));
  cells.push_back(names);
  cells.push_back(images);
  if (with_selector) cells.push_back(FormatLabelSelector(FindField(o, {"spec", "selector"})));
}

Printer DeploymentPrinter() {
  std::vector<TableColumn> cols = {Col("Ready", "string", "Number of the pod with ready state"),
                                   Col("Up-to-date", "integer",
                                       "Total number of non-terminated pods targeted by this "
                                       "deployment that have the desired template spec."),
                                   Col("Available", "integer",
                                       "Total number of available pods (ready for at least "
                                       "minReadySeconds) targeted by this deployment."),
                                   Col("Age", "string", kAgeDescription)};
  for (auto& c : TemplateColumns(true)) cols.push_back(std::move(c));
  return {cols, [](const Json& o, Time now) {
            Json cells = Json::array({ReplicasOf(o, "readyReplicas"),
                                      IntField(o, {"status", "updatedReplicas"}),
                                      IntField(o, {"status", "availableReplicas"}), Age(o, now)});
            AddTemplateCells(o, true, cells);
            return cells;
          }};
}

Printer StatefulSetPrinter() {
  std::vector<TableColumn> cols = {Col("Ready", "string", "Number of the pod with ready state"),
                                   Col("Age", "string", kAgeDescription)};
  for (auto& c : TemplateColumns(false)) cols.push_back(std::move(c));
  return {cols, [](const Json& o, Time now) {
            Json cells = Json::array({ReplicasOf(o, "readyReplicas"), Age(o, now)});
            AddTemplateCells(o, false, cells);
            return cells;
          }};
}

Printer ReplicaSetPrinter() {
  std::vector<TableColumn> cols = {
      Col("Desired", "integer", "Number of desired pods."),
      Col("Current", "integer", "Number of actual replicas."),
      Col("Ready", "integer", "The number of ready replicas for this replica set."),
      Col("Age", "string", kAgeDescription)};
  for (auto& c : TemplateColumns(true)) cols.push_back(std::move(c));
  return {cols, [](const Json& o, Time now) {
            Json cells =
                Json::array({IntField(o, {"spec", "replicas"}), IntField(o, {"status", "replicas"}),
                             IntField(o, {"status", "readyReplicas"}), Age(o, now)});
            AddTemplateCells(o, true, cells);
            return cells;
          }};
}

// kube-apiserver's columns for Mutating/ValidatingWebhookConfigurations.
Printer WebhookConfigurationPrinter() {
  return {{Col("Webhooks", "integer",
               "Webhooks is a list of webhooks and the affected resources and operations."),
           Col("Age", "string", kAgeDescription)},
          [](const Json& o, Time now) {
            const Json* hooks = FindField(o, {"webhooks"});
            int64_t n =
                hooks != nullptr && hooks->is_array() ? static_cast<int64_t>(hooks->size()) : 0;
            return Json::array({n, Age(o, now)});
          }};
}

// kube-aggregator's columns: the Service (or Local) and the Available condition.
Printer ApiServicePrinter() {
  return {{Col("Service", "string", "The reference to the service that hosts this API endpoint."),
           Col("Available", "string", "Whether this service is available."),
           Col("Age", "string", kAgeDescription)},
          [](const Json& o, Time now) {
            const Json* svc = FindField(o, {"spec", "service"});
            std::string service = "Local";
            if (svc != nullptr && svc->is_object()) {
              service = StringField(*svc, {"namespace"}) + "/" + StringField(*svc, {"name"});
            }
            std::string available = "Unknown";
            const Json* conditions = FindField(o, {"status", "conditions"});
            for (const Json& c :
                 conditions != nullptr && conditions->is_array() ? *conditions : Json::array()) {
              if (!c.is_object() || StringField(c, {"type"}) != "Available") continue;
              available = StringField(c, {"status"});
              if (available != "True") available += " (" + StringField(c, {"reason"}) + ")";
            }
            return Json::array({service, available, Age(o, now)});
          }};
}

// A job kind's columns as its CRD declares them; "date" cells print as ages.
Printer JobKindPrinter(const jobs::KindInfo& info) {
  Printer p;
  for (const auto& c : info.columns) {
    p.columns.push_back(Col(c.name, c.type == "date" ? "date" : c.type, c.description, c.priority));
  }
  p.cells = [columns = info.columns](const Json& o, Time now) {
    Json cells = Json::array();
    for (const auto& c : columns) {
      Json v = c.value ? c.value(o) : Json();
      if (c.type == "date") {
        cells.push_back(v.is_string() ? Json(Since(v.get<std::string>(), now)) : Json());
      } else {
        cells.push_back(std::move(v));
      }
    }
    return cells;
  };
  return p;
}

const Printer& PrinterFor(const ResourceInfo& r) {
  static const std::map<std::string, Printer> kPrinters = {
      {"clusterqueues.kueue.x-k8s.io", ClusterQueuePrinter()},
      {"localqueues.kueue.x-k8s.io", LocalQueuePrinter()},
      {"workloads.kueue.x-k8s.io", WorkloadPrinter()},
      {"workloadpriorityclasses.kueue.x-k8s.io", WorkloadPriorityClassPrinter()},
      {"multikueueclusters.kueue.x-k8s.io", MultiKueueClusterPrinter()},
      {"jobs.batch", JobPrinter()},
      {"pods", PodPrinter()},
      {"namespaces", NamespacePrinter()},
      {"events", EventPrinter()},
      {"nodes", NodePrinter()},
      {"priorityclasses.scheduling.k8s.io", PriorityClassPrinter()},
      {"configmaps", ConfigMapPrinter()},
      {"secrets", SecretPrinter()},
      {"queues.scheduling.volcano.sh", VolcanoQueuePrinter()},
      {"mutatingwebhookconfigurations.admissionregistration.k8s.io", WebhookConfigurationPrinter()},
      {"validatingwebhookconfigurations.admissionregistration.k8s.io",
       WebhookConfigurationPrinter()},
      {"apiservices.apiregistration.k8s.io", ApiServicePrinter()},
      {"deployments.apps", DeploymentPrinter()},
      {"statefulsets.apps", StatefulSetPrinter()},
      {"replicasets.apps", ReplicaSetPrinter()},
  };
  static const std::map<std::string, Printer> kJobPrinters = [] {
    std::map<std::string, Printer> m;
    for (const auto& k : jobs::JobKinds()) {
      if (!k->Info().columns.empty()) m[k->Resource()] = JobKindPrinter(k->Info());
    }
    return m;
  }();
  static const Printer kAgeOnly = AgeOnly();
  auto it = kPrinters.find(r.StoreKey());
  if (it != kPrinters.end()) return it->second;
  auto jt = kJobPrinters.find(r.StoreKey());
  return jt == kJobPrinters.end() ? kAgeOnly : jt->second;
}

// Events lead with Last Seen and carry their name in a wide column, as kube.
bool LeadsWithName(const ResourceInfo& r) { return !(r.group.empty() && r.plural == "events"); }

Json PartialObjectMetadata(const Json& object) {
  Json metadata = object.contains("metadata") ? object["metadata"] : Json::object();
  return {
      {"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", metadata}};
}

}  // namespace

IncludeObject ParseIncludeObject(std::string_view value) {
  if (value == "None") return IncludeObject::kNone;
  if (value == "Object") return IncludeObject::kObject;
  return IncludeObject::kMetadata;
}

std::vector<TableColumn> TableColumns(const ResourceInfo& r) {
  std::vector<TableColumn> cols;
  if (LeadsWithName(r)) cols.push_back(TableColumn{"Name", "string", "name", kNameDescription, 0});
  const Printer& p = PrinterFor(r);
  cols.insert(cols.end(), p.columns.begin(), p.columns.end());
  return cols;
}

Json TableCells(const ResourceInfo& r, const Json& object, Time now) {
  Json cells = Json::array();
  if (LeadsWithName(r)) cells.push_back(StringField(object, {"metadata", "name"}));
  for (Json& c : PrinterFor(r).cells(object, now)) cells.push_back(std::move(c));
  return cells;
}

Json BuildTable(const ResourceInfo& r, const std::vector<Json>& objects, Time now,
                IncludeObject include, bool with_columns) {
  Json table = {{"kind", "Table"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", Json::object()}};
  Json columns = Json::array();
  if (with_columns) {
    for (const TableColumn& c : TableColumns(r)) {
      columns.push_back({{"name", c.name},
                         {"type", c.type},
                         {"format", c.format},
                         {"description", c.description},
                         {"priority", c.priority}});
    }
  }
  table["columnDefinitions"] = columns;
  Json rows = Json::array();
  for (const Json& o : objects) {
    Json row = {{"cells", TableCells(r, o, now)}};
    if (include == IncludeObject::kMetadata) row["object"] = PartialObjectMetadata(o);
    if (include == IncludeObject::kObject) row["object"] = ToServedVersion(r, o);
    rows.push_back(std::move(row));
  }
  table["rows"] = rows;
  return table;
}

std::string HumanDuration(Duration d) {
  int64_t seconds = d.ms / 1000;
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return std::to_string(seconds) + "s";
  int64_t minutes = seconds / 60;
  if (minutes < 10) {
    int64_t s = seconds % 60;
    return s == 0 ? std::to_string(minutes) + "m"
                  : std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  int64_t hours = minutes / 60;
  if (hours < 8) {
    int64_t m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h"
                  : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    int64_t h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d"
                  : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    int64_t dy = (hours / 24) % 365;
    return dy == 0 ? std::to_string(hours / 24 / 365) + "y"
                   : std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

}  // namespace kuota::server
