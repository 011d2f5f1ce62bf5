#include "perf/report.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "perf/timeline.h"

extern char** environ;

namespace kuota::perf {
namespace {

using OrderedJson = nlohmann::ordered_json;

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Rounds to 3 decimals for JSON, so figures read cleanly.
double Round3(double v) {
  return static_cast<double>(static_cast<int64_t>(v * 1000.0 + (v < 0 ? -0.5 : 0.5))) / 1000.0;
}

std::string Pad(const std::string& s, size_t w) {
  return s.size() >= w ? s + "  " : s + std::string(w - s.size() + 2, ' ');
}

std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w;
  for (const auto& r : rows) {
    if (w.size() < r.size()) w.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line = "  ";
    for (size_t i = 0; i < r.size(); ++i) line += i + 1 == r.size() ? r[i] : Pad(r[i], w[i]);
    out += line + "\n";
  }
  return out;
}

std::string Seconds(double s) { return Fixed(s, s < 10 ? 2 : 1) + " s"; }

std::string MsText(double ms) {
  if (ms >= 10000) return Fixed(ms / 1000.0, 1) + " s";
  if (ms >= 1000) return Fixed(ms / 1000.0, 2) + " s";
  return Fixed(ms, ms < 10 ? 2 : 0) + " ms";
}

class CsvFile {
 public:
  explicit CsvFile(const std::string& path) : path_(path), out_(path, std::ios::trunc) {}
  std::ofstream& out() { return out_; }
  Status Close() {
    out_.close();
    if (!out_) return Status::Unavailable("cannot write " + path_ + ": " + std::strerror(errno));
    return Status::Ok();
  }
  bool opened() const { return out_.is_open(); }

 private:
  std::string path_;
  std::ofstream out_;
};

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return Status::Unavailable("cannot write " + path + ": " + std::strerror(errno));
  out << text;
  out.close();
  if (!out) return Status::Unavailable("cannot write " + path + ": " + std::strerror(errno));
  return Status::Ok();
}

// Runs `gnuplot script` with output to `log`; returns an empty string on
// success, else why not.
std::string RunGnuplot(const std::string& script, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  std::string prog = "gnuplot";
  std::vector<char*> argv = {prog.data(), const_cast<char*>(script.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "gnuplot", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    if (rc == ENOENT) return "gnuplot is not installed (Debian: apt-get install gnuplot-nox)";
    return std::string("cannot run gnuplot: ") + std::strerror(rc);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return "gnuplot is not installed (Debian: apt-get install gnuplot-nox)";
  }
  return "gnuplot failed; see " + log;
}

std::string PlotScript(const ReportInput& in, const std::string& terminal, const std::string& out) {
  const Plan& plan = in.plan;
  std::string title = "kuota perf " + std::filesystem::path(in.config_name).filename().string() +
                      " (" + in.record.mode + "): " + std::to_string(plan.workloads.size()) +
                      " workloads, " + std::to_string(plan.queues.size()) + " ClusterQueues";
  for (char& c : title) {
    if (c == '"' || c == '\\') c = '\'';
  }
  std::string s;
  s += "# Drawn by kuota perf from timeline.csv; run `gnuplot plot.gp` in this directory.\n";
  s += "set terminal " + terminal + "\n";
  s += "set output '" + out + "'\n";
  s += "set datafile separator ','\n";
  s += "set title \"" + title + "\"\n";
  s += "set xlabel 'time since start (s)'\n";
  s += "set ylabel 'cpu held by admitted workloads (% of all nominal quota)'\n";
  s += "set y2label 'pending workloads'\n";
  s += "set yrange [0:105]\n";
  s += "set y2range [0:*]\n";
  s += "set ytics nomirror\n";
  s += "set y2tics\n";
  s += "set grid\n";
  s += "set key outside bottom center horizontal\n";
  s += "plot 'timeline.csv' using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'usage %', \\\n";
  s += "     '' using 1:3 axes x1y2 with lines lw 2 lc rgb '#444444' title 'pending (all)'";
  const char* colors[] = {"#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"};
  for (size_t c = 0; c < plan.workload_classes.size(); ++c) {
    std::string name = plan.workload_classes[c];
    for (char& ch : name) {
      if (ch == '\'' || ch == '\\') ch = '_';
    }
    s += ", \\\n     '' using 1:" + std::to_string(5 + c) + " axes x1y2 with lines lw 1 lc rgb '" +
         colors[c % 6] + "' title 'pending " + name + "'";
  }
  s += "\n";
  return s;
}

}  // namespace

std::string SummaryJson(const ReportInput& in) {
  const Summary& s = in.summary;
  const RunRecord& r = in.record;
  OrderedJson j;
  j["config"] = in.config_name;
  j["mode"] = s.mode;
  if (r.mode != "virtual") {
    OrderedJson server = {{"url", r.server_url}, {"startedByKuotaPerf", r.server_started}};
    if (r.server_cost.measured) {
      server["userCpuSeconds"] = Round3(r.server_cost.user_cpu_s);
      server["systemCpuSeconds"] = Round3(r.server_cost.system_cpu_s);
      server["maxRssKiB"] = r.server_cost.max_rss_kib;
    }
    if (r.store_writer.measured) {
      const StoreWriterCost& w = r.store_writer;
      server["storeWriter"] = {{"transactions", w.transactions},
                               {"writes", w.writes},
                               {"transactionSeconds", Round3(w.transaction_s)},
                               {"commitSeconds", Round3(w.commit_s)},
                               {"cpuSeconds", Round3(w.cpu_s)}};
    }
    j["server"] = server;
  }
  j["completed"] = s.completed;
  if (!r.stop_reason.empty()) j["stopReason"] = r.stop_reason;
  j["workloads"] = s.workloads;
  j["clusterQueues"] = s.cluster_queues;
  j["cohorts"] = s.cohorts;
  j["wallMs"] = Round3(s.wall_s * 1000.0);
  j["setupMs"] = Round3(s.setup_s * 1000.0);
  j["makespanMs"] = Round3(s.makespan_s * 1000.0);
  j["realSeconds"] = Round3(s.real_s);
  j["runnerCpuSeconds"] = Round3(s.runner_cpu_s);
  if (r.mode == "virtual") {
    j["cycles"] = r.cycles;
  } else {
    j["watchEvents"] = r.watch_events;
    j["httpRequests"] = r.http_requests;
    j["finishConflicts"] = r.finish_conflicts;
    j["maxCreateLagMs"] = Round3(static_cast<double>(r.max_create_lag_us) / 1000.0);
  }
  OrderedJson cqc = OrderedJson::object();
  for (const QueueClassStats& c : s.queue_classes) {
    cqc[c.name] = {
        {"queues", c.queues},
        {"nominalQuota", c.nominal_milli},
        {"cpuUsed", Round3(c.used_milli_ms)},
        {"cpuAverageUsage",
         c.monitored_ms > 0 ? Round3(c.used_milli_ms / static_cast<double>(c.monitored_ms)) : 0.0},
        {"monitoredMs", c.monitored_ms},
        {"usagePercent", Round3(c.usage_percent)},
        {"maxQueueUsage", c.max_usage_milli}};
  }
  j["clusterQueueClasses"] = cqc;
  j["clusterQueueClassesUnits"] =
      "nominalQuota, cpuAverageUsage and maxQueueUsage in mCPU; cpuUsed in mCPU*ms";
  OrderedJson wc = OrderedJson::object();
  for (const WorkloadClassStats& c : s.workload_classes) {
    wc[c.name] = {{"count", c.count},
                  {"finished", c.finished},
                  {"totalEvictions", c.evictions},
                  {"averageTimeToAdmissionMs", Round3(c.avg_time_to_admission_ms)},
                  {"averageTimeToFirstAdmissionMs", Round3(c.avg_time_to_first_admission_ms)},
                  {"p90TimeToAdmissionMs", Round3(c.p90_time_to_admission_ms)},
                  {"maxTimeToAdmissionMs", Round3(c.max_time_to_admission_ms)},
                  {"averageTimeToFinishMs", Round3(c.avg_time_to_finish_ms)}};
  }
  j["workloadClasses"] = wc;
  j["consistency"] = {{"ok", in.checks.ok()},
                      {"failureCount", in.checks.failure_count},
                      {"failures", in.checks.failures}};
  j["warnings"] = r.warnings;
  return j.dump(2) + "\n";
}

std::string SummaryText(const ReportInput& in) {
  const Summary& s = in.summary;
  const RunRecord& r = in.record;
  std::string out;
  out += "kuota perf " + in.config_name + " — ";
  if (r.mode == "virtual") {
    out += "virtual time (engine only, no control plane)\n";
  } else {
    out += "real time against " + r.server_url +
           (r.server_started ? " (kuotad started by kuota perf)" : "") + "\n";
  }
  out += "  " + std::to_string(s.workloads) + " workloads, " + std::to_string(s.cluster_queues) +
         " ClusterQueues in " + std::to_string(s.cohorts) + " cohorts";
  if (in.plan.topology) {
    out += ", " + std::to_string(in.plan.nodes.size()) + " nodes in topology " +
           in.plan.topology->name + " (flavor " + in.plan.flavor_name + ")";
  }
  out += "\n";
  if (r.mode == "virtual") {
    out += "  wall time " + Seconds(s.wall_s) + " of virtual time (last finish), computed in " +
           Seconds(s.real_s) + " (" + std::to_string(r.cycles) + " scheduling cycles)\n";
  } else {
    out += "  wall time " + Seconds(s.wall_s) + " (setup " + Seconds(s.setup_s) +
           ", first creation to last finish " + Seconds(s.makespan_s) + ")\n";
    out += "  kuota perf CPU " + Seconds(s.runner_cpu_s);
    if (r.server_cost.measured) {
      out += "; kuotad CPU " + Seconds(r.server_cost.user_cpu_s + r.server_cost.system_cpu_s) +
             ", max RSS " + std::to_string(r.server_cost.max_rss_kib / 1024) + " MiB";
    }
    out += "; " + std::to_string(r.http_requests) + " requests, " + std::to_string(r.watch_events) +
           " watch events\n";
    if (r.store_writer.measured) {
      const StoreWriterCost& w = r.store_writer;
      out += "  kuotad store writer: " + std::to_string(w.transactions) + " transactions, " +
             std::to_string(w.writes) + " writes; in them " + Seconds(w.transaction_s) +
             " (commit " + Seconds(w.commit_s) + "), on CPU " + Seconds(w.cpu_s) + "\n";
    }
  }
  if (!r.stop_reason.empty()) out += "  STOPPED EARLY: " + r.stop_reason + "\n";
  out += "\n";
  std::vector<std::vector<std::string>> rows = {
      {"CLUSTERQUEUE CLASS", "QUEUES", "NOMINAL CPU", "USAGE", "MAX CPU IN ONE QUEUE"}};
  for (const QueueClassStats& c : s.queue_classes) {
    rows.push_back({c.name, std::to_string(c.queues), CpuText(c.nominal_milli),
                    Fixed(c.usage_percent, 1) + " %", CpuText(c.max_usage_milli)});
  }
  out += Table(rows) + "\n";
  rows = {{"WORKLOAD CLASS", "COUNT", "FINISHED", "AVG TO ADMISSION", "(FIRST)", "P90", "MAX",
           "AVG TO FINISH", "EVICTIONS"}};
  for (const WorkloadClassStats& c : s.workload_classes) {
    rows.push_back({c.name, std::to_string(c.count), std::to_string(c.finished),
                    MsText(c.avg_time_to_admission_ms), MsText(c.avg_time_to_first_admission_ms),
                    MsText(c.p90_time_to_admission_ms), MsText(c.max_time_to_admission_ms),
                    MsText(c.avg_time_to_finish_ms), std::to_string(c.evictions)});
  }
  out += Table(rows) + "\n";
  if (in.checks.ok()) {
    out +=
        "consistency: OK (each workload created once, admitted evictions+1 times, finished once "
        "after its full runtime; no ClusterQueue or cohort above its quota" +
        std::string(in.plan.topology ? "; every placement on the topology's nodes, no node "
                                       "above its allocatable cpu or pods, each required gang "
                                       "and each slice within one domain of its level"
                                     : "") +
        ")\n";
  } else {
    out += "consistency: " + std::to_string(in.checks.failure_count) + " FAILURES\n";
    for (const auto& f : in.checks.failures) out += "  - " + f + "\n";
    if (in.checks.failure_count > static_cast<int64_t>(in.checks.failures.size())) {
      out += "  - ... and " +
             std::to_string(in.checks.failure_count -
                            static_cast<int64_t>(in.checks.failures.size())) +
             " more\n";
    }
  }
  for (const auto& w : r.warnings) out += "warning: " + w + "\n";
  return out;
}

Result<ReportFiles> WriteReportFiles(const ReportInput& in, const std::string& dir, bool plot) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Unavailable("cannot create output directory " + dir + ": " + ec.message());
  ReportFiles files;
  const Plan& plan = in.plan;
  const RunRecord& r = in.record;
  auto path = [&](const char* name) { return (std::filesystem::path(dir) / name).string(); };

  KUOTA_RETURN_IF_ERROR(WriteText(path("summary.json"), SummaryJson(in)));
  files.written.push_back(path("summary.json"));
  // Writes the CSV `name`, its lines by `rows`, and lists it.
  auto csv = [&](const char* name, const std::function<void(std::ostream&)>& rows) -> Status {
    CsvFile f(path(name));
    if (!f.opened()) return Status::Unavailable("cannot write " + path(name));
    rows(f.out());
    KUOTA_RETURN_IF_ERROR(f.Close());
    files.written.push_back(path(name));
    return Status::Ok();
  };

  KUOTA_RETURN_IF_ERROR(csv("workloads.csv", [&](std::ostream& o) {
    o << "id,class,namespace,name,created_ms,ms_to_admitted,ms_to_first_admission,ms_to_finish,"
         "admissions,evictions\n";
    for (size_t i = 0; i < plan.workloads.size() && i < r.workloads.size(); ++i) {
      const PlannedWorkload& p = plan.workloads[i];
      const WorkloadRecord& w = r.workloads[i];
      const double tta = TimeToAdmissionMs(w);
      const double ttf = TimeToFirstAdmissionMs(w);
      o << i << ',' << plan.workload_classes[p.class_index] << ',' << plan.queues[p.queue].name
        << ',' << p.name << ',' << (w.created_us >= 0 ? Fixed(w.created_us / 1000.0, 3) : "") << ','
        << (tta >= 0 ? Fixed(tta, 3) : "") << ',' << (ttf >= 0 ? Fixed(ttf, 3) : "") << ','
        << (w.finished_us >= 0 && w.created_us >= 0
                ? Fixed((w.finished_us - w.created_us) / 1000.0, 3)
                : "")
        << ',' << w.admissions << ',' << w.evictions << '\n';
    }
  }));
  KUOTA_RETURN_IF_ERROR(csv("clusterqueues.csv", [&](std::ostream& o) {
    o << "name,cohort,class,cpu_quota_mcpu,cpu_used_mcpu_ms,cpu_max_usage_mcpu,monitor_ms\n";
    const int64_t monitored =
        (std::max(r.end_us, r.schedule_start_us) - r.schedule_start_us) / 1000;
    for (size_t q = 0; q < plan.queues.size(); ++q) {
      const PlannedQueue& pq = plan.queues[q];
      const QueueStats& qs = in.summary.queues[q];
      o << pq.name << ',' << pq.cohort << ',' << pq.class_name << ',' << pq.nominal_milli << ','
        << static_cast<int64_t>(qs.used_milli_ms) << ',' << qs.max_usage_milli << ',' << monitored
        << '\n';
    }
  }));
  KUOTA_RETURN_IF_ERROR(csv("clusterqueue_timeline.csv", [&](std::ostream& o) {
    o << "time_ms,clusterqueue,cohort,usage_mcpu,pending,running\n";
    for (const QueueRow& row : QueueTimeline(plan, r)) {
      const PlannedQueue& pq = plan.queues[row.queue];
      o << row.t_ms << ',' << pq.name << ',' << pq.cohort << ',' << row.usage_milli << ','
        << row.pending << ',' << row.running << '\n';
    }
  }));
  KUOTA_RETURN_IF_ERROR(csv("timeline.csv", [&](std::ostream& o) {
    o << "time_s,usage_percent,pending,running";
    for (const auto& c : plan.workload_classes) o << ",pending_" << c;
    o << '\n';
    for (const TotalsSample& s : SampleTotals(plan, r, 600)) {
      o << Fixed(s.t_s, 3) << ',' << Fixed(s.usage_percent, 3) << ',' << s.pending << ','
        << s.running;
      for (int64_t p : s.pending_by_class) o << ',' << p;
      o << '\n';
    }
  }));
  KUOTA_RETURN_IF_ERROR(
      WriteText(path("plot.gp"), PlotScript(in, "pngcairo size 1280,720 font ',11'", "plot.png")));
  files.written.push_back(path("plot.gp"));
  if (plot) {
    // gnuplot reads timeline.csv relative to its working directory: give it
    // absolute paths through a second script that changes directory first.
    const std::string abs_dir = std::filesystem::absolute(dir).string();
    std::string escaped;
    for (char c : abs_dir) {
      if (c == '\'')
        escaped += "''";
      else
        escaped += c;
    }
    const std::string runner = path("plot-run.gp");
    KUOTA_RETURN_IF_ERROR(WriteText(runner, "cd '" + escaped + "'\nload 'plot.gp'\n"));
    files.plot_note = RunGnuplot(runner, path("plot.log"));
    std::filesystem::remove(runner, ec);
    if (files.plot_note.empty()) {
      std::filesystem::remove(path("plot.log"), ec);
      files.written.push_back(path("plot.png"));
    }
  } else {
    files.plot_note = "plot skipped (--no-plot); draw it with: cd " + dir + " && gnuplot plot.gp";
  }
  return files;
}

}  // namespace kuota::perf
