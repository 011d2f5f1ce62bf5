#include "control/loop_metrics.h"

namespace kuota::control {
namespace {

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

const char* StepName(LoopMetrics::Step s) {
  switch (s) {
    case LoopMetrics::Step::kWait:
      return "wait";
    case LoopMetrics::Step::kEvents:
      return "events";
    case LoopMetrics::Step::kSchedule:
      return "schedule";
    case LoopMetrics::Step::kQueueStatus:
      return "queue_status";
    case LoopMetrics::Step::kQueries:
      return "queries";
  }
  return "other";
}

}  // namespace

LoopMetrics::LoopMetrics(metrics::Registry& registry) : registry_(registry) {
  registry_.DeclareCounter("kuota_controller_rounds_total",
                           "Rounds of the controller's loop (events, then scheduling cycles)", {});
  registry_.DeclareCounter(
      "kuota_controller_loop_seconds_total",
      "Seconds the controller's loop spent per step: wait (for the first event), events "
      "(handling them), schedule (cycles, their status writes included), queue_status, queries",
      {"step"});
  registry_.DeclareCounter("kuota_controller_status_flush_seconds_total",
                           "Seconds the controller waited for its Workload status batches to "
                           "commit (within any step)",
                           {});
}

void LoopMetrics::Spent(Step step, std::chrono::steady_clock::duration d) {
  registry_.Add("kuota_controller_loop_seconds_total", {StepName(step)}, Seconds(d));
}

void LoopMetrics::StatusFlush(std::chrono::steady_clock::duration d) {
  registry_.Add("kuota_controller_status_flush_seconds_total", {}, Seconds(d));
}

}  // namespace kuota::control
