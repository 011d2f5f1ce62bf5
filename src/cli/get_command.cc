#include "cli/get_command.h"

#include <cstdio>
#include <memory>

#include "base/clock.h"
#include "base/url_encode.h"
#include "cli/multikueue_cluster_table.h"
#include "cli/output.h"
#include "cli/resource_kinds.h"
#include "cli/server_flags.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

struct GetFlags {
  std::string kind;
  std::string name;
  std::string ns = "default";
  bool all_namespaces = false;
  std::string output;
  std::string selector;
  bool no_headers = false;
  ServerFlags server;
};

void Print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

// The MultiKueueClusters at `path` as a table built here: the server's has
// no workload counts (multikueue_cluster_table.h). The Workloads are listed
// across namespaces; when that fails (forbidden, say) the counts are "?".
Result<Json> MultiKueueClusters(const ApiClient& client, const std::string& path,
                                const GetFlags& f) {
  Result<Json> got = client.Get(path);
  if (!got.ok()) return got.status();
  const Json clusters = f.name.empty() ? got->value("items", Json::array()) : Json::array({*got});
  Result<Json> workloads = client.Get(FindKind("workloads")->CollectionPath(""));
  std::optional<Json> items;
  if (workloads.ok()) items = workloads->value("items", Json::array());
  return MultiKueueClusterTable(clusters, items, RealClock().Now());
}

int RunGet(const GetFlags& f) {
  const KindInfo* kind = FindKind(f.kind);
  if (kind == nullptr) {
    PrintError("get", "unknown resource type \"" + f.kind + "\"; known: " + KnownKindsText());
    return 2;
  }
  if (f.all_namespaces && !f.name.empty()) {
    PrintError("get", "a resource cannot be retrieved by name across all namespaces (drop -A)");
    return 2;
  }
  std::optional<ApiClient> client = Connect("get", f.server);
  if (!client) return 1;
  const bool all = f.all_namespaces || !kind->namespaced;
  std::string path;
  if (!f.name.empty()) {
    path = kind->ObjectPath(f.ns, f.name);
  } else {
    path = kind->CollectionPath(f.all_namespaces ? "" : f.ns);
    if (!f.selector.empty()) path += "?labelSelector=" + UrlEncode(f.selector);
  }
  if (f.output.empty() || f.output == "wide") {
    Result<Json> table = kind->kind == "MultiKueueCluster" ? MultiKueueClusters(*client, path, f)
                                                           : client->GetTable(path);
    if (!table.ok()) {
      PrintError("get", table.status().message());
      return 1;
    }
    if (table->value("rows", Json::array()).empty()) {
      std::fprintf(stderr, "No resources found%s.\n",
                   all ? "" : (" in " + f.ns + " namespace").c_str());
      return 0;
    }
    TableFormat format;
    format.wide = f.output == "wide";
    format.with_namespace = f.all_namespaces && kind->namespaced;
    format.headers = !f.no_headers;
    Print(FormatTable(*table, format));
    return 0;
  }
  Result<Json> got = client->Get(path);
  if (!got.ok()) {
    PrintError("get", got.status().message());
    return 1;
  }
  Json document = *got;
  const bool is_list = f.name.empty();
  if (is_list) {
    Json items = Json::array();
    for (Json item : got->value("items", Json::array())) {
      if (!item.contains("apiVersion")) {
        item["apiVersion"] =
            kind->group.empty() ? kind->version : kind->group + "/" + kind->version;
      }
      if (!item.contains("kind")) item["kind"] = kind->kind;
      items.push_back(std::move(item));
    }
    document = {{"apiVersion", "v1"},
                {"kind", "List"},
                {"metadata", {{"resourceVersion", ""}}},
                {"items", items}};
  }
  if (f.output == "name") {
    const Json items = is_list ? document["items"] : Json::array({document});
    for (const Json& item : items) {
      Print(kind->QualifiedName(item["metadata"].value("name", "")) + "\n");
    }
    return 0;
  }
  Print(f.output == "json" ? document.dump(4) + "\n" : ToYaml(document));
  return 0;
}

}  // namespace

void AddGetCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<GetFlags>();
  CLI::App* cmd = app.add_subcommand(
      "get",
      "List objects on kuotad as a table with the columns kubectl shows for them\n"
      "(Kueue's printer columns for its kinds), or print them as YAML or JSON.");
  cmd->footer("Kinds: " + KnownKindsText() +
              "\n\n"
              "Examples:\n"
              "  kuota get cq                       # ClusterQueues: cohort, pending, admitted\n"
              "  kuota get lq -A                    # LocalQueues in every namespace\n"
              "  kuota get workloads -n team-a -o wide\n"
              "  kuota get jobs -l team=a\n"
              "  kuota get mkc -o wide              # MultiKueue workers: connected, workloads\n"
              "  kuota get clusterqueue cq-a -o yaml");
  cmd->add_option("kind", flags->kind, "What to list: a kind, plural or short name (cq, lq, wl...)")
      ->required();
  cmd->add_option("name", flags->name, "One object's name (default: all)");
  AddNamespaceFlag(cmd, &flags->ns);
  cmd->add_flag("-A,--all-namespaces", flags->all_namespaces, "List across all namespaces");
  cmd->add_option("-o,--output", flags->output, "Output format: wide, yaml, json or name")
      ->check(CLI::IsMember({"wide", "yaml", "json", "name"}));
  cmd->add_option("-l,--selector", flags->selector, "Label selector, e.g. team=a,tier!=dev");
  cmd->add_flag("--no-headers", flags->no_headers, "Print the table without its header line");
  AddServerFlags(cmd, &flags->server);
  cmd->callback(
      [flags, exit_code]() { *exit_code = RunGuarded("get", [&] { return RunGet(*flags); }); });
}

}  // namespace kuota::cli
