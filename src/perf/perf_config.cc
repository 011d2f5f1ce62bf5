#include "perf/perf_config.h"

#include <limits>

#include "api/codec/decode_context.h"
#include "api/codec/map_reader.h"
#include "api/codec/policy_names.h"
#include "api/codec/yaml_tree.h"
#include "api/validation/names.h"

namespace kuota::perf {
namespace {

using codec::MapReader;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Fails with `path.key: message (value "v")` when `ok` is false.
Status Check(MapReader& r, std::string_view key, bool ok, const std::string& message) {
  if (ok) return Status::Ok();
  const codec::YamlNode* node = r.Get(key);
  if (node == nullptr) return Status::Ok();  // absent: Finish() reports required fields
  return r.ctx().FailWithValue(*node, r.PathOf(key), message);
}

// A className begins the names of the objects the plan makes ("<class>-<n>",
// ClusterQueues "<class>-<i>-<j>-<cohort>"), so it must be a DNS-1123 label
// (found by fuzzing: "co*ahort" made invalid cohort names).
Status CheckClassName(MapReader& r, const std::string& class_name) {
  const std::string problem = validation::CheckDns1123Label(class_name);
  return Check(r, "className", problem.empty(), problem);
}

Status DecodeWorkloadTemplate(MapReader& r, WorkloadTemplate& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"className", "request"}));
  KUOTA_RETURN_IF_ERROR(r.String("className", out.class_name));
  KUOTA_RETURN_IF_ERROR(r.Int64("runtimeMs", out.runtime_ms));
  KUOTA_RETURN_IF_ERROR(r.Int32("priority", out.priority));
  KUOTA_RETURN_IF_ERROR(r.Quantity("request", out.request));
  std::optional<int32_t> pods;
  KUOTA_RETURN_IF_ERROR(r.OptInt32("podCount", pods));
  out.pod_count = pods.value_or(1);
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  KUOTA_RETURN_IF_ERROR(CheckClassName(r, out.class_name));
  KUOTA_RETURN_IF_ERROR(Check(r, "runtimeMs", out.runtime_ms >= 0, "must not be negative"));
  KUOTA_RETURN_IF_ERROR(Check(r, "request", out.request.milli() > 0, "must be positive"));
  return Check(r, "podCount", out.pod_count >= 1, "must be at least 1");
}

Status DecodeWorkloadsSet(MapReader& r, WorkloadsSet& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"count", "workloads"}));
  KUOTA_RETURN_IF_ERROR(r.Int64("count", out.count));
  KUOTA_RETURN_IF_ERROR(r.Int64("creationIntervalMs", out.creation_interval_ms));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("workloads", out.workloads, DecodeWorkloadTemplate));
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  KUOTA_RETURN_IF_ERROR(Check(r, "count", out.count >= 1, "must be at least 1"));
  KUOTA_RETURN_IF_ERROR(
      Check(r, "creationIntervalMs", out.creation_interval_ms >= 0, "must not be negative"));
  return Check(r, "workloads", !out.workloads.empty(), "must list at least one workload");
}

Status DecodeQueuesSet(MapReader& r, QueuesSet& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"className", "count", "nominalQuota"}));
  KUOTA_RETURN_IF_ERROR(r.String("className", out.class_name));
  KUOTA_RETURN_IF_ERROR(r.Int64("count", out.count));
  KUOTA_RETURN_IF_ERROR(r.Quantity("nominalQuota", out.nominal_quota));
  KUOTA_RETURN_IF_ERROR(r.OptQuantity("borrowingLimit", out.borrowing_limit));
  KUOTA_RETURN_IF_ERROR(
      r.Enum("reclaimWithinCohort", out.reclaim_within_cohort, codec::kReclaimWithinCohortNames));
  KUOTA_RETURN_IF_ERROR(
      r.Enum("withinClusterQueue", out.within_cluster_queue, codec::kWithinClusterQueueNames));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("workloadsSets", out.workloads_sets, DecodeWorkloadsSet));
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  KUOTA_RETURN_IF_ERROR(CheckClassName(r, out.class_name));
  KUOTA_RETURN_IF_ERROR(Check(r, "count", out.count >= 1, "must be at least 1"));
  KUOTA_RETURN_IF_ERROR(
      Check(r, "nominalQuota", out.nominal_quota.milli() >= 0, "must not be negative"));
  return Check(r, "borrowingLimit", !out.borrowing_limit || out.borrowing_limit->milli() >= 0,
               "must not be negative");
}

Status DecodeCohortSet(MapReader& r, CohortSet& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"className", "count"}));
  KUOTA_RETURN_IF_ERROR(r.String("className", out.class_name));
  KUOTA_RETURN_IF_ERROR(r.Int64("count", out.count));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("queuesSets", out.queues_sets, DecodeQueuesSet));
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  KUOTA_RETURN_IF_ERROR(CheckClassName(r, out.class_name));
  return Check(r, "count", out.count >= 1, "must be at least 1");
}

Status DecodeConfig(MapReader& r, PerfConfig& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("cohorts"));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("cohorts", out.cohorts, DecodeCohortSet));
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  KUOTA_RETURN_IF_ERROR(
      Check(r, "cohorts", !out.cohorts.empty(), "config must contain at least one cohort"));
  // Totals, with saturation, so an absurd config is refused before expansion.
  int64_t queues = 0, workloads = 0;
  auto mul = [](int64_t a, int64_t b) {
    int64_t p;
    return __builtin_mul_overflow(a, b, &p) ? kInt64Max : p;
  };
  auto add = [](int64_t a, int64_t b) {
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? kInt64Max : s;
  };
  for (const CohortSet& c : out.cohorts) {
    for (const QueuesSet& q : c.queues_sets) {
      const int64_t n = mul(c.count, q.count);
      queues = add(queues, n);
      for (const WorkloadsSet& w : q.workloads_sets) {
        workloads = add(workloads, mul(n, mul(w.count, static_cast<int64_t>(w.workloads.size()))));
      }
    }
  }
  if (queues > kMaxClusterQueues) {
    return r.ctx().Fail(r.node(), "cohorts",
                        "the config asks for " + std::to_string(queues) +
                            " ClusterQueues; at most " + std::to_string(kMaxClusterQueues) +
                            " are supported");
  }
  if (workloads > kMaxWorkloads) {
    return r.ctx().Fail(r.node(), "cohorts",
                        "the config asks for " + std::to_string(workloads) +
                            " workloads; at most " + std::to_string(kMaxWorkloads) +
                            " are supported");
  }
  return Status::Ok();
}

}  // namespace

Result<PerfConfig> ParsePerfConfig(std::string_view text) {
  codec::YamlStream stream(text);
  KUOTA_ASSIGN_OR_RETURN(std::unique_ptr<codec::YamlDocument> doc, stream.Next());
  if (doc == nullptr || doc->root->is_null()) {
    return Status::Invalid("the config is empty; want a generator config with `cohorts:`");
  }
  codec::DecodeBudget budget{4 * doc->node_count() + 100'000, 4 * text.size() + (1u << 20)};
  codec::DecodeContext ctx(budget);
  PerfConfig config;
  Status st = codec::ReadObject(ctx, *doc->root, "", config, DecodeConfig);
  if (!st.ok()) {
    if (ctx.error_line() > 0) return st.WithContext("line " + std::to_string(ctx.error_line()));
    return st;
  }
  KUOTA_ASSIGN_OR_RETURN(std::unique_ptr<codec::YamlDocument> extra, stream.Next());
  if (extra != nullptr) {
    return Status::Invalid("line " + std::to_string(extra->line) +
                           ": the config must be a single YAML document");
  }
  return config;
}

}  // namespace kuota::perf
