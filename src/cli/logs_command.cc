#include "cli/logs_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "base/url_encode.h"
#include "cli/fields.h"
#include "cli/resource_kinds.h"
#include "cli/server_flags.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

constexpr const char* kJobNameLabel = "batch.kubernetes.io/job-name";

struct LogsFlags {
  std::string name;
  std::string ns = "default";
  std::string container;
  bool follow = false;
  int64_t tail = -1;
  bool prefix = false;
  ServerFlags server;
};

// Writes log bytes to stdout, whole lines at a time with "[pod] " in front
// when prefixing, so that several pods' lines do not mix. Thread-safe.
class Output {
 public:
  void Write(const std::string& prefix, std::string& pending, std::string_view data) {
    std::lock_guard<std::mutex> lock(mu_);
    if (prefix.empty()) {
      std::fwrite(data.data(), 1, data.size(), stdout);
      std::fflush(stdout);
      return;
    }
    pending.append(data);
    size_t start = 0, nl;
    while ((nl = pending.find('\n', start)) != std::string::npos) {
      std::string line = prefix + pending.substr(start, nl - start + 1);
      std::fwrite(line.data(), 1, line.size(), stdout);
      start = nl + 1;
    }
    pending.erase(0, start);
    std::fflush(stdout);
  }
  // The end of one stream: its last line, even without a newline.
  void Flush(const std::string& prefix, std::string& pending) {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending.empty()) return;
    std::string line = prefix + pending + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
    pending.clear();
  }
  void Note(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    std::fprintf(stderr, "%s\n", text.c_str());
  }

 private:
  std::mutex mu_;
};

std::string LogPath(const LogsFlags& f, const std::string& pod) {
  std::string path = FindKind("pods")->ObjectPath(f.ns, pod) + "/log";
  std::string query;
  if (!f.container.empty()) query += "&container=" + UrlEncode(f.container);
  if (f.follow) query += "&follow=true";
  if (f.tail >= 0) query += "&tailLines=" + std::to_string(f.tail);
  if (!query.empty()) path += "?" + query.substr(1);
  return path;
}

// Streams one pod's log to `out`.
Status StreamPod(const ApiClient& client, const LogsFlags& f, const std::string& pod,
                 const std::string& prefix, Output& out) {
  std::string pending;
  Status st = client.Stream(LogPath(f, pod), [&](std::string_view data) {
    out.Write(prefix, pending, data);
    return true;
  });
  out.Flush(prefix, pending);
  return st;
}

bool IsWaitingToStart(const Status& st) {
  return st.code() == StatusCode::kInvalid &&
         st.message().find("is waiting to start") != std::string::npos;
}

// The Job's pods, by name.
Result<std::vector<std::string>> JobPods(const ApiClient& client, const std::string& ns,
                                         const std::string& job) {
  std::vector<std::string> names;
  for (const char* label : {kJobNameLabel, "job-name"}) {
    Result<Json> list = client.Get(FindKind("pods")->CollectionPath(ns) +
                                   "?labelSelector=" + UrlEncode(std::string(label) + "=" + job));
    if (!list.ok()) return list.status();
    const Json* items = Field(*list, {"items"});
    if (items != nullptr && items->is_array()) {
      for (const Json& p : *items) names.push_back(Text(p, {"metadata", "name"}));
    }
    if (!names.empty()) break;
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool JobFinished(const Json& job) {
  return ConditionTrue(job, "Complete") || ConditionTrue(job, "Failed");
}

int JobLogs(const ApiClient& client, const LogsFlags& f, const Json& job) {
  Output out;
  const bool several =
      Int(job, {"spec", "parallelism"}, 1) > 1 || Int(job, {"spec", "completions"}, 1) > 1;
  const bool prefix = f.prefix || several;
  auto prefix_for = [&](const std::string& pod) { return prefix ? "[" + pod + "] " : ""; };
  const std::string why = "kuota why " + f.name + (f.ns == "default" ? "" : " -n " + f.ns);

  if (!f.follow) {
    Result<std::vector<std::string>> pods = JobPods(client, f.ns, f.name);
    if (!pods.ok()) {
      PrintError("logs", pods.status().message());
      return 1;
    }
    if (pods->empty()) {
      PrintError("logs", "Job " + f.ns + "/" + f.name + " has no pods yet (" + why + ")");
      return 1;
    }
    int code = 0;
    for (const std::string& pod : *pods) {
      Status st = StreamPod(client, f, pod, prefix_for(pod), out);
      if (IsWaitingToStart(st)) {
        out.Note("(" + pod + " has not started yet)");
        continue;
      }
      if (!st.ok()) {
        PrintError("logs", pod + ": " + st.message());
        code = 1;
      }
    }
    return code;
  }

  // Follow every pod of the Job as it appears, until the Job has finished and
  // every pod's stream has ended.
  struct Shared {
    std::mutex mu;
    std::set<std::string> running;  // pods being followed
    std::set<std::string> done;     // pods followed to the end
    std::set<std::string> waiting;  // pods not started yet
    std::string error;
  };
  auto shared = std::make_shared<Shared>();
  std::vector<std::thread> threads;
  const ServerTarget target = client.target();
  bool told_waiting = false;
  std::set<std::string> last_try;  // pods tried once more after the Job finished
  int code = 0;
  while (true) {
    Result<Json> current = client.Get(FindKind("jobs")->ObjectPath(f.ns, f.name));
    const bool gone = !current.ok() && current.status().code() == StatusCode::kNotFound;
    if (!current.ok() && !gone) {
      PrintError("logs", current.status().message());
      code = 1;
      break;
    }
    const bool finished = gone || JobFinished(*current);
    Result<std::vector<std::string>> pods = JobPods(client, f.ns, f.name);
    if (!pods.ok()) {
      PrintError("logs", pods.status().message());
      code = 1;
      break;
    }
    {
      std::lock_guard<std::mutex> lock(shared->mu);
      if (!shared->error.empty()) {
        PrintError("logs", shared->error);
        code = 1;
        break;
      }
      for (const std::string& pod : *pods) {
        if (shared->running.count(pod) || shared->done.count(pod)) continue;
        if (finished && shared->waiting.count(pod)) {
          // It had not started when last tried; once more now that the Job
          // has finished, then never again.
          if (!last_try.insert(pod).second) continue;
        }
        shared->running.insert(pod);
        threads.emplace_back([shared, target, f, pod, prefix = prefix_for(pod), &out] {
          ApiClient own(target);
          Status st = StreamPod(own, f, pod, prefix, out);
          std::lock_guard<std::mutex> lock(shared->mu);
          shared->running.erase(pod);
          if (IsWaitingToStart(st)) {
            shared->waiting.insert(pod);  // tried again on the next round
          } else {
            shared->waiting.erase(pod);
            shared->done.insert(pod);
            if (!st.ok() && st.code() != StatusCode::kNotFound) {
              shared->error = pod + ": " + st.message();
            }
          }
        });
      }
      if (pods->empty() && !finished && !told_waiting) {
        out.Note("waiting for Job " + f.ns + "/" + f.name + " to start (" + why + ")");
        told_waiting = true;
      }
      if (finished && shared->running.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  for (std::thread& t : threads) t.join();
  return code;
}

int RunLogs(const LogsFlags& f) {
  std::optional<ApiClient> client = Connect("logs", f.server);
  if (!client) return 1;
  Result<Json> pod = client->Get(FindKind("pods")->ObjectPath(f.ns, f.name));
  if (pod.ok()) {
    Output out;
    Status st = StreamPod(*client, f, f.name, f.prefix ? "[" + f.name + "] " : "", out);
    if (!st.ok()) {
      PrintError("logs", st.message());
      return 1;
    }
    return 0;
  }
  if (pod.status().code() != StatusCode::kNotFound) {
    PrintError("logs", pod.status().message());
    return 1;
  }
  Result<Json> job = client->Get(FindKind("jobs")->ObjectPath(f.ns, f.name));
  if (!job.ok()) {
    PrintError("logs", job.status().code() == StatusCode::kNotFound
                           ? "no Pod or Job named \"" + f.name + "\" in namespace \"" + f.ns + "\""
                           : job.status().message());
    return 1;
  }
  return JobLogs(*client, f, *job);
}

}  // namespace

void AddLogsCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<LogsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "logs",
      "Print the logs of a pod, or of every pod of a Job (each line prefixed with its pod\n"
      "when the Job has several). With -f, follow them until the pod or Job finishes.");
  cmd->footer(
      "Examples:\n"
      "  kuota logs train-1                # a Job's pods (or a pod's name)\n"
      "  kuota logs -f train-1             # follow, waiting for the Job to start\n"
      "  kuota logs train-1-abcde --tail 20\n"
      "  kuota logs shard -n team-a -c main --prefix");
  cmd->add_option("name", flags->name, "Pod or Job name")->required();
  AddNamespaceFlag(cmd, &flags->ns);
  cmd->add_flag("-f,--follow", flags->follow, "Stream new output until the pod or Job finishes");
  cmd->add_option("-c,--container", flags->container,
                  "Container (needed only for pods with several)");
  cmd->add_option("--tail", flags->tail, "Only the last N lines of each log")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--prefix", flags->prefix, "Prefix each line with [pod]");
  AddServerFlags(cmd, &flags->server);
  cmd->callback(
      [flags, exit_code]() { *exit_code = RunGuarded("logs", [&] { return RunLogs(*flags); }); });
}

}  // namespace kuota::cli
