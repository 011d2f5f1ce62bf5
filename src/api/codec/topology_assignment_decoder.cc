// Decoders of a Workload's topology fields: a pod set's topologyRequest (the
// same nine fields in v1beta1 and v1beta2) and a pod set assignment's
// topologyAssignment. v1beta1 lists the domains (`levels` and
// `domains[].values/count`); v1beta2 packs them into `slices` (each
// `domainCount` domains, per level one `universal` value or `individual`
// prefix + roots + suffix, pod counts `universal` or `individual`), which
// reads here into the same list of domains, as Kueue's InternalSeqFrom
// (pkg/util/tas) expands it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/codec/decoders.h"

namespace kuota::codec {
namespace {

// Domains one v1beta2 assignment may expand to: Kueue's per-slice limit
// (roots and individual pod counts have MaxItems=100000), also the bound on
// what a few bytes of universal values can make Kuota allocate.
constexpr int64_t kMaxTopologyDomains = 100'000;

constexpr const char* kExactlyOne =
    "exactly one of the fields in [universal individual] must be set";

// v1beta2 TopologyAssignmentSliceLevelIndividualValues.
struct IndividualValues {
  std::string prefix;
  std::string suffix;
  std::vector<std::string> roots;
};

// v1beta2 TopologyAssignmentSliceLevelValues.
struct LevelValues {
  std::optional<std::string> universal;
  std::optional<IndividualValues> individual;
};

// v1beta2 TopologyAssignmentSlicePodCounts.
struct PodCounts {
  std::optional<int32_t> universal;
  std::optional<std::vector<int32_t>> individual;
};

// v1beta2 TopologyAssignmentSlice.
struct Slice {
  int32_t domain_count = 0;
  std::vector<LevelValues> values_per_level;
  PodCounts pod_counts;
};

Status DecodeTopologyDomainAssignment(MapReader& r, api::TopologyDomainAssignment& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"values", "count"}));
  KUOTA_RETURN_IF_ERROR(r.StringList("values", out.values));
  return r.Int32("count", out.count);
}

Status DecodeIndividualValues(MapReader& r, IndividualValues& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("roots"));
  KUOTA_RETURN_IF_ERROR(r.String("prefix", out.prefix));
  KUOTA_RETURN_IF_ERROR(r.String("suffix", out.suffix));
  return r.StringList("roots", out.roots);
}

Status DecodeLevelValues(MapReader& r, LevelValues& out) {
  std::string universal;
  KUOTA_RETURN_IF_ERROR(r.String("universal", universal));
  if (r.Has("universal")) out.universal = std::move(universal);
  KUOTA_RETURN_IF_ERROR(r.OptObject("individual", out.individual, DecodeIndividualValues));
  if (out.universal.has_value() == out.individual.has_value()) {
    return r.ctx().Fail(r.node(), r.path(), kExactlyOne);
  }
  return Status::Ok();
}

Status DecodePodCounts(MapReader& r, PodCounts& out) {
  KUOTA_RETURN_IF_ERROR(r.OptInt32("universal", out.universal));
  if (const YamlNode* list = r.Get("individual")) {
    std::vector<int32_t> counts;
    KUOTA_RETURN_IF_ERROR(ForEachItem(r.ctx(), *list, r.PathOf("individual"),
                                      [&](const YamlNode& item, const std::string& path, size_t) {
                                        int64_t n = 0;
                                        KUOTA_RETURN_IF_ERROR(
                                            ReadInt(r.ctx(), item, path, INT32_MIN, INT32_MAX, n));
                                        counts.push_back(static_cast<int32_t>(n));
                                        return Status::Ok();
                                      }));
    out.individual = std::move(counts);
  }
  KUOTA_RETURN_IF_ERROR(r.status());
  if (out.universal.has_value() == out.individual.has_value()) {
    return r.ctx().Fail(r.node(), r.path(), kExactlyOne);
  }
  return Status::Ok();
}

// One slice, with the CRD's rules that its expansion relies on: every list
// of individual values or pod counts has domainCount entries.
Status DecodeSlice(MapReader& r, Slice& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"domainCount", "valuesPerLevel", "podCounts"}));
  KUOTA_RETURN_IF_ERROR(r.Int32("domainCount", out.domain_count));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("valuesPerLevel", out.values_per_level, DecodeLevelValues));
  KUOTA_RETURN_IF_ERROR(r.Object("podCounts", out.pod_counts, DecodePodCounts));
  if (!r.Has("domainCount")) return Status::Ok();  // Finish reports it
  if (out.domain_count < 1) {
    return r.ctx().FailWithValue(*r.Get("domainCount"), r.PathOf("domainCount"),
                                 "Invalid value: should be greater than or equal to 1");
  }
  const size_t n = static_cast<size_t>(out.domain_count);
  for (size_t i = 0; i < out.values_per_level.size(); ++i) {
    const LevelValues& level = out.values_per_level[i];
    if (level.individual.has_value() && level.individual->roots.size() != n) {
      return r.ctx().Fail(*r.Get("valuesPerLevel"), IndexPath(r.PathOf("valuesPerLevel"), i),
                          "valuesPerLevel.individual, if set, must have roots of length equal "
                          "to domainCount of this TopologyAssignmentSlice");
    }
  }
  if (out.pod_counts.individual.has_value() && out.pod_counts.individual->size() != n) {
    return r.ctx().Fail(*r.Get("podCounts"), r.PathOf("podCounts"),
                        "podCounts.individual must have length equal to domainCount");
  }
  return Status::Ok();
}

std::string ValueAt(const LevelValues& level, size_t i) {
  if (level.universal.has_value()) return *level.universal;
  const IndividualValues& ind = *level.individual;
  return ind.prefix + ind.roots[i] + ind.suffix;
}

Status DecodeTopologyAssignmentSlices(MapReader& r, api::TopologyAssignment& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("levels"));
  KUOTA_RETURN_IF_ERROR(r.StringList("levels", out.levels));
  std::vector<Slice> slices;
  KUOTA_RETURN_IF_ERROR(r.ObjectList("slices", slices, DecodeSlice));
  int64_t total = 0;
  const YamlNode* slice_nodes = slices.empty() ? nullptr : r.Get("slices");
  for (size_t s = 0; s < slices.size(); ++s) {
    const std::string path = IndexPath(r.PathOf("slices"), s);
    if (slices[s].values_per_level.size() != out.levels.size()) {
      return r.ctx().Fail(slice_nodes->item(s), path + ".valuesPerLevel",
                          "valuesPerLevel must have the same length as the number of levels in "
                          "this TopologyAssignment");
    }
    total += slices[s].domain_count;
    if (total > kMaxTopologyDomains) {
      return r.ctx().Fail(slice_nodes->item(s), path + ".domainCount",
                          "the slices hold more than " + std::to_string(kMaxTopologyDomains) +
                              " domains in all, over Kuota's limit");
    }
  }
  out.domains.clear();
  out.domains.reserve(static_cast<size_t>(total));
  for (const Slice& slice : slices) {
    for (size_t i = 0; i < static_cast<size_t>(slice.domain_count); ++i) {
      api::TopologyDomainAssignment& domain = out.domains.emplace_back();
      domain.values.reserve(slice.values_per_level.size());
      for (const LevelValues& level : slice.values_per_level) {
        domain.values.push_back(ValueAt(level, i));
      }
      domain.count = slice.pod_counts.universal.has_value() ? *slice.pod_counts.universal
                                                            : (*slice.pod_counts.individual)[i];
    }
  }
  return Status::Ok();
}

}  // namespace

Status DecodePodSetTopologyRequest(MapReader& r, api::PodSetTopologyRequest& out) {
  auto opt_string = [&r](std::string_view key, std::optional<std::string>& field) -> Status {
    std::string value;
    KUOTA_RETURN_IF_ERROR(r.String(key, value));
    if (r.Has(key)) field = std::move(value);
    return Status::Ok();
  };
  KUOTA_RETURN_IF_ERROR(opt_string("required", out.required));
  KUOTA_RETURN_IF_ERROR(opt_string("preferred", out.preferred));
  KUOTA_RETURN_IF_ERROR(r.OptBool("unconstrained", out.unconstrained));
  KUOTA_RETURN_IF_ERROR(opt_string("podIndexLabel", out.pod_index_label));
  KUOTA_RETURN_IF_ERROR(opt_string("subGroupIndexLabel", out.sub_group_index_label));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("subGroupCount", out.sub_group_count));
  KUOTA_RETURN_IF_ERROR(opt_string("podSetGroupName", out.pod_set_group_name));
  KUOTA_RETURN_IF_ERROR(
      opt_string("podSetSliceRequiredTopology", out.pod_set_slice_required_topology));
  return r.OptInt32("podSetSliceSize", out.pod_set_slice_size);
}

Status DecodePodSetTopologyRequestV1beta2(MapReader& r, api::PodSetTopologyRequest& out) {
  KUOTA_RETURN_IF_ERROR(DecodePodSetTopologyRequest(r, out));
  // v1beta2's multi-layer slice constraints have no v1beta1 field; Kueue's
  // conversion to v1beta1 drops them, and so does this reading.
  r.Ignore({"podsetSliceRequiredTopologyConstraints"});
  return Status::Ok();
}

Status DecodeTopologyAssignment(MapReader& r, api::TopologyAssignment& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"levels", "domains"}));
  KUOTA_RETURN_IF_ERROR(r.StringList("levels", out.levels));
  return r.ObjectList("domains", out.domains, DecodeTopologyDomainAssignment);
}

Status DecodeTopologyAssignmentV1beta2(MapReader& r, api::TopologyAssignment& out) {
  KUOTA_RETURN_IF_ERROR(r.Removed("domains", "kueue.x-k8s.io/v1beta2 lists domains in slices"));
  return DecodeTopologyAssignmentSlices(r, out);
}

}  // namespace kuota::codec
