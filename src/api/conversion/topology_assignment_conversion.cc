// A pod set assignment's topologyAssignment between v1beta1's domain list
// ({levels, domains: [{values, count}]}) and v1beta2's slices, as Kueue's
// conversion does it (apis/kueue/v1beta1/workload_conversion.go over
// pkg/util/tas/tas_assignment.go, TASAssignmentsEncodingByHostnamePrefix on
// as in v0.20): up, the domains are grouped into runs sharing a reusable
// hostname prefix (when the lowest level is kubernetes.io/hostname), each run
// one slice with common prefixes, suffixes and universal values and counts
// extracted, unless one compacted slice serializes smaller; down, the slices
// expand into the domains again.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/conversion/kind_conversions.h"

namespace kuota::conversion {
namespace {

// Kueue's limits: domains per slice (roots MaxItems) and slices per
// assignment; also Kuota's bound on the domains one assignment expands to.
constexpr size_t kMaxDomainsPerSlice = 100'000;
constexpr size_t kMaxSlices = 1'000;
constexpr int64_t kMaxExpandedDomains = 100'000;
constexpr std::string_view kHostname = "kubernetes.io/hostname";

struct Domain {
  std::vector<std::string> values;
  int64_t count = 0;
};

Status Invalid(const std::string& path, std::string_view message) {
  return Status::Invalid(path + ": Invalid value: " + std::string(message));
}

// ---- v1beta1 -> v1beta2 -------------------------------------------------

// fillSingleCompactSliceValues: one level's values in a slice, as a
// universal value when all are equal, else roots with the common prefix and
// suffix (never overlapping) taken out.
Json CompactLevelValues(const std::vector<const std::string*>& values) {
  std::string_view prefix = *values[0];
  std::string_view suffix = *values[0];
  size_t min_len = values[0]->size();
  size_t max_len = values[0]->size();
  for (size_t k = 1; k < values.size(); ++k) {
    std::string_view s = *values[k];
    const size_t n = s.size();
    min_len = std::min(min_len, n);
    max_len = std::max(max_len, n);
    if (n < prefix.size()) prefix = prefix.substr(0, n);
    if (n < suffix.size()) suffix = suffix.substr(suffix.size() - n);
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (s[i] != prefix[i]) {
        prefix = prefix.substr(0, i);
        break;
      }
    }
    for (size_t i = 0; i < suffix.size(); ++i) {
      if (s[s.size() - 1 - i] != suffix[suffix.size() - 1 - i]) {
        suffix = suffix.substr(suffix.size() - i);
        break;
      }
    }
  }
  if (prefix.size() == max_len) return Json{{"universal", std::string(prefix)}};
  if (prefix.size() + suffix.size() > min_len) prefix = prefix.substr(0, min_len - suffix.size());
  Json individual = Json::object();
  if (!prefix.empty()) individual["prefix"] = std::string(prefix);
  if (!suffix.empty()) individual["suffix"] = std::string(suffix);
  Json roots = Json::array();
  for (const std::string* s : values) {
    roots.push_back(s->substr(prefix.size(), s->size() - prefix.size() - suffix.size()));
  }
  individual["roots"] = std::move(roots);
  return Json{{"individual", std::move(individual)}};
}

// compactSliceEncoding: `n` domains from `first` as one slice.
Json CompactSlice(size_t levels, const Domain* first, size_t n) {
  Json values_per_level = Json::array();
  std::vector<const std::string*> values(n);
  for (size_t level = 0; level < levels; ++level) {
    for (size_t i = 0; i < n; ++i) values[i] = &first[i].values[level];
    values_per_level.push_back(CompactLevelValues(values));
  }
  bool same_counts = true;
  Json counts = Json::array();
  for (size_t i = 0; i < n; ++i) {
    counts.push_back(first[i].count);
    if (first[i].count != first[0].count) same_counts = false;
  }
  Json pod_counts =
      same_counts ? Json{{"universal", first[0].count}} : Json{{"individual", std::move(counts)}};
  return Json{{"domainCount", n},
              {"valuesPerLevel", std::move(values_per_level)},
              {"podCounts", std::move(pod_counts)}};
}

size_t ChunkCount(size_t length) {
  return (length + kMaxDomainsPerSlice - 1) / kMaxDomainsPerSlice;
}

// reusableHostnamePrefixKeys: per domain, the longest '-'-ended prefix of its
// hostname that another domain shares, backing off to shorter prefixes until
// the runs fit kMaxSlices; empty when none fits.
std::vector<std::string_view> HostnamePrefixKeys(size_t level, const std::vector<Domain>& domains) {
  std::vector<size_t> offsets(domains.size() + 1, 0);
  std::vector<size_t> ends;
  std::map<std::string_view, int> counts;
  size_t max_depth = 0;
  for (size_t i = 0; i < domains.size(); ++i) {
    std::string_view hostname = domains[i].values[level];
    for (size_t end = 0; end + 1 < hostname.size(); ++end) {
      if (hostname[end] != '-') continue;
      ends.push_back(end + 1);
      int& c = counts[hostname.substr(0, end + 1)];
      if (c < 2) ++c;
    }
    offsets[i + 1] = ends.size();
    max_depth = std::max(max_depth, offsets[i + 1] - offsets[i]);
  }
  std::vector<std::string_view> keys(domains.size());
  for (size_t depth = max_depth; depth >= 1; --depth) {
    for (size_t i = 0; i < domains.size(); ++i) {
      keys[i] = {};
      std::string_view hostname = domains[i].values[level];
      const size_t start = offsets[i];
      const size_t candidates = std::min(offsets[i + 1] - start, depth);
      for (size_t j = candidates; j-- > 0;) {
        std::string_view prefix = hostname.substr(0, ends[start + j]);
        if (counts[prefix] < 2) continue;
        keys[i] = prefix;
        break;
      }
    }
    size_t slices = 0;
    size_t start = 0;
    for (size_t i = 1; i < domains.size(); ++i) {
      if (keys[i] == keys[start]) continue;
      slices += ChunkCount(i - start);
      start = i;
    }
    slices += ChunkCount(domains.size() - start);
    if (slices <= kMaxSlices) return keys;
  }
  return {};
}

// compactTopologyAssignmentEncodingWithHostnamePrefixRuns.
Json PrefixRunSlices(const std::vector<std::string>& levels, const std::vector<Domain>& domains) {
  std::vector<std::string_view> keys;
  if (domains.size() > 1 && !levels.empty() && levels.back() == kHostname) {
    keys = HostnamePrefixKeys(levels.size() - 1, domains);
  }
  Json slices = Json::array();
  auto add_run = [&](size_t begin, size_t end) {
    for (size_t at = begin; at < end; at += kMaxDomainsPerSlice) {
      slices.push_back(
          CompactSlice(levels.size(), &domains[at], std::min(kMaxDomainsPerSlice, end - at)));
    }
  };
  if (domains.empty()) return slices;
  size_t start = 0;
  if (!keys.empty()) {
    for (size_t i = 1; i < domains.size(); ++i) {
      if (keys[i] == keys[start]) continue;
      add_run(start, i);
      start = i;
    }
  }
  add_run(start, domains.size());
  return slices;
}

// v1beta2's TopologyAssignment as Go marshals it: empty levels and slices
// are omitted.
Json V1beta2Assignment(const Json& levels, Json slices) {
  Json out = Json::object();
  if (levels.is_array() && !levels.empty()) out["levels"] = levels;
  if (!slices.empty()) out["slices"] = std::move(slices);
  return out;
}

Status ReadDomains(const Json& assignment, const std::string& path,
                   std::vector<std::string>& levels, std::vector<Domain>& domains) {
  auto levels_it = assignment.find("levels");
  if (levels_it != assignment.end() && !levels_it->is_null()) {
    if (!levels_it->is_array()) return Invalid(path + ".levels", "expected a list");
    for (size_t i = 0; i < levels_it->size(); ++i) {
      const Json& level = (*levels_it)[i];
      if (!level.is_string()) {
        return Invalid(path + ".levels[" + std::to_string(i) + "]", "expected a string");
      }
      levels.push_back(level.get<std::string>());
    }
  }
  auto domains_it = assignment.find("domains");
  if (domains_it == assignment.end() || domains_it->is_null()) return Status::Ok();
  if (!domains_it->is_array()) return Invalid(path + ".domains", "expected a list");
  for (size_t i = 0; i < domains_it->size(); ++i) {
    const Json& d = (*domains_it)[i];
    const std::string dp = path + ".domains[" + std::to_string(i) + "]";
    if (!d.is_object()) return Invalid(dp, "expected an object");
    Domain& domain = domains.emplace_back();
    auto values = d.find("values");
    if (values != d.end() && values->is_array()) {
      for (const Json& v : *values) {
        if (!v.is_string()) return Invalid(dp + ".values", "expected a list of strings");
        domain.values.push_back(v.get<std::string>());
      }
    }
    if (domain.values.size() != levels.size()) {
      return Invalid(dp + ".values",
                     "must have one value per level (" + std::to_string(levels.size()) + ")");
    }
    auto count = d.find("count");
    if (count == d.end() || !count->is_number_integer()) {
      return Invalid(dp + ".count", "expected an integer");
    }
    domain.count = count->get<int64_t>();
  }
  return Status::Ok();
}

// ---- v1beta2 -> v1beta1 -------------------------------------------------

const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// One slice's values at one level: a function of the domain's index.
struct LevelValues {
  const Json* universal = nullptr;
  std::string prefix, suffix;
  const Json* roots = nullptr;
};

constexpr const char* kExactlyOneOf =
    "exactly one of the fields in [universal individual] must be set";

Status ExpandSlice(const Json& slice, size_t levels, const std::string& path, int64_t& total,
                   Json& domains) {
  if (!slice.is_object()) return Invalid(path, "expected an object");
  const Json* count_json = Member(slice, "domainCount");
  if (count_json == nullptr || !count_json->is_number_integer() || count_json->get<int64_t>() < 1) {
    return Invalid(path + ".domainCount", "should be an integer greater than or equal to 1");
  }
  const int64_t domain_count = count_json->get<int64_t>();
  total += domain_count;
  if (total > kMaxExpandedDomains) {
    return Invalid(path + ".domainCount", "the slices hold more than " +
                                              std::to_string(kMaxExpandedDomains) +
                                              " domains in all, over Kuota's limit");
  }
  const size_t n = static_cast<size_t>(domain_count);
  const Json* per_level = Member(slice, "valuesPerLevel");
  if (per_level == nullptr || !per_level->is_array() || per_level->size() != levels) {
    return Invalid(path + ".valuesPerLevel",
                   "valuesPerLevel must have the same length as the number of levels in this "
                   "TopologyAssignment");
  }
  std::vector<LevelValues> values(levels);
  for (size_t l = 0; l < levels; ++l) {
    const std::string lp = path + ".valuesPerLevel[" + std::to_string(l) + "]";
    const Json* universal = Member((*per_level)[l], "universal");
    const Json* individual = Member((*per_level)[l], "individual");
    if ((universal == nullptr) == (individual == nullptr)) return Invalid(lp, kExactlyOneOf);
    if (universal != nullptr) {
      if (!universal->is_string()) return Invalid(lp + ".universal", "expected a string");
      values[l].universal = universal;
      continue;
    }
    const Json* roots = Member(*individual, "roots");
    if (roots == nullptr || !roots->is_array() || roots->size() != n) {
      return Invalid(lp,
                     "valuesPerLevel.individual, if set, must have roots of length equal to "
                     "domainCount of this TopologyAssignmentSlice");
    }
    for (const Json& root : *roots) {
      if (!root.is_string()) return Invalid(lp + ".individual.roots", "expected strings");
    }
    auto read_part = [&](const char* key, std::string& out) -> Status {
      const Json* part = Member(*individual, key);
      if (part == nullptr) return Status::Ok();
      if (!part->is_string()) return Invalid(lp + ".individual." + key, "expected a string");
      out = part->get<std::string>();
      return Status::Ok();
    };
    KUOTA_RETURN_IF_ERROR(read_part("prefix", values[l].prefix));
    KUOTA_RETURN_IF_ERROR(read_part("suffix", values[l].suffix));
    values[l].roots = roots;
  }
  const Json* pod_counts = Member(slice, "podCounts");
  const Json* universal = pod_counts ? Member(*pod_counts, "universal") : nullptr;
  const Json* individual = pod_counts ? Member(*pod_counts, "individual") : nullptr;
  if ((universal == nullptr) == (individual == nullptr)) {
    return Invalid(path + ".podCounts", kExactlyOneOf);
  }
  if (universal != nullptr && !universal->is_number_integer()) {
    return Invalid(path + ".podCounts.universal", "expected an integer");
  }
  if (individual != nullptr) {
    if (!individual->is_array() || individual->size() != n) {
      return Invalid(path + ".podCounts",
                     "podCounts.individual must have length equal to domainCount");
    }
    for (const Json& c : *individual) {
      if (!c.is_number_integer())
        return Invalid(path + ".podCounts.individual", "expected integers");
    }
  }
  for (size_t i = 0; i < n; ++i) {
    Json domain_values = Json::array();
    for (const LevelValues& v : values) {
      domain_values.push_back(v.universal != nullptr
                                  ? v.universal->get<std::string>()
                                  : v.prefix + (*v.roots)[i].get<std::string>() + v.suffix);
    }
    domains.push_back({{"values", std::move(domain_values)},
                       {"count", universal != nullptr ? *universal : (*individual)[i]}});
  }
  return Status::Ok();
}

}  // namespace

Status TopologyAssignmentUp(Json& assignment, const std::string& path) {
  if (!assignment.is_object()) return Status::Ok();
  std::vector<std::string> levels;
  std::vector<Domain> domains;
  KUOTA_RETURN_IF_ERROR(ReadDomains(assignment, path, levels, domains));
  const Json levels_json = assignment.value("levels", Json());
  Json by_prefix = PrefixRunSlices(levels, domains);
  if (by_prefix.size() > 1 && domains.size() <= kMaxDomainsPerSlice) {
    // compactTopologyAssignmentEncoding: one compacted slice when its JSON
    // is smaller.
    Json single = V1beta2Assignment(
        levels_json, Json::array({CompactSlice(levels.size(), domains.data(), domains.size())}));
    Json prefixed = V1beta2Assignment(levels_json, std::move(by_prefix));
    assignment =
        single.dump().size() < prefixed.dump().size() ? std::move(single) : std::move(prefixed);
    return Status::Ok();
  }
  assignment = V1beta2Assignment(levels_json, std::move(by_prefix));
  return Status::Ok();
}

Status TopologyAssignmentDown(Json& assignment, const std::string& path) {
  if (!assignment.is_object()) return Status::Ok();
  const Json* levels = Member(assignment, "levels");
  if (levels != nullptr && !levels->is_array()) return Invalid(path + ".levels", "expected a list");
  const size_t level_count = levels == nullptr ? 0 : levels->size();
  Json domains = Json::array();
  int64_t total = 0;
  if (const Json* slices = Member(assignment, "slices")) {
    if (!slices->is_array()) return Invalid(path + ".slices", "expected a list");
    for (size_t s = 0; s < slices->size(); ++s) {
      KUOTA_RETURN_IF_ERROR(ExpandSlice(
          (*slices)[s], level_count, path + ".slices[" + std::to_string(s) + "]", total, domains));
    }
  }
  Json out = {{"levels", levels == nullptr ? Json() : *levels}, {"domains", std::move(domains)}};
  assignment = std::move(out);
  return Status::Ok();
}

}  // namespace kuota::conversion
