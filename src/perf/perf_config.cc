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

constexpr codec::EnumName<TasConstraint> kTasConstraintNames[] = {
    {"required", TasConstraint::kRequired},
    {"preferred", TasConstraint::kPreferred},
    {"balanced", TasConstraint::kBalanced},
};

// "a, b, c": the node labels of a topology's levels.
std::string LevelList(const TopologyConfig& t) {
  std::string out;
  for (const TopologyLevel& l : t.levels) out += (out.empty() ? "" : ", ") + l.node_label;
  return out;
}

// `topology`: the config's topology, or nullptr when it has none.
Status CheckTopologyFields(MapReader& r, const TopologyConfig* topology, WorkloadTemplate& out) {
  const bool tas = out.tas_constraint != TasConstraint::kNone;
  if (tas && topology == nullptr) {
    return Check(r, "tasConstraint", false,
                 "needs a `topology` (and a `resourceFlavor` with its topologyName) in the config");
  }
  if (tas && out.tas_level.empty()) {
    return r.ctx().Fail(r.node(), r.PathOf("tasLevel"),
                        "Required value: tasConstraint needs the level it applies to");
  }
  KUOTA_RETURN_IF_ERROR(Check(r, "tasLevel", tas || !r.Has("tasLevel"),
                              "needs a tasConstraint (required, preferred or balanced)"));
  if (tas) {
    bool found = false;
    for (const TopologyLevel& l : topology->levels) found = found || l.node_label == out.tas_level;
    KUOTA_RETURN_IF_ERROR(Check(r, "tasLevel", found,
                                "is not a nodeLabel of topology " + topology->name + "'s levels (" +
                                    LevelList(*topology) + ")"));
  }
  if (!out.slice_size) return Status::Ok();
  KUOTA_RETURN_IF_ERROR(Check(r, "sliceSize", tas, "needs a tasConstraint and a tasLevel"));
  KUOTA_RETURN_IF_ERROR(Check(r, "sliceSize", *out.slice_size >= 1, "must be at least 1"));
  return Check(r, "sliceSize", *out.slice_size <= out.pod_count,
               "must not exceed podCount (" + std::to_string(out.pod_count) + ")");
}

Status DecodeWorkloadTemplate(const TopologyConfig* topology, MapReader& r, WorkloadTemplate& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"className", "request"}));
  KUOTA_RETURN_IF_ERROR(r.String("className", out.class_name));
  KUOTA_RETURN_IF_ERROR(r.Int64("runtimeMs", out.runtime_ms));
  KUOTA_RETURN_IF_ERROR(r.Int32("priority", out.priority));
  KUOTA_RETURN_IF_ERROR(r.Quantity("request", out.request));
  std::optional<int32_t> pods;
  KUOTA_RETURN_IF_ERROR(r.OptInt32("podCount", pods));
  out.pod_count = pods.value_or(1);
  KUOTA_RETURN_IF_ERROR(r.Enum("tasConstraint", out.tas_constraint, kTasConstraintNames));
  KUOTA_RETURN_IF_ERROR(r.String("tasLevel", out.tas_level));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("sliceSize", out.slice_size));
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  KUOTA_RETURN_IF_ERROR(CheckClassName(r, out.class_name));
  KUOTA_RETURN_IF_ERROR(Check(r, "runtimeMs", out.runtime_ms >= 0, "must not be negative"));
  KUOTA_RETURN_IF_ERROR(Check(r, "request", out.request.milli() > 0, "must be positive"));
  KUOTA_RETURN_IF_ERROR(Check(r, "podCount", out.pod_count >= 1, "must be at least 1"));
  return CheckTopologyFields(r, topology, out);
}

Status DecodeWorkloadsSet(const TopologyConfig* topology, MapReader& r, WorkloadsSet& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"count", "workloads"}));
  KUOTA_RETURN_IF_ERROR(r.Int64("count", out.count));
  KUOTA_RETURN_IF_ERROR(r.Int64("creationIntervalMs", out.creation_interval_ms));
  KUOTA_RETURN_IF_ERROR(
      r.ObjectList("workloads", out.workloads, [topology](MapReader& m, WorkloadTemplate& t) {
        return DecodeWorkloadTemplate(topology, m, t);
      }));
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  KUOTA_RETURN_IF_ERROR(Check(r, "count", out.count >= 1, "must be at least 1"));
  KUOTA_RETURN_IF_ERROR(
      Check(r, "creationIntervalMs", out.creation_interval_ms >= 0, "must not be negative"));
  return Check(r, "workloads", !out.workloads.empty(), "must list at least one workload");
}

Status DecodeQueuesSet(const TopologyConfig* topology, MapReader& r, QueuesSet& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"className", "count", "nominalQuota"}));
  KUOTA_RETURN_IF_ERROR(r.String("className", out.class_name));
  KUOTA_RETURN_IF_ERROR(r.Int64("count", out.count));
  KUOTA_RETURN_IF_ERROR(r.Quantity("nominalQuota", out.nominal_quota));
  KUOTA_RETURN_IF_ERROR(r.OptQuantity("borrowingLimit", out.borrowing_limit));
  KUOTA_RETURN_IF_ERROR(
      r.Enum("reclaimWithinCohort", out.reclaim_within_cohort, codec::kReclaimWithinCohortNames));
  KUOTA_RETURN_IF_ERROR(
      r.Enum("withinClusterQueue", out.within_cluster_queue, codec::kWithinClusterQueueNames));
  KUOTA_RETURN_IF_ERROR(
      r.Enum<api::QueueingStrategy>("queueingStrategy", out.queueing_strategy,
                                    {{"BestEffortFIFO", api::QueueingStrategy::kBestEffortFIFO},
                                     {"StrictFIFO", api::QueueingStrategy::kStrictFIFO}}));
  KUOTA_RETURN_IF_ERROR(r.Bool("backfill", out.backfill));
  KUOTA_RETURN_IF_ERROR(r.ObjectList(
      "workloadsSets", out.workloads_sets,
      [topology](MapReader& m, WorkloadsSet& w) { return DecodeWorkloadsSet(topology, m, w); }));
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  KUOTA_RETURN_IF_ERROR(CheckClassName(r, out.class_name));
  KUOTA_RETURN_IF_ERROR(Check(r, "count", out.count >= 1, "must be at least 1"));
  KUOTA_RETURN_IF_ERROR(
      Check(r, "nominalQuota", out.nominal_quota.milli() >= 0, "must not be negative"));
  return Check(r, "borrowingLimit", !out.borrowing_limit || out.borrowing_limit->milli() >= 0,
               "must not be negative");
}

Status DecodeCohortSet(const TopologyConfig* topology, MapReader& r, CohortSet& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"className", "count"}));
  KUOTA_RETURN_IF_ERROR(r.String("className", out.class_name));
  KUOTA_RETURN_IF_ERROR(r.Int64("count", out.count));
  KUOTA_RETURN_IF_ERROR(r.ObjectList(
      "queuesSets", out.queues_sets,
      [topology](MapReader& m, QueuesSet& q) { return DecodeQueuesSet(topology, m, q); }));
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  KUOTA_RETURN_IF_ERROR(CheckClassName(r, out.class_name));
  return Check(r, "count", out.count >= 1, "must be at least 1");
}

// A topology level; `lowest`: the last of the list (its domains are the nodes).
Status DecodeTopologyLevel(MapReader& r, TopologyLevel& out, bool lowest) {
  KUOTA_RETURN_IF_ERROR(r.Require({"name", "count", "nodeLabel"}));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.Int64("count", out.count));
  KUOTA_RETURN_IF_ERROR(r.String("nodeLabel", out.node_label));
  KUOTA_RETURN_IF_ERROR(r.ResourceList("capacity", out.capacity));
  KUOTA_RETURN_IF_ERROR(r.Finish());
  // The level's name begins its domains' names (`rack-0-3`), which are label
  // values and, at the lowest level, node names.
  const std::string bad_name = validation::CheckDns1123Label(out.name);
  KUOTA_RETURN_IF_ERROR(Check(r, "name", bad_name.empty(), bad_name));
  KUOTA_RETURN_IF_ERROR(Check(r, "count", out.count >= 1, "must be at least 1"));
  const std::string bad_label = validation::CheckQualifiedName(out.node_label);
  KUOTA_RETURN_IF_ERROR(Check(r, "nodeLabel", bad_label.empty(), bad_label));
  if (!lowest) {
    return Check(r, "capacity", !r.Has("capacity"),
                 "only the lowest level (the nodes) has a capacity");
  }
  if (out.capacity.empty()) {
    return r.ctx().Fail(r.node(), r.PathOf("capacity"),
                        "Required value: the lowest level's nodes need a capacity (cpu, memory)");
  }
  for (const auto& [name, q] : out.capacity) {
    KUOTA_RETURN_IF_ERROR(Check(r, "capacity", q.milli() >= 0, name + " must not be negative"));
  }
  return Status::Ok();
}

Status DecodeTopology(MapReader& r, TopologyConfig& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"name", "levels"}));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  const codec::YamlNode* levels = r.Get("levels");
  const size_t n = levels != nullptr && levels->is_sequence() ? levels->size() : 0;
  size_t i = 0;
  KUOTA_RETURN_IF_ERROR(r.ObjectList("levels", out.levels, [&](MapReader& m, TopologyLevel& l) {
    return DecodeTopologyLevel(m, l, ++i == n);
  }));
  KUOTA_RETURN_IF_ERROR(r.Finish());
  const std::string bad_name = validation::CheckDns1123Subdomain(out.name);
  KUOTA_RETURN_IF_ERROR(Check(r, "name", bad_name.empty(), bad_name));
  KUOTA_RETURN_IF_ERROR(Check(r, "levels", !out.levels.empty(), "must list at least one level"));
  KUOTA_RETURN_IF_ERROR(Check(r, "levels", out.levels.size() <= kMaxTopologyLevels,
                              "at most " + std::to_string(kMaxTopologyLevels) + " levels"));
  for (size_t a = 0; a < out.levels.size(); ++a) {
    for (size_t b = a + 1; b < out.levels.size(); ++b) {
      if (out.levels[a].node_label == out.levels[b].node_label) {
        return r.ctx().Fail(
            levels->item(b), r.PathOf("levels") + "[" + std::to_string(b) + "]",
            "nodeLabel " + out.levels[b].node_label + " is also level " + std::to_string(a) + "'s");
      }
    }
  }
  // The longest domain name of each level: its name, then "-<index>" per level down to it.
  size_t suffix = 0;
  for (size_t l = 0; l < out.levels.size(); ++l) {
    suffix += 1 + std::to_string(out.levels[l].count - 1).size();
    const size_t longest = out.levels[l].name.size() + suffix;
    if (longest > validation::kDns1123LabelMaxLength) {
      return r.ctx().Fail(levels->item(l), r.PathOf("levels") + "[" + std::to_string(l) + "]",
                          "its domains would be named with up to " + std::to_string(longest) +
                              " characters (" + out.levels[l].name +
                              "-<index>-...); at most 63: shorten the level names");
    }
  }
  return Check(r, "levels", out.node_count() <= kMaxNodes,
               "the levels ask for " + std::to_string(out.node_count()) + " nodes; at most " +
                   std::to_string(kMaxNodes) + " are supported");
}

Status DecodeFlavor(const TopologyConfig* topology, MapReader& r, FlavorConfig& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("name"));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.String("nodeLabel", out.node_label));
  KUOTA_RETURN_IF_ERROR(r.String("topologyName", out.topology_name));
  KUOTA_RETURN_IF_ERROR(r.Finish());
  const std::string bad_name = validation::CheckDns1123Subdomain(out.name);
  KUOTA_RETURN_IF_ERROR(Check(r, "name", bad_name.empty(), bad_name));
  if (!out.node_label.empty()) {
    const std::string bad_label = validation::CheckQualifiedName(out.node_label);
    KUOTA_RETURN_IF_ERROR(Check(r, "nodeLabel", bad_label.empty(), bad_label));
  }
  if (topology == nullptr) {
    return Check(r, "topologyName", out.topology_name.empty(),
                 "the config has no `topology` of that name");
  }
  if (out.topology_name.empty()) {
    return r.ctx().Fail(r.node(), r.PathOf("topologyName"),
                        "Required value: the config's topology is " + topology->name);
  }
  return Check(r, "topologyName", out.topology_name == topology->name,
               "the config's topology is " + topology->name);
}

Status DecodeConfig(MapReader& r, PerfConfig& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("cohorts"));
  KUOTA_RETURN_IF_ERROR(r.OptObject("topology", out.topology, DecodeTopology));
  const TopologyConfig* topology = out.topology ? &*out.topology : nullptr;
  KUOTA_RETURN_IF_ERROR(r.OptObject(
      "resourceFlavor", out.resource_flavor,
      [topology](MapReader& m, FlavorConfig& f) { return DecodeFlavor(topology, m, f); }));
  KUOTA_RETURN_IF_ERROR(r.ObjectList(
      "cohorts", out.cohorts,
      [topology](MapReader& m, CohortSet& c) { return DecodeCohortSet(topology, m, c); }));
  // Unknown and missing fields first, as Kubernetes' strict decoder reports them.
  KUOTA_RETURN_IF_ERROR(r.Finish());
  if (topology != nullptr && !out.resource_flavor) {
    return r.ctx().Fail(*r.Get("topology"), "resourceFlavor",
                        "Required value: a topology needs a resourceFlavor whose topologyName is " +
                            topology->name);
  }
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

int64_t TopologyConfig::node_count() const {
  int64_t n = levels.empty() ? 0 : 1;
  for (const TopologyLevel& l : levels) {
    if (__builtin_mul_overflow(n, l.count, &n)) return kInt64Max;
  }
  return n;
}

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
