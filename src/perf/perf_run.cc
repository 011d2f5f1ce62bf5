#include "perf/perf_run.h"

#include <filesystem>
#include <memory>

#include "perf/consistency.h"
#include "perf/kuotad_process.h"
#include "perf/perf_config.h"
#include "perf/perf_plan.h"
#include "perf/realtime_runner.h"
#include "perf/report.h"
#include "perf/summary.h"
#include "perf/virtual_runner.h"

namespace kuota::perf {

Result<PerfOutcome> RunPerf(const PerfOptions& options) {
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  Result<PerfConfig> config = ParsePerfConfig(options.config_text);
  if (!config.ok()) return config.status().WithContext(options.config_name);
  Result<Plan> built = BuildPlan(*config);
  if (!built.ok()) return built.status().WithContext(options.config_name);
  const Plan& plan = *built;
  // Refuse an unusable output directory before spending minutes on a run.
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) {
    return Status::Unavailable("cannot create output directory " + options.out_dir + ": " +
                               ec.message());
  }
  progress(std::to_string(plan.workloads.size()) + " workloads, " +
           std::to_string(plan.queues.size()) + " ClusterQueues in " +
           std::to_string(plan.cohorts.size()) + " cohorts");

  RunRecord record;
  if (options.virtual_time) {
    progress("running in virtual time (engine only)");
    KUOTA_ASSIGN_OR_RETURN(record, RunVirtual(plan, VirtualOptions{}));
  } else {
    std::unique_ptr<KuotadProcess> kuotad;
    std::string url = options.server_url;
    if (url.empty()) {
      KuotadSpawnOptions so;
      so.binary = options.kuotad_path.empty() ? KuotadNextToSelf() : options.kuotad_path;
      so.sync = options.kuotad_sync;
      so.log_path = (std::filesystem::path(options.out_dir) / "kuotad.log").string();
      KUOTA_ASSIGN_OR_RETURN(kuotad, KuotadProcess::Start(so));
      url = kuotad->url();
      progress("started " + so.binary + " at " + url + (so.sync ? "" : " (--no-sync)") +
               "; its log: " + so.log_path);
    }
    KUOTA_ASSIGN_OR_RETURN(ServerAddress server, ParseServerUrl(url));
    if (kuotad) {
      server.ca_pem = kuotad->ca_pem();
      server.token = kuotad->token();
    } else {
      server.ca_pem = options.server_ca_pem;
      server.token = options.server_token;
    }
    RealTimeOptions ro;
    ro.server = server;
    ro.clients = options.clients;
    ro.finishers = options.finishers;
    ro.timeout = options.timeout;
    ro.progress = options.progress;
    progress("running in real time against " + server.url);
    Result<RunRecord> run = RunRealTime(plan, ro);
    if (kuotad) {
      const bool alive = kuotad->Running();
      ServerCost cost = kuotad->Stop();
      if (!run.ok()) return run.status();
      record = std::move(run).value();
      record.server_started = true;
      record.server_cost = cost;
      if (!alive) record.warnings.push_back("kuotad exited during the run; see its log");
    } else {
      if (!run.ok()) return run.status();
      record = std::move(run).value();
    }
  }

  const Summary summary = Summarize(plan, record);
  const ConsistencyReport checks = CheckConsistency(plan, record);
  ReportInput in{plan, record, summary, checks, options.config_name};
  PerfOutcome out;
  out.summary_text = SummaryText(in);
  out.completed = record.completed;
  out.consistent = checks.ok();
  KUOTA_ASSIGN_OR_RETURN(ReportFiles files, WriteReportFiles(in, options.out_dir, options.plot));
  out.files = files.written;
  if (std::filesystem::exists(std::filesystem::path(options.out_dir) / "kuotad.log")) {
    out.files.push_back((std::filesystem::path(options.out_dir) / "kuotad.log").string());
  }
  out.plot_note = files.plot_note;
  return out;
}

}  // namespace kuota::perf
