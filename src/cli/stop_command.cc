#include "cli/stop_command.h"

#include <cstdio>
#include <memory>

#include "cli/fields.h"
#include "cli/resource_kinds.h"
#include "cli/server_flags.h"
#include "cli/workload_lookup.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

struct StopFlags {
  std::string kind;
  std::string name;
  std::string ns = "default";
  bool drain = false;
  ServerFlags server;
};

int RunStop(const StopFlags& f, bool stop) {
  const char* command = stop ? "stop" : "resume";
  const KindInfo* kind = FindKind(f.kind);
  if (kind == nullptr || (kind->kind != "Workload" && kind->kind != "ClusterQueue" &&
                          kind->kind != "LocalQueue" && kind->kind != "Job")) {
    PrintError(command, "cannot " + std::string(command) + " \"" + f.kind +
                            "\": want workload (wl), clusterqueue (cq) or localqueue (lq)");
    return 2;
  }
  const bool workload = kind->kind == "Workload" || kind->kind == "Job";
  if (f.drain && (!stop || workload)) {
    PrintError(command, "--drain applies to `kuota stop clusterqueue|localqueue` only");
    return 2;
  }
  std::optional<ApiClient> client = Connect(command, f.server);
  if (!client) return 1;
  if (workload) {
    Result<WorkloadLookup> found = FindWorkload(*client, f.ns, f.name);
    if (!found.ok()) {
      PrintError(command, found.status().message());
      return 1;
    }
    const std::string name = Text(found->workload, {"metadata", "name"});
    const KindInfo& wl = *FindKind("workloads");
    Result<Json> patched =
        client->MergePatch(wl.ObjectPath(f.ns, name), {{"spec", {{"active", !stop}}}});
    if (!patched.ok()) {
      PrintError(command, patched.status().message());
      return 1;
    }
    std::printf(
        "%s %s (spec.active=%s)%s\n", wl.QualifiedName(name).c_str(), stop ? "stopped" : "resumed",
        stop ? "false" : "true",
        stop ? ": evicted if it was admitted, not scheduled until resumed" : ": it queues again");
    return 0;
  }
  const std::string policy = !stop ? "None" : f.drain ? "HoldAndDrain" : "Hold";
  Result<Json> patched =
      client->MergePatch(kind->ObjectPath(f.ns, f.name), {{"spec", {{"stopPolicy", policy}}}});
  if (!patched.ok()) {
    PrintError(command, patched.status().message());
    return 1;
  }
  const char* effect = !stop     ? "admits workloads again"
                       : f.drain ? "admits no new workloads, and evicts the admitted ones"
                                 : "admits no new workloads; admitted ones keep running";
  std::printf("%s %s (stopPolicy: %s): it %s\n", kind->QualifiedName(f.name).c_str(),
              stop ? "stopped" : "resumed", policy.c_str(), effect);
  return 0;
}

void AddOne(CLI::App& app, int* exit_code, bool stop) {
  auto flags = std::make_shared<StopFlags>();
  CLI::App* cmd = app.add_subcommand(
      stop ? "stop" : "resume",
      stop ? "Stop a ClusterQueue or LocalQueue (Kueue's stopPolicy: Hold, or HoldAndDrain\n"
             "with --drain, which also evicts what it admitted), or a Workload (spec.active\n"
             "false: evicted if admitted, then held)."
           : "Resume a ClusterQueue or LocalQueue (stopPolicy None) or a Workload\n"
             "(spec.active true).");
  cmd->footer(stop ? "NAME may also name a Job for `workload` (its Workload is stopped).\n\n"
                     "Examples:\n"
                     "  kuota stop cq team-a-cq             # no new admissions\n"
                     "  kuota stop lq team-a -n team-a --drain   # and evict what runs\n"
                     "  kuota stop workload train-1\n"
                     "  kuota resume cq team-a-cq"
                   : "Examples:\n"
                     "  kuota resume cq team-a-cq\n"
                     "  kuota resume lq team-a -n team-a\n"
                     "  kuota resume workload train-1");
  cmd->add_option("kind", flags->kind, "workload (wl), clusterqueue (cq) or localqueue (lq)")
      ->required();
  cmd->add_option("name", flags->name, "The object's name")->required();
  AddNamespaceFlag(cmd, &flags->ns);
  if (stop) {
    cmd->add_flag("--drain", flags->drain,
                  "HoldAndDrain: also evict the workloads the queue has admitted");
  }
  AddServerFlags(cmd, &flags->server);
  cmd->callback([flags, exit_code, stop]() {
    *exit_code = RunGuarded(stop ? "stop" : "resume", [&] { return RunStop(*flags, stop); });
  });
}

}  // namespace

void AddStopCommands(CLI::App& app, int* exit_code) {
  AddOne(app, exit_code, true);
  AddOne(app, exit_code, false);
}

}  // namespace kuota::cli
