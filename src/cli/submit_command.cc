#include "cli/submit_command.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <memory>

#include "api/quantity.h"
#include "api/validation/names.h"
#include "cli/output.h"
#include "cli/resource_kinds.h"
#include "cli/server_flags.h"
#include "cli/submit_kinds.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

constexpr const char* kQueueLabel = "kueue.x-k8s.io/queue-name";
constexpr const char* kPriorityLabel = "kueue.x-k8s.io/priority-class";

Status Invalid(const std::string& flag, const std::string& message) {
  return Status::Invalid(flag + ": " + message);
}

// A positive quantity, or an error naming `flag`.
Status CheckQuantity(const std::string& flag, const std::string& text) {
  Result<api::Quantity> q = api::Quantity::Parse(text);
  if (!q.ok()) {
    return Invalid(flag, "invalid quantity \"" + text +
                             "\" (want e.g. 2, 500m, 4Gi): " + q.status().message());
  }
  if (q->milli() <= 0) return Invalid(flag, "must be greater than zero, got \"" + text + "\"");
  return Status::Ok();
}

// A Job name prefix from the program: "python3 train.py" -> "python3-".
std::string GenerateNamePrefix(const std::string& program) {
  std::string base = program.substr(
      program.find_last_of('/') == std::string::npos ? 0 : program.find_last_of('/') + 1);
  std::string out;
  for (char c : base) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) {
      out += l;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
    if (out.size() >= 40) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.empty() || !(out[0] >= 'a' && out[0] <= 'z'))
    out = "job" + (out.empty() ? "" : "-" + out);
  return out + "-";
}

// Kubernetes' environment variable names: [-._a-zA-Z][-._a-zA-Z0-9]*.
bool IsEnvName(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_') {
      return false;
    }
  }
  return true;
}

std::string CurrentDirectory() {
  std::vector<char> buf(4096);
  if (getcwd(buf.data(), buf.size()) == nullptr) return "";
  return buf.data();
}

}  // namespace

Result<Json> BuildSubmitJob(const SubmitOptions& o) {
  if (o.command.empty()) {
    return Status::Invalid("a command to run is required after --, e.g. kuota submit --queue " +
                           (o.queue.empty() ? std::string("QUEUE") : o.queue) +
                           " -- python3 train.py");
  }
  if (o.command[0].empty()) return Status::Invalid("the command's program name is empty");
  if (std::string e = validation::CheckLabelValue(o.queue); o.queue.empty() || !e.empty()) {
    return Invalid("--queue", o.queue.empty() ? "a LocalQueue name is required" : e);
  }
  if (std::string e = validation::CheckDns1123Label(o.ns); !e.empty()) return Invalid("-n", e);
  if (!o.name.empty()) {
    if (std::string e = validation::CheckDns1123Label(o.name); !e.empty()) {
      return Invalid("--name", e);
    }
  }
  KUOTA_RETURN_IF_ERROR(CheckQuantity("--cpu", o.cpu));
  if (!o.memory.empty()) KUOTA_RETURN_IF_ERROR(CheckQuantity("--memory", o.memory));
  if (o.gpus < 0) return Invalid("--gpus", "must be 0 or more, got " + std::to_string(o.gpus));
  if (!o.priority.empty()) {
    if (std::string e = validation::CheckDns1123Subdomain(o.priority); !e.empty()) {
      return Invalid("--priority", e);
    }
  }
  if (o.parallelism < 1) {
    return Invalid("--parallelism", "must be at least 1, got " + std::to_string(o.parallelism));
  }
  if (o.completions < 0) {
    return Invalid("--completions", "must be at least 1, got " + std::to_string(o.completions));
  }
  if (o.backoff_limit < 0) {
    return Invalid("--backoff-limit", "must be 0 or more, got " + std::to_string(o.backoff_limit));
  }
  Json env = Json::array();
  for (const std::string& kv : o.env) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos) return Invalid("--env", "want KEY=VALUE, got \"" + kv + "\"");
    std::string key = kv.substr(0, eq);
    if (!IsEnvName(key)) {
      return Invalid("--env", "invalid variable name \"" + key +
                                  "\" (letters, digits, '_', '-' and '.', not starting with a "
                                  "digit)");
    }
    env.push_back({{"name", key}, {"value", kv.substr(eq + 1)}});
  }

  Json resources = {{"cpu", o.cpu}};
  if (!o.memory.empty()) resources["memory"] = o.memory;
  if (o.gpus > 0) resources["nvidia.com/gpu"] = std::to_string(o.gpus);
  Json container = {{"name", "main"},
                    {"image", "local"},
                    {"command", o.command},
                    {"resources", {{"requests", resources}, {"limits", resources}}}};
  if (!env.empty()) container["env"] = env;
  if (!o.workdir.empty()) {
    container["workingDir"] =
        o.workdir[0] == '/' ? o.workdir : CurrentDirectory() + "/" + o.workdir;
  }
  Json labels = {{kQueueLabel, o.queue}};
  if (!o.priority.empty()) labels[kPriorityLabel] = o.priority;
  Json metadata = {{"namespace", o.ns}, {"labels", labels}};
  if (o.name.empty()) {
    metadata["generateName"] = GenerateNamePrefix(o.command[0]);
  } else {
    metadata["name"] = o.name;
  }
  const int64_t completions = o.completions > 0 ? o.completions : o.parallelism;
  Json spec = {
      {"parallelism", o.parallelism},
      {"completions", completions},
      {"backoffLimit", o.backoff_limit},
      {"template",
       {{"spec", {{"restartPolicy", "Never"}, {"containers", Json::array({container})}}}}}};
  if (o.indexed) spec["completionMode"] = "Indexed";
  return Json{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", metadata}, {"spec", spec}};
}

Result<Json> BuildSubmitObject(const SubmitOptions& o) {
  Result<Json> job = BuildSubmitJob(o);
  if (!job.ok()) return job;
  return ReshapeSubmitJob(o.kind, *job);
}

namespace {

struct SubmitFlags {
  SubmitOptions options;
  ServerFlags server;
  bool dry_run = false;
};

// Names of the objects in a list, for "choose one of" messages.
std::string NamesIn(const Result<Json>& list) {
  if (!list.ok()) return "";
  std::string out;
  for (const Json& item : list->value("items", Json::array())) {
    if (!out.empty()) out += ", ";
    out += item["metadata"].value("name", "");
  }
  return out;
}

// Checks that the queue and the priority class exist, so a typo is an error
// now rather than a Job that waits for ever.
Status CheckReferences(const ApiClient& client, const SubmitOptions& o) {
  const KindInfo& lq = *FindKind("localqueues");
  Result<Json> queue = client.Get(lq.ObjectPath(o.ns, o.queue));
  if (!queue.ok()) {
    if (queue.status().code() != StatusCode::kNotFound) return queue.status();
    std::string known = NamesIn(client.Get(lq.CollectionPath(o.ns)));
    return Status::NotFound(
        "--queue: LocalQueue \"" + o.queue + "\" not found in namespace \"" + o.ns + "\"" +
        (known.empty() ? " (it has none; see `kuota get lq -A`)" : "; its LocalQueues: " + known));
  }
  if (!o.priority.empty()) {
    const KindInfo& wpc = *FindKind("workloadpriorityclasses");
    Result<Json> pc = client.Get(wpc.ObjectPath("", o.priority));
    if (!pc.ok()) {
      if (pc.status().code() != StatusCode::kNotFound) return pc.status();
      std::string known = NamesIn(client.Get(wpc.CollectionPath("")));
      return Status::NotFound("--priority: WorkloadPriorityClass \"" + o.priority + "\" not found" +
                              (known.empty() ? " (there are none)" : "; there are: " + known));
    }
  }
  return Status::Ok();
}

}  // namespace

void AddSubmitCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<SubmitFlags>();
  SubmitOptions& o = flags->options;
  CLI::App* cmd = app.add_subcommand(
      "submit",
      "Submit a command as a batch/v1 Job to a Kueue LocalQueue. kuotad queues it as a\n"
      "Workload and starts it when the queue's quota admits it.");
  cmd->footer(
      "Each pod runs the command in container \"main\" (image \"local\"), with requests = limits\n"
      "for cpu, memory and nvidia.com/gpu, restartPolicy Never, in the current directory unless\n"
      "--workdir says otherwise. Indexed jobs see their index in JOB_COMPLETION_INDEX.\n\n"
      "Examples:\n"
      "  kuota submit --queue team-a -- python3 train.py --epochs 3\n"
      "  kuota submit --queue team-a --gpus 2 --cpu 8 --memory 32Gi --priority high \\\n"
      "      --name train-1 -- ./train.sh\n"
      "  kuota submit -q team-a --parallelism 4 --completions 8 --indexed -- ./shard.sh\n"
      "  kuota submit -q team-a --env EPOCHS=3 --dry-run -- python3 train.py   # print the Job\n"
      "  kuota submit -q team-a --kind pytorchjob --parallelism 2 --gpus 1 -- python3 ddp.py");
  cmd->add_option("-q,--queue", o.queue, "LocalQueue to submit to (kubectl get lq)")->required();
  cmd->add_option("--kind", o.kind,
                  "What to create: " + SubmitKindNames() +
                      " (pytorchjob, paddlejob, xgboostjob: 1 master + parallelism-1 workers, "
                      "with their operators' environment such as MASTER_ADDR, RANK, "
                      "WORLD_SIZE; vcjob: parallelism pods started together)")
      ->capture_default_str();
  AddNamespaceFlag(cmd, &o.ns);
  cmd->add_option("--name", o.name, "Job name (default: generated from the command)");
  cmd->add_option("--cpu", o.cpu, "CPU per pod (e.g. 2, 500m)")->capture_default_str();
  cmd->add_option("--memory", o.memory, "Memory per pod (e.g. 4Gi, 512Mi); default: none");
  cmd->add_option("--gpus", o.gpus, "GPUs (nvidia.com/gpu) per pod")->capture_default_str();
  cmd->add_option("--priority", o.priority, "WorkloadPriorityClass name");
  cmd->add_option("--parallelism", o.parallelism, "Pods running at once")->capture_default_str();
  cmd->add_option("--completions", o.completions,
                  "Successful pods needed (default: as --parallelism)");
  cmd->add_flag("--indexed", o.indexed,
                "Indexed completion mode: pod i gets JOB_COMPLETION_INDEX=i");
  cmd->add_option("--backoff-limit", o.backoff_limit, "Pod failures before the Job fails")
      ->capture_default_str();
  cmd->add_option("-e,--env", o.env, "Environment variable KEY=VALUE (repeatable)");
  cmd->add_option("--workdir", o.workdir,
                  "Working directory of the command (default: the current directory)");
  cmd->add_flag("--dry-run", flags->dry_run, "Print the Job as YAML instead of creating it");
  AddServerFlags(cmd, &flags->server);
  cmd->add_option("command", o.command, "The command and its arguments, after --");
  cmd->positionals_at_end();
  cmd->callback([flags, exit_code]() {
    SubmitOptions& o = flags->options;
    if (o.workdir.empty()) o.workdir = CurrentDirectory();
    Result<Json> job = BuildSubmitObject(o);
    if (!job.ok()) {
      PrintError("submit", job.status().message());
      *exit_code = 2;
      return;
    }
    if (flags->dry_run) {
      std::string yaml = ToYaml(*job);
      std::fwrite(yaml.data(), 1, yaml.size(), stdout);
      *exit_code = 0;
      return;
    }
    std::optional<ApiClient> client = Connect("submit", flags->server);
    if (!client) {
      *exit_code = 1;
      return;
    }
    if (Status st = CheckReferences(*client, o); !st.ok()) {
      PrintError("submit", st.message());
      *exit_code = 1;
      return;
    }
    const std::string api_version = job->value("apiVersion", "");
    const KindInfo* kind = nullptr;
    for (const KindInfo& k : Kinds()) {
      const std::string gv = k.group.empty() ? k.version : k.group + "/" + k.version;
      if (k.kind == job->value("kind", "") && gv == api_version) kind = &k;
    }
    if (kind == nullptr) {
      PrintError("submit", "internal: no API path for " + api_version);
      *exit_code = 1;
      return;
    }
    Result<Json> created = client->Create(kind->CollectionPath(o.ns), *job);
    if (!created.ok()) {
      PrintError("submit", created.status().message());
      *exit_code = 1;
      return;
    }
    const std::string name = (*created)["metadata"].value("name", "");
    const std::string ns_flag = o.ns == "default" ? "" : " -n " + o.ns;
    if (kind->group != "batch") {
      const std::string what = kind->QualifiedName(name);
      std::printf(
          "%s created in queue %s (namespace %s)\n"
          "  kuota get wl%s         # its Workload, and why it waits\n"
          "  kuota get pods%s       # its pods; kuota logs POD for their output\n",
          what.c_str(), o.queue.c_str(), o.ns.c_str(), ns_flag.c_str(), ns_flag.c_str());
      *exit_code = 0;
      return;
    }
    std::printf(
        "job.batch/%s created in queue %s (namespace %s)\n"
        "  kuota why %s%s        # its state, and why it waits\n"
        "  kuota logs -f %s%s    # follow its output\n",
        name.c_str(), o.queue.c_str(), o.ns.c_str(), name.c_str(), ns_flag.c_str(), name.c_str(),
        ns_flag.c_str());
    *exit_code = 0;
  });
}

}  // namespace kuota::cli
