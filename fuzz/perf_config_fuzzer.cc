// Fuzz target: perf::ParsePerfConfig, the reader of Kueue's scheduler
// performance generator config (`kuota perf`, tests/perf, shared/perf).
// Input: the YAML text. Asserts beyond "no crash": an accepted config obeys
// the documented bounds (counts at least 1, positive requests, at most
// kMaxClusterQueues ClusterQueues and kMaxWorkloads workloads in all); a small
// one expands (BuildPlan) to exactly that many queues and workloads, and the
// ClusterQueues and Workloads it plans pass Kueue's validation.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/validation/validate.h"
#include "fuzz_check.h"
#include "perf/perf_config.h"
#include "perf/perf_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kuota;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = perf::ParsePerfConfig(text);
  if (!parsed.ok()) {
    FUZZ_CHECK(!parsed.status().message().empty(), text);
    return 0;
  }
  const perf::PerfConfig& config = parsed.value();
  FUZZ_CHECK(!config.cohorts.empty(), text);
  int64_t queues = 0, workloads = 0;
  for (const auto& c : config.cohorts) {
    FUZZ_CHECK(c.count >= 1 && !c.class_name.empty(), text);
    for (const auto& q : c.queues_sets) {
      FUZZ_CHECK(q.count >= 1 && q.nominal_quota.milli() >= 0, text);
      queues += c.count * q.count;  // each factor is bounded by the totals check
      FUZZ_CHECK(queues <= perf::kMaxClusterQueues, text);
      for (const auto& w : q.workloads_sets) {
        FUZZ_CHECK(w.count >= 1 && !w.workloads.empty(), text);
        for (const auto& t : w.workloads) {
          FUZZ_CHECK(t.request.milli() > 0 && t.pod_count >= 1 && t.runtime_ms >= 0, text);
        }
        workloads += c.count * q.count * w.count * static_cast<int64_t>(w.workloads.size());
        FUZZ_CHECK(workloads <= perf::kMaxWorkloads, text);
      }
    }
  }
  if (config.topology) {
    FUZZ_CHECK(config.topology->node_count() <= perf::kMaxNodes, text);
    FUZZ_CHECK(config.resource_flavor.has_value(), text);
    FUZZ_CHECK(config.resource_flavor->topology_name == config.topology->name, text);
  }
  if (queues > 200 || workloads > 2000) return 0;  // keep each run fast
  if (config.topology && config.topology->node_count() > 2000) return 0;
  auto plan = perf::BuildPlan(config);
  if (!plan.ok()) return 0;  // two ClusterQueues of one name
  FUZZ_CHECK(static_cast<int64_t>(plan.value().queues.size()) == queues, text);
  FUZZ_CHECK(static_cast<int64_t>(plan.value().workloads.size()) == workloads, text);
  if (config.topology) {
    FUZZ_CHECK(static_cast<int64_t>(plan.value().nodes.size()) == config.topology->node_count(),
               text);
  }
  if (!plan.value().queues.empty()) {
    Status st =
        validation::Validate(perf::ClusterQueueObject(plan.value(), plan.value().queues[0]));
    FUZZ_CHECK(st.ok(), st.message());
  }
  if (!plan.value().workloads.empty()) {
    Status st = validation::Validate(perf::WorkloadObject(plan.value(), plan.value().workloads[0]));
    FUZZ_CHECK(st.ok(), st.message());
  }
  return 0;
}
