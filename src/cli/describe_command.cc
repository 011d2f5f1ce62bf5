#include "cli/describe_command.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/url_encode.h"
#include "cli/fields.h"
#include "cli/output.h"
#include "cli/server_flags.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;
using Rows = std::vector<std::vector<std::string>>;

// Appends "Label:  value" with the value column at 2 + 16.
void Line(std::string& out, const std::string& label, const std::string& value, int indent = 0) {
  std::string head(static_cast<size_t>(indent), ' ');
  head += label + ":";
  if (head.size() < 18)
    head.append(18 - head.size(), ' ');
  else
    head += ' ';
  out += head + value + "\n";
}

std::string OrNone(const std::string& s) { return s.empty() ? "<none>" : s; }

// A JSON value on one line: strings bare, others compact JSON.
std::string Inline(const Json* v) {
  if (v == nullptr || v->is_null()) return "<none>";
  if (v->is_string()) return v->get<std::string>();
  return v->dump();
}

std::string Labels(const Json& object) {
  const Json* labels = Field(object, {"metadata", "labels"});
  if (labels == nullptr || !labels->is_object() || labels->empty()) return "<none>";
  std::string out;
  for (const auto& [k, v] : labels->items()) {
    if (!out.empty()) out += "\n                  ";
    out += k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

// "requests: cpu=2, memory=4Gi" from a resources map.
std::string ResourceList(const Json* resources) {
  if (resources == nullptr || !resources->is_object() || resources->empty()) return "<none>";
  std::string out;
  for (const auto& [name, q] : resources->items()) {
    if (!out.empty()) out += ", ";
    out += name + "=" + (q.is_string() ? q.get<std::string>() : q.dump());
  }
  return out;
}

// The resources of a pod template's containers, summed by name as text.
std::string TemplateRequests(const Json& pod_spec) {
  std::string out;
  const Json* containers = Field(pod_spec, {"containers"});
  if (containers == nullptr || !containers->is_array()) return "<none>";
  for (const Json& c : *containers) {
    if (!out.empty()) out += "; ";
    out += Text(c, {"name"}) + ": " + ResourceList(Field(c, {"resources", "requests"}));
  }
  return out.empty() ? "<none>" : out;
}

std::string CommandLine(const Json& container) {
  std::string out;
  for (const char* field : {"command", "args"}) {
    const Json* list = Field(container, {field});
    if (list == nullptr || !list->is_array()) continue;
    for (const Json& a : *list) {
      if (!out.empty()) out += ' ';
      std::string s = a.is_string() ? a.get<std::string>() : a.dump();
      bool quote = s.empty() || s.find_first_of(" \t\"'$\\") != std::string::npos;
      out += quote ? "'" + s + "'" : s;
    }
  }
  return OrNone(out);
}

// "pending N, reserving N, admitted N", as a queue's status counts them.
std::string WorkloadCounts(const Json& queue) {
  return "pending " + std::to_string(Int(queue, {"status", "pendingWorkloads"})) + ", reserving " +
         std::to_string(Int(queue, {"status", "reservingWorkloads"})) + ", admitted " +
         std::to_string(Int(queue, {"status", "admittedWorkloads"}));
}

void DescribeClusterQueue(std::string& out, const Json& cq) {
  Line(out, "Cohort", OrNone(Text(cq, {"spec", "cohort"})));
  Line(out, "Queueing", Text(cq, {"spec", "queueingStrategy"}, "BestEffortFIFO"));
  Line(out, "Stop policy", Text(cq, {"spec", "stopPolicy"}, "None"));
  Line(out, "Namespaces", Inline(Field(cq, {"spec", "namespaceSelector"})));
  if (const Json* p = Field(cq, {"spec", "preemption"})) Line(out, "Preemption", Inline(p));
  if (const Json* fs = Field(cq, {"spec", "fairSharing"})) Line(out, "Fair sharing", Inline(fs));
  // Quota per flavor and resource, with what is reserved now.
  std::map<std::pair<std::string, std::string>, std::string> reserved, used;
  for (const auto& [field, into] :
       {std::pair<const char*, decltype(&reserved)>{"flavorsReservation", &reserved},
        std::pair<const char*, decltype(&reserved)>{"flavorsUsage", &used}}) {
    const Json* flavors = Field(cq, {"status", field});
    if (flavors == nullptr || !flavors->is_array()) continue;
    for (const Json& f : *flavors) {
      const Json* res = Field(f, {"resources"});
      if (res == nullptr || !res->is_array()) continue;
      for (const Json& r : *res) {
        (*into)[{Text(f, {"name"}), Text(r, {"name"})}] = Inline(Field(r, {"total"}));
      }
    }
  }
  Rows rows = {
      {"FLAVOR", "RESOURCE", "NOMINAL", "BORROWING LIMIT", "LENDING LIMIT", "RESERVED", "IN USE"}};
  const Json* groups = Field(cq, {"spec", "resourceGroups"});
  if (groups != nullptr && groups->is_array()) {
    for (const Json& g : *groups) {
      const Json* flavors = Field(g, {"flavors"});
      if (flavors == nullptr || !flavors->is_array()) continue;
      for (const Json& f : *flavors) {
        const Json* resources = Field(f, {"resources"});
        if (resources == nullptr || !resources->is_array()) continue;
        for (const Json& r : *resources) {
          std::pair<std::string, std::string> key{Text(f, {"name"}), Text(r, {"name"})};
          auto at = [](const auto& m, const auto& k) {
            auto it = m.find(k);
            return it == m.end() ? std::string("0") : it->second;
          };
          rows.push_back({key.first, key.second, Inline(Field(r, {"nominalQuota"})),
                          Field(r, {"borrowingLimit"}) ? Inline(Field(r, {"borrowingLimit"})) : "-",
                          Field(r, {"lendingLimit"}) ? Inline(Field(r, {"lendingLimit"})) : "-",
                          at(reserved, key), at(used, key)});
        }
      }
    }
  }
  out += "Quota:\n";
  out += rows.size() > 1 ? AlignColumns(rows, "  ") : "  <none>\n";
  Line(out, "Workloads", WorkloadCounts(cq));
}

void DescribeLocalQueue(std::string& out, const Json& lq) {
  Line(out, "ClusterQueue", OrNone(Text(lq, {"spec", "clusterQueue"})));
  Line(out, "Stop policy", Text(lq, {"spec", "stopPolicy"}, "None"));
  Line(out, "Workloads", WorkloadCounts(lq));
}

// A pod set's topologyRequest in words: "required cloud.com/rack, slices of
// 2 within kubernetes.io/hostname, group g".
std::string TopologyRequestText(const Json& request) {
  std::vector<std::string> parts;
  if (std::string v = Text(request, {"required"}); !v.empty()) parts.push_back("required " + v);
  if (std::string v = Text(request, {"preferred"}); !v.empty()) parts.push_back("preferred " + v);
  if (const Json* v = Field(request, {"unconstrained"}); v != nullptr && *v == true) {
    parts.push_back("unconstrained");
  }
  if (std::string v = Text(request, {"podSetSliceRequiredTopology"}); !v.empty()) {
    parts.push_back("slices of " + Inline(Field(request, {"podSetSliceSize"})) + " within " + v);
  }
  if (std::string v = Text(request, {"podSetGroupName"}); !v.empty()) parts.push_back("group " + v);
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return OrNone(out);
}

// A pod set assignment's topologyAssignment (v1beta1's domains):
// "cloud.com/rack, kubernetes.io/hostname: (r1, node-1) x2, (r1, node-2) x1",
// the first domains only.
std::string TopologyAssignmentText(const Json& assignment) {
  constexpr size_t kShown = 8;
  auto joined = [](const Json* list) {
    std::string out;
    if (list == nullptr || !list->is_array()) return out;
    for (const Json& v : *list) out += (out.empty() ? "" : ", ") + Inline(&v);
    return out;
  };
  const Json* levels = Field(assignment, {"levels"});
  const bool several = levels != nullptr && levels->is_array() && levels->size() > 1;
  std::string out = joined(levels) + ":";
  const Json* domains = Field(assignment, {"domains"});
  const size_t n = domains != nullptr && domains->is_array() ? domains->size() : 0;
  for (size_t i = 0; i < std::min(n, kShown); ++i) {
    const Json& d = (*domains)[i];
    std::string values = joined(Field(d, {"values"}));
    if (several) values = "(" + values + ")";
    out += (i == 0 ? " " : ", ") + values + " x" + Inline(Field(d, {"count"}));
  }
  if (n > kShown) out += ", ... (" + std::to_string(n) + " domains)";
  if (n == 0) out += " <none>";
  return out;
}

void DescribeWorkload(std::string& out, const Json& wl, const MultiKueueChecks& multikueue) {
  Line(out, "Queue", OrNone(Text(wl, {"spec", "queueName"})));
  std::string priority = Text(wl, {"spec", "priorityClassName"});
  if (const Json* p = Field(wl, {"spec", "priority"}); p != nullptr && p->is_number()) {
    priority += (priority.empty() ? "" : " ") + std::string("(") + p->dump() + ")";
  }
  Line(out, "Priority", OrNone(priority));
  const Json* active = Field(wl, {"spec", "active"});
  Line(out, "Active",
       active != nullptr && active->is_boolean() && !active->get<bool>()
           ? "false (stopped: kuota resume workload)"
           : "true");
  const Json* owners = Field(wl, {"metadata", "ownerReferences"});
  if (owners != nullptr && owners->is_array() && !owners->empty()) {
    Line(out, "Owner", Text((*owners)[0], {"kind"}) + "/" + Text((*owners)[0], {"name"}));
  }
  Rows rows = {{"POD SET", "COUNT", "REQUESTS (per pod)"}};
  const Json* pod_sets = Field(wl, {"spec", "podSets"});
  if (pod_sets != nullptr && pod_sets->is_array()) {
    for (const Json& ps : *pod_sets) {
      const Json* spec = Field(ps, {"template", "spec"});
      rows.push_back({Text(ps, {"name"}), Inline(Field(ps, {"count"})),
                      spec != nullptr ? TemplateRequests(*spec) : "<none>"});
    }
  }
  out += "Pod sets:\n" + AlignColumns(rows, "  ");
  if (pod_sets != nullptr && pod_sets->is_array()) {
    for (const Json& ps : *pod_sets) {
      if (const Json* req = Field(ps, {"topologyRequest"}); req != nullptr && req->is_object()) {
        Line(out, "Topology request", Text(ps, {"name"}) + ": " + TopologyRequestText(*req));
      }
    }
  }
  const Json* admission = Field(wl, {"status", "admission"});
  if (admission != nullptr && admission->is_object()) {
    out += "Admission:\n";
    Line(out, "ClusterQueue", Text(*admission, {"clusterQueue"}), 2);
    const Json* psa = Field(*admission, {"podSetAssignments"});
    if (psa != nullptr && psa->is_array()) {
      for (const Json& a : *psa) {
        Line(out, "Pod set " + Text(a, {"name"}),
             "flavors " + ResourceList(Field(a, {"flavors"})) + "; usage " +
                 ResourceList(Field(a, {"resourceUsage"})),
             2);
        if (const Json* ta = Field(a, {"topologyAssignment"}); ta != nullptr && ta->is_object()) {
          Line(out, "Topology", TopologyAssignmentText(*ta), 4);
        }
      }
    }
  }
  if (const Json* rq = Field(wl, {"status", "requeueState"}))
    Line(out, "Requeue state", Inline(rq));
  // Where MultiKueue dispatched it (multikueue_placement.h).
  if (std::optional<MultiKueuePlacement> mk = FindMultiKueuePlacement(wl, multikueue)) {
    out += "MultiKueue:\n";
    for (const auto& [label, value] : MultiKueueLines(*mk)) Line(out, label, value, 2);
  }
}

void DescribeJob(std::string& out, const Json& job) {
  Line(out, "Queue", OrNone(Text(job, {"metadata", "labels", "kueue.x-k8s.io/queue-name"})));
  std::string pc = Text(job, {"metadata", "labels", "kueue.x-k8s.io/priority-class"});
  if (!pc.empty()) Line(out, "Priority class", pc);
  const Json* suspend = Field(job, {"spec", "suspend"});
  Line(out, "Suspended",
       suspend != nullptr && suspend->is_boolean() && suspend->get<bool>()
           ? "true (waiting for admission)"
           : "false");
  Line(out, "Parallelism", Inline(Field(job, {"spec", "parallelism"})));
  Line(out, "Completions", Inline(Field(job, {"spec", "completions"})));
  Line(out, "Completion mode", Text(job, {"spec", "completionMode"}, "NonIndexed"));
  Line(out, "Backoff limit", Inline(Field(job, {"spec", "backoffLimit"})));
  const Json* containers = Field(job, {"spec", "template", "spec", "containers"});
  if (containers != nullptr && containers->is_array()) {
    for (const Json& c : *containers) {
      out += "Container " + Text(c, {"name"}) + ":\n";
      Line(out, "Command", CommandLine(c), 2);
      if (const Json* wd = Field(c, {"workingDir"})) Line(out, "Working dir", Inline(wd), 2);
      Line(out, "Requests", ResourceList(Field(c, {"resources", "requests"})), 2);
    }
  }
  Line(out, "Pods",
       "active " + std::to_string(Int(job, {"status", "active"})) + ", succeeded " +
           std::to_string(Int(job, {"status", "succeeded"})) + ", failed " +
           std::to_string(Int(job, {"status", "failed"})));
  if (const Json* t = Field(job, {"status", "startTime"})) Line(out, "Started", Inline(t));
  if (const Json* t = Field(job, {"status", "completionTime"})) Line(out, "Completed", Inline(t));
}

// Which GPUs kuotad gave the pod and why: its kuota.dev/GPUPlacement
// condition (standalone::kGpuPlacementCondition); "" when it has none.
std::string GpuPlacement(const Json& pod) {
  const Json* conditions = Field(pod, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return "";
  for (const Json& c : *conditions) {
    if (Text(c, {"type"}) == "kuota.dev/GPUPlacement") return Text(c, {"message"});
  }
  return "";
}

void DescribePod(std::string& out, const Json& pod) {
  Line(out, "Phase", OrNone(Text(pod, {"status", "phase"})));
  if (const Json* t = Field(pod, {"status", "startTime"})) Line(out, "Started", Inline(t));
  if (std::string gpus = GpuPlacement(pod); !gpus.empty()) Line(out, "GPUs", gpus);
  const Json* containers = Field(pod, {"spec", "containers"});
  const Json* statuses = Field(pod, {"status", "containerStatuses"});
  if (containers == nullptr || !containers->is_array()) return;
  for (const Json& c : *containers) {
    const std::string name = Text(c, {"name"});
    out += "Container " + name + ":\n";
    Line(out, "Command", CommandLine(c), 2);
    Line(out, "Requests", ResourceList(Field(c, {"resources", "requests"})), 2);
    if (statuses == nullptr || !statuses->is_array()) continue;
    for (const Json& s : *statuses) {
      if (Text(s, {"name"}) != name) continue;
      const Json* state = Field(s, {"state"});
      if (state != nullptr && state->is_object() && !state->empty()) {
        auto first = state->begin();
        const std::string which = first.key();
        const Json& detail = first.value();
        std::string text = which;
        if (const Json* code = Field(detail, {"exitCode"})) text += ", exit code " + Inline(code);
        if (const Json* reason = Field(detail, {"reason"})) text += " (" + Inline(reason) + ")";
        Line(out, "State", text, 2);
      }
      Line(out, "Restarts", Inline(Field(s, {"restartCount"})), 2);
    }
  }
}

std::string Conditions(const Json& object, Time now) {
  const Json* conditions = Field(object, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array() || conditions->empty()) {
    return "Conditions:  <none>\n";
  }
  Rows rows = {{"TYPE", "STATUS", "REASON", "AGE", "MESSAGE"}};
  for (const Json& c : *conditions) {
    std::string since = Text(c, {"lastTransitionTime"}, Text(c, {"lastProbeTime"}));
    rows.push_back({Text(c, {"type"}), Text(c, {"status"}), Text(c, {"reason"}),
                    since.empty() ? "" : AgeSince(since, now), Text(c, {"message"})});
  }
  return "Conditions:\n" + AlignColumns(rows, "  ");
}

std::string Events(const Json& events, Time now) {
  std::vector<Json> items;
  const Json* list = Field(events, {"items"});
  if (list != nullptr && list->is_array()) items.assign(list->begin(), list->end());
  if (items.empty()) return "Events:  <none>\n";
  auto when = [](const Json& e) {
    return Text(e, {"lastTimestamp"},
                Text(e, {"eventTime"}, Text(e, {"metadata", "creationTimestamp"})));
  };
  std::stable_sort(items.begin(), items.end(),
                   [&](const Json& a, const Json& b) { return when(a) < when(b); });
  Rows rows = {{"TYPE", "REASON", "AGE", "FROM", "MESSAGE"}};
  for (const Json& e : items) {
    std::string age = AgeSince(when(e), now);
    if (int64_t count = Int(e, {"count"}, 1); count > 1) {
      age += " (x" + std::to_string(count) + ")";
    }
    rows.push_back({Text(e, {"type"}), Text(e, {"reason"}), age,
                    Text(e, {"source", "component"}, Text(e, {"reportingComponent"})),
                    Text(e, {"message"})});
  }
  return "Events:\n" + AlignColumns(rows, "  ");
}

struct DescribeFlags {
  std::string kind;
  std::string name;
  std::string ns = "default";
  ServerFlags server;
};

int RunDescribe(const DescribeFlags& f) {
  const KindInfo* kind = FindKind(f.kind);
  if (kind == nullptr) {
    PrintError("describe", "unknown resource type \"" + f.kind + "\"; known: " + KnownKindsText());
    return 2;
  }
  std::optional<ApiClient> client = Connect("describe", f.server);
  if (!client) return 1;
  Result<Json> object = client->Get(kind->ObjectPath(f.ns, f.name));
  if (!object.ok()) {
    PrintError("describe", object.status().message());
    return 1;
  }
  std::string selector = "involvedObject.kind=" + kind->kind + ",involvedObject.name=" + f.name;
  if (kind->namespaced) selector += ",involvedObject.namespace=" + f.ns;
  Result<Json> events = client->Get("/api/v1/events?fieldSelector=" + UrlEncode(selector));
  // A Workload's MultiKueue checks; without them (not readable) the placement
  // is read from the Workload alone.
  MultiKueueChecks multikueue;
  if (kind->kind == "Workload") {
    Result<MultiKueueChecks> checks = FetchMultiKueueChecks(*client);
    if (checks.ok()) multikueue = std::move(*checks);
  }
  std::string text = DescribeObject(*kind, *object, events.ok() ? *events : Json::object(),
                                    RealClock().Now(), multikueue);
  if (!events.ok()) text += "(events unavailable: " + events.status().message() + ")\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

std::string DescribeObject(const KindInfo& kind, const Json& object, const Json& events, Time now,
                           const MultiKueueChecks& multikueue) {
  std::string out;
  Line(out, "Name", Text(object, {"metadata", "name"}));
  if (kind.namespaced) Line(out, "Namespace", Text(object, {"metadata", "namespace"}));
  Line(out, "Kind",
       kind.kind + " (" + (kind.group.empty() ? kind.version : kind.group + "/" + kind.version) +
           ")");
  out += "Labels:           " + Labels(object) + "\n";
  const std::string created = Text(object, {"metadata", "creationTimestamp"});
  Line(out, "Created",
       created.empty() ? "<unknown>" : created + " (" + AgeSince(created, now) + " ago)");
  if (kind.kind == "ClusterQueue") {
    DescribeClusterQueue(out, object);
  } else if (kind.kind == "LocalQueue") {
    DescribeLocalQueue(out, object);
  } else if (kind.kind == "Workload") {
    DescribeWorkload(out, object, multikueue);
  } else if (kind.kind == "Job") {
    DescribeJob(out, object);
  } else if (kind.kind == "Pod") {
    DescribePod(out, object);
  } else {
    // The spec (or, for kinds without one, the other top-level fields).
    Json rest = object.is_object() ? object : Json::object();
    for (const char* drop : {"apiVersion", "kind", "metadata", "status"}) rest.erase(drop);
    if (!rest.empty()) {
      out += "Spec:\n";
      std::string yaml = ToYaml(rest);
      size_t pos = 0;
      while (pos < yaml.size()) {
        size_t nl = yaml.find('\n', pos);
        if (nl == std::string::npos) nl = yaml.size();
        out += "  " + yaml.substr(pos, nl - pos) + "\n";
        pos = nl + 1;
      }
    }
  }
  out += Conditions(object, now);
  out += Events(events, now);
  return out;
}

void AddDescribeCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<DescribeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "describe",
      "Show one object readably: its essentials (quotas and usage for a ClusterQueue, pod\n"
      "sets and admission for a Workload, command and resources for a Job), its status\n"
      "conditions with reasons and ages, and its Events.");
  cmd->footer("Kinds: " + KnownKindsText() +
              "\n\n"
              "Examples:\n"
              "  kuota describe cq team-a-cq\n"
              "  kuota describe workload job-train-1-3f2a1 -n team-a\n"
              "  kuota describe job train-1");
  cmd->add_option("kind", flags->kind, "Kind, plural or short name (cq, lq, wl, job, pod...)")
      ->required();
  cmd->add_option("name", flags->name, "The object's name")->required();
  AddNamespaceFlag(cmd, &flags->ns);
  AddServerFlags(cmd, &flags->server);
  cmd->callback([flags, exit_code]() {
    *exit_code = RunGuarded("describe", [&] { return RunDescribe(*flags); });
  });
}

}  // namespace kuota::cli
