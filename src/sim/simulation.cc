#include "sim/simulation.h"

#include <algorithm>
#include <variant>

#include <nlohmann/json.hpp>

#include "api/codec/decode.h"
#include "base/clock.h"
#include "engine/engine.h"
#include "sim/step_player.h"
#include "sim/timeline.h"

namespace kuota::sim {

Result<Report> Simulate(std::string_view state_text, const SimulateOptions& options) {
  codec::DecodeOptions dopts;
  dopts.skip_kinds.insert("conformance/v1/Expectation");
  dopts.skip_kinds.insert(std::string(kStepKind));
  dopts.validate_names = false;  // what-if files may use test names ("a_incoming")
  // A what-if file is no API request: the scheduler's partial admission
  // handles several minCount pod sets, though Kueue's webhook refuses them.
  dopts.allow_several_min_count_pod_sets = true;
  KUOTA_ASSIGN_OR_RETURN(std::vector<codec::DecodedObject> docs,
                         codec::DecodeDocuments(state_text, dopts));
  KUOTA_ASSIGN_OR_RETURN(Timeline timeline, DecodeTimeline(state_text));
  if (!timeline.steps.empty() && timeline.steps.front().at < options.now) {
    return Status::Invalid(timeline.steps.front().where + ": at: Invalid value: \"" +
                           FormatRfc3339(timeline.steps.front().at) +
                           "\": before the simulation's start (" + FormatRfc3339(options.now) +
                           ")");
  }
  api::Configuration config;
  for (const auto& d : docs) {
    if (auto* c = std::get_if<api::Configuration>(&d.object.value)) config = *c;
    // Kuota's minimum runtime annotations (engine/minimum_runtime.h).
    const api::ObjectMeta* meta = nullptr;
    const char* kind = nullptr;
    if (auto* cq = std::get_if<api::ClusterQueue>(&d.object.value)) {
      meta = &cq->metadata;
      kind = "ClusterQueue";
    } else if (auto* wpc = std::get_if<api::WorkloadPriorityClass>(&d.object.value)) {
      meta = &wpc->metadata;
      kind = "WorkloadPriorityClass";
    }
    if (meta == nullptr) continue;
    Status mr =
        engine::ReadMinimumRuntime(*meta, std::string_view(kind) == "ClusterQueue").status();
    if (mr.ok() && std::string_view(kind) == "ClusterQueue") {
      mr = engine::ReadBackfillPolicy(*meta).status();
    }
    if (!mr.ok()) {
      return Status::Invalid("document " + std::to_string(d.document_index + 1) + " (" + kind +
                             " \"" + meta->name + "\", line " + std::to_string(d.line) +
                             "): " + mr.message());
    }
  }
  ManualClock clock(options.now);
  engine::Engine engine(clock, config);
  // Everything but workloads first, so priorities and queues resolve.
  for (const auto& d : docs) {
    if (std::holds_alternative<api::Workload>(d.object.value) ||
        std::holds_alternative<api::Configuration>(d.object.value)) {
      continue;
    }
    KUOTA_RETURN_IF_ERROR(engine.Apply(d.object));
  }
  for (const auto& d : docs) {
    if (std::holds_alternative<api::Workload>(d.object.value)) {
      KUOTA_RETURN_IF_ERROR(engine.Apply(d.object));
    }
  }
  Report report;
  for (const auto& [name, cq] : engine.tree().cluster_queues()) {
    if (!cq->active()) {
      report.warnings.push_back("ClusterQueue " + name + " is inactive: " + cq->inactive_message());
    }
  }
  StepPlayer player(engine, clock, std::move(timeline.nodes), report);
  player.Settle(options.cycles);
  for (const Step& step : timeline.steps) {
    KUOTA_RETURN_IF_ERROR(player.AdvanceTo(step.at));
    KUOTA_RETURN_IF_ERROR(player.Apply(step));
  }
  for (const engine::WorkloadInfo* wl : engine.Workloads()) {
    if (wl->holds_quota()) {
      AdmittedResult a;
      a.cluster_queue =
          wl->admitted_in ? wl->admitted_in->name() : wl->object.status.admission->cluster_queue;
      a.admitted = wl->state == engine::WorkloadState::kAdmitted;
      a.pods_ready = api::IsConditionTrue(wl->object.status.conditions, api::kPodsReady);
      for (const auto& ps : wl->admission) {
        PodSetResult r{ps.count, ps.flavors, std::nullopt};
        if (wl->object.status.admission) {
          for (const auto& psa : wl->object.status.admission->pod_set_assignments) {
            if (psa.name == ps.name) r.topology = psa.topology_assignment;
          }
        }
        a.pod_sets[ps.name] = std::move(r);
      }
      report.admitted[wl->key] = std::move(a);
    } else if (wl->state == engine::WorkloadState::kPending ||
               wl->state == engine::WorkloadState::kInactive) {
      PendingResult p;
      p.workload = wl->key;
      p.priority = wl->priority;
      if (wl->queued_in) p.cluster_queue = wl->queued_in->name();
      p.reason = engine.PendingMessage(wl->key);
      report.pending.push_back(std::move(p));
    }
  }
  return report;
}

std::string ReportToJson(const Report& report) {
  nlohmann::ordered_json out;
  out["admitted"] = nlohmann::ordered_json::object();
  for (const auto& [key, a] : report.admitted) {
    nlohmann::ordered_json j;
    j["clusterQueue"] = a.cluster_queue;
    j["admitted"] = a.admitted;
    j["podsReady"] = a.pods_ready;
    nlohmann::ordered_json ps = nlohmann::ordered_json::object();
    for (const auto& [name, p] : a.pod_sets) {
      ps[name] = {{"count", p.count}, {"flavors", p.flavors}};
      if (p.topology) {
        nlohmann::json domains = nlohmann::json::array();
        for (const auto& d : p.topology->domains) {
          domains.push_back({{"values", d.values}, {"count", d.count}});
        }
        ps[name]["topology"] = {{"levels", p.topology->levels}, {"domains", domains}};
      }
    }
    j["podSets"] = ps;
    out["admitted"][key] = j;
  }
  out["preempted"] = nlohmann::ordered_json::array();
  for (const auto& p : report.preempted) {
    out["preempted"].push_back(
        {{"workload", p.workload}, {"by", p.by}, {"reason", p.reason}, {"cycle", p.cycle}});
  }
  if (!report.evicted.empty()) {
    out["evicted"] = nlohmann::ordered_json::array();
    for (const auto& e : report.evicted) {
      out["evicted"].push_back({{"workload", e.workload}, {"reason", e.reason}, {"at", e.at}});
    }
  }
  out["pending"] = nlohmann::ordered_json::array();
  for (const auto& p : report.pending) {
    out["pending"].push_back({{"workload", p.workload},
                              {"clusterQueue", p.cluster_queue},
                              {"priority", p.priority},
                              {"reason", p.reason}});
  }
  out["cycles"] = report.cycles_run;
  if (!report.warnings.empty()) out["warnings"] = report.warnings;
  return out.dump(2) + "\n";
}

namespace {

std::string Pad(const std::string& s, size_t w) {
  return s.size() >= w ? s + " " : s + std::string(w - s.size() + 1, ' ');
}

std::string FlavorsText(const std::map<std::string, PodSetResult>& pod_sets) {
  std::string out;
  for (const auto& [name, ps] : pod_sets) {
    if (!out.empty()) out += "; ";
    out += name + " x" + std::to_string(ps.count) + ":";
    bool first = true;
    for (const auto& [res, fl] : ps.flavors) {
      out += (first ? " " : ", ") + res + "=" + fl;
      first = false;
    }
    if (ps.topology) {  // e.g. " on kubernetes.io/hostname x1=2 x2=2"
      out += " on " + (ps.topology->levels.empty() ? std::string() : ps.topology->levels.back());
      for (const auto& d : ps.topology->domains) {
        std::string path;
        for (const auto& v : d.values) path += (path.empty() ? "" : "/") + v;
        out += " " + path + "=" + std::to_string(d.count);
      }
    }
  }
  return out;
}

}  // namespace

std::string ReportToText(const Report& report) {
  std::string out;
  for (const auto& w : report.warnings) out += "warning: " + w + "\n";
  out += "ADMITTED (" + std::to_string(report.admitted.size()) + ")\n";
  size_t w1 = 8, w2 = 12;
  for (const auto& [k, a] : report.admitted) {
    w1 = std::max(w1, k.size());
    w2 = std::max(w2, a.cluster_queue.size());
  }
  if (!report.admitted.empty()) {
    out += "  " + Pad("WORKLOAD", w1) + Pad("CLUSTERQUEUE", w2) + "FLAVORS\n";
    for (const auto& [k, a] : report.admitted) {
      out += "  " + Pad(k, w1) + Pad(a.cluster_queue, w2) + FlavorsText(a.pod_sets) +
             (a.admitted ? "" : "  (quota reserved; admission checks pending)") + "\n";
    }
  }
  out += "PREEMPTED (" + std::to_string(report.preempted.size()) + ")\n";
  for (const auto& p : report.preempted) {
    out += "  " + p.workload + "  by " + p.by + "  (" + p.reason + ", cycle " +
           std::to_string(p.cycle) + ")\n";
  }
  if (!report.evicted.empty()) {
    out += "EVICTED (" + std::to_string(report.evicted.size()) + ")\n";
    for (const auto& e : report.evicted) {
      out += "  " + e.workload + "  (" + e.reason + ", " + e.at + ")\n";
    }
  }
  out += "PENDING (" + std::to_string(report.pending.size()) + ")\n";
  for (const auto& p : report.pending) {
    out += "  " + p.workload + (p.cluster_queue.empty() ? "" : "  [" + p.cluster_queue + "]") +
           "\n      why: " + p.reason + "\n";
  }
  return out;
}

}  // namespace kuota::sim
