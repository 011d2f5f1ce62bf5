#include "cli/why_command.h"

#include <cstdio>
#include <memory>
#include <optional>

#include "cli/fields.h"
#include "cli/multikueue_placement.h"
#include "cli/resource_kinds.h"
#include "cli/server_flags.h"
#include "cli/workload_lookup.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

void LabeledLine(std::string& out, const std::string& label, const std::string& value) {
  std::string head = "  " + label + ":";
  if (head.size() < 17) head.append(17 - head.size(), ' ');
  out += head + value + "\n";
}

// "reason: message" of a condition, either part may be empty.
std::string ReasonAndMessage(const Json* c) {
  if (c == nullptr) return "";
  std::string reason = Text(*c, {"reason"}), message = Text(*c, {"message"});
  if (reason.empty()) return message;
  if (message.empty()) return reason;
  return reason + ": " + message;
}

std::string Ordinal(int64_t position0) { return std::to_string(position0 + 1); }

struct WhyFlags {
  std::string name;
  std::string ns = "default";
  ServerFlags server;
};

int RunWhy(const WhyFlags& f) {
  std::optional<ApiClient> client = Connect("why", f.server);
  if (!client) return 1;
  Result<WorkloadLookup> found = FindWorkload(*client, f.ns, f.name);
  if (!found.ok()) {
    PrintError("why", found.status().message());
    return 1;
  }
  const Json& wl = found->workload;
  const std::string wl_name = Text(wl, {"metadata", "name"});
  const std::string lq_name = Text(wl, {"spec", "queueName"});
  std::string out = "Workload " + f.ns + "/" + wl_name;
  if (!found->job_name.empty()) out += " (for Job " + found->job_name + ")";
  out += "\n";

  // The queues it goes through.
  std::string cq_name = Text(wl, {"status", "admission", "clusterQueue"});
  Result<Json> lq = client->Get(FindKind("localqueues")->ObjectPath(f.ns, lq_name));
  if (lq.ok() && cq_name.empty()) cq_name = Text(*lq, {"spec", "clusterQueue"});
  Result<Json> cq = cq_name.empty()
                        ? Result<Json>(Status::NotFound("no ClusterQueue"))
                        : client->Get(FindKind("clusterqueues")->ObjectPath("", cq_name));

  // Its MultiKueue check, when it has one (multikueue_placement.h).
  std::optional<MultiKueuePlacement> multikueue;
  if (Field(wl, {"status", "admissionChecks"}) != nullptr ||
      Field(wl, {"status", "clusterName"}) != nullptr) {
    Result<MultiKueueChecks> checks = FetchMultiKueueChecks(*client);
    multikueue = FindMultiKueuePlacement(wl, checks.ok() ? *checks : MultiKueueChecks{});
  }

  const Json* active = Field(wl, {"spec", "active"});
  const bool inactive = active != nullptr && active->is_boolean() && !active->get<bool>();
  const Json* quota = Condition(wl, "QuotaReserved");
  const Json* evicted = Condition(wl, "Evicted");
  std::string state, why;
  bool pending = false;
  if (ConditionTrue(wl, "Finished")) {
    state = "finished";
    why = ReasonAndMessage(Condition(wl, "Finished"));
  } else if (inactive) {
    state = ConditionTrue(wl, "QuotaReserved") ? "inactive (being evicted)" : "inactive";
    why = "spec.active is false: it is stopped; `kuota resume workload " + wl_name +
          (f.ns == "default" ? "" : " -n " + f.ns) + "` lets it be scheduled again";
  } else if (ConditionTrue(wl, "Admitted")) {
    state = "admitted";
    why = ReasonAndMessage(Condition(wl, "Admitted"));
  } else if (ConditionTrue(wl, "QuotaReserved")) {
    state = "quota reserved (waiting for admission checks)";
    why = ReasonAndMessage(quota);
    if (multikueue) {
      if (std::string wait = MultiKueueWaitReason(*multikueue); !wait.empty()) why = wait;
    }
  } else {
    pending = true;
    state = evicted != nullptr && Text(*evicted, {"status"}) == "True" ? "evicted, pending again"
                                                                       : "pending";
    why = quota != nullptr ? Text(*quota, {"message"}) : "";
    if (why.empty()) why = "not yet considered by the scheduler";
    if (evicted != nullptr && Text(*evicted, {"status"}) == "True") {
      LabeledLine(out, "Evicted", ReasonAndMessage(evicted));
    }
  }
  LabeledLine(out, "State", state);
  LabeledLine(out, "Why", why);

  std::string queue_line = "LocalQueue " + f.ns + "/" + (lq_name.empty() ? "<none>" : lq_name);
  if (!lq.ok() && !lq_name.empty()) queue_line += " (does not exist)";
  if (!cq_name.empty()) queue_line += " -> ClusterQueue " + cq_name;
  LabeledLine(out, "Queue", queue_line);
  std::string priority = Text(wl, {"spec", "priorityClassName"});
  if (const Json* p = Field(wl, {"spec", "priority"}); p != nullptr && p->is_number()) {
    priority += (priority.empty() ? "" : " ") + std::string("(") + p->dump() + ")";
  }
  if (!priority.empty()) LabeledLine(out, "Priority", priority);

  if (pending && lq.ok()) {
    // Kueue's visibility API: its place in the queues, in scheduling order.
    Result<Json> summary =
        client->Get("/apis/visibility.kueue.x-k8s.io/v1beta1/namespaces/" + f.ns + "/localqueues/" +
                    lq_name + "/pendingworkloads?limit=1000000");
    if (!summary.ok()) {
      LabeledLine(out, "Position",
                  summary.status().code() == StatusCode::kUnavailable
                      ? "unknown (this kuotad does not serve Kueue's visibility API)"
                      : "unknown (" + summary.status().message() + ")");
    } else {
      const Json* items = Field(*summary, {"items"});
      bool listed = false;
      if (items != nullptr && items->is_array()) {
        for (const Json& item : *items) {
          if (Text(item, {"metadata", "name"}) != wl_name) continue;
          listed = true;
          std::string text =
              Ordinal(Int(item, {"positionInClusterQueue"})) + " in ClusterQueue " + cq_name;
          if (cq.ok()) {
            text +=
                " (of " + std::to_string(Int(*cq, {"status", "pendingWorkloads"})) + " pending)";
          }
          text += ", " + Ordinal(Int(item, {"positionInLocalQueue"})) + " in LocalQueue " +
                  lq_name + " (1 = next to be considered)";
          LabeledLine(out, "Position", text);
          // Kuota's backfill reservation (docs/behaviour.md).
          if (const std::string start =
                  Text(item, {"metadata", "annotations", "kuota.dev/expected-start"});
              !start.empty()) {
            LabeledLine(out, "Expected start",
                        start + " (capacity is reserved for it: kuota.dev/backfill)");
          }
        }
      }
      if (!listed)
        LabeledLine(out, "Position", "not in the queue's pending list (being processed)");
    }
  }

  // Queues that hold it back.
  if (lq.ok()) {
    std::string stop = Text(*lq, {"spec", "stopPolicy"}, "None");
    if (stop != "None") {
      LabeledLine(out, "LocalQueue",
                  lq_name + " is stopped (stopPolicy " + stop + "): kuota resume localqueue " +
                      lq_name + (f.ns == "default" ? "" : " -n " + f.ns));
    }
  }
  if (cq.ok()) {
    const Json* cq_active = Condition(*cq, "Active");
    if (cq_active != nullptr && Text(*cq_active, {"status"}) != "True") {
      LabeledLine(out, "ClusterQueue", cq_name + " is inactive: " + ReasonAndMessage(cq_active));
    }
    std::string stop = Text(*cq, {"spec", "stopPolicy"}, "None");
    if (stop != "None") {
      LabeledLine(
          out, "ClusterQueue",
          cq_name + " is stopped (stopPolicy " + stop + "): kuota resume clusterqueue " + cq_name);
    }
  } else if (!cq_name.empty()) {
    LabeledLine(out, "ClusterQueue", cq_name + " does not exist");
  }

  // Where it runs.
  const Json* admission = Field(wl, {"status", "admission"});
  if (admission != nullptr && admission->is_object()) {
    std::string text = "ClusterQueue " + Text(*admission, {"clusterQueue"});
    const Json* psa = Field(*admission, {"podSetAssignments"});
    if (psa != nullptr && psa->is_array()) {
      for (const Json& a : *psa) {
        text += "; pod set " + Text(a, {"name"});
        if (const Json* count = Field(a, {"count"}); count != nullptr && count->is_number()) {
          text += " (" + count->dump() + (count->dump() == "1" ? " pod)" : " pods)");
        }
        const Json* flavors = Field(a, {"flavors"});
        if (flavors != nullptr && flavors->is_object()) {
          std::string list;
          for (const auto& [res, flavor] : flavors->items()) {
            if (!list.empty()) list += ", ";
            list += res + " on " + (flavor.is_string() ? flavor.get<std::string>() : flavor.dump());
          }
          text += ": " + list;
        }
      }
    }
    LabeledLine(out, "Admission", text);
  }
  if (multikueue && !multikueue->cluster.empty()) {
    LabeledLine(out, "Runs on", "worker cluster " + multikueue->cluster + " (MultiKueue)");
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

void AddWhyCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<WhyFlags>();
  CLI::App* cmd = app.add_subcommand(
      "why",
      "Explain a workload: its state (pending, quota reserved, admitted, finished, evicted,\n"
      "inactive), why it waits (the scheduler's reason, or the MultiKueue workers it waits\n"
      "on), its position in its ClusterQueue and LocalQueue, queues that hold it back, and\n"
      "the flavors (and MultiKueue worker) it was admitted on.");
  cmd->footer(
      "NAME is a Workload, or a Job (whose Workload kuotad names job-<name>-<hash>).\n\n"
      "Examples:\n"
      "  kuota why train-1                 # a Job submitted with kuota submit --name train-1\n"
      "  kuota why job-train-1-3f2a1 -n team-a");
  cmd->add_option("name", flags->name, "Workload or Job name")->required();
  AddNamespaceFlag(cmd, &flags->ns);
  AddServerFlags(cmd, &flags->server);
  cmd->callback(
      [flags, exit_code]() { *exit_code = RunGuarded("why", [&] { return RunWhy(*flags); }); });
}

}  // namespace kuota::cli
