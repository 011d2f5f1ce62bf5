#include "runtime/gpu_topology_spec.h"

#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>

namespace kuota::runtime {
namespace {

// The levels a spec names, closest first; index 0 is NVLink, 1.. the PCIe
// levels in the order they nest.
constexpr std::array<const char*, 4> kSpecLevels = {"nvlink", "pcie", "hostbridge", "numa"};
constexpr std::array<PcieLevel, 3> kSpecPcie = {PcieLevel::kSwitch, PcieLevel::kHostBridge,
                                                PcieLevel::kNumaNode};

std::string_view TrimSpec(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitSpec(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    size_t at = s.find(sep);
    out.push_back(TrimSpec(s.substr(0, at)));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

std::optional<int> SpecIndex(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// One group's GPUs ("0+2+4-5"), as given.
Result<std::vector<int>> SpecGroup(std::string_view text, const std::string& level) {
  std::vector<int> out;
  if (text.empty()) return Status::Invalid(level + ": empty group");
  for (std::string_view item : SplitSpec(text, '+')) {
    size_t dash = item.find('-');
    std::optional<int> lo = SpecIndex(TrimSpec(item.substr(0, dash)));
    std::optional<int> hi =
        dash == std::string_view::npos ? lo : SpecIndex(TrimSpec(item.substr(dash + 1)));
    if (!lo || !hi) {
      return Status::Invalid(level + ": \"" + std::string(item) +
                             "\" is not a GPU index or a range A-B");
    }
    if (*hi < *lo) {
      return Status::Invalid(level + ": range \"" + std::string(item) + "\" runs backwards");
    }
    if (*hi - *lo > 4096) {
      return Status::Invalid(level + ": range \"" + std::string(item) + "\" is too long");
    }
    for (int i = *lo; i <= *hi; ++i) out.push_back(i);
  }
  return out;
}

// The groups of GPUs at one level as group numbers by position (-1: none);
// members lists each group's positions.
struct SpecLevelGroups {
  std::vector<int> group_of;
  std::vector<std::vector<int>> members;
};

Result<SpecLevelGroups> SpecLevel(std::string_view groups, const std::string& level,
                                  const std::vector<int>& indices, const GpuTopology& positions) {
  SpecLevelGroups out;
  out.group_of.assign(indices.size(), -1);
  for (std::string_view g : SplitSpec(groups, ',')) {
    KUOTA_ASSIGN_OR_RETURN(std::vector<int> gpus, SpecGroup(g, level));
    std::vector<int> members;
    for (int index : gpus) {
      int pos = positions.PositionOf(index);
      if (pos < 0) {
        return Status::Invalid(level + ": GPU " + std::to_string(index) +
                               " is not on this machine (GPUs " + FormatGpuRanges(indices) + ")");
      }
      if (out.group_of[pos] >= 0) {
        return Status::Invalid(level + ": GPU " + std::to_string(index) +
                               (out.group_of[pos] == static_cast<int>(out.members.size())
                                    ? " is listed twice in one group"
                                    : " is in two groups"));
      }
      out.group_of[pos] = static_cast<int>(out.members.size());
      members.push_back(pos);
    }
    out.members.push_back(std::move(members));
  }
  return out;
}

std::string SpecMembers(const std::vector<int>& positions, const std::vector<int>& indices) {
  std::vector<int> gpus;
  for (int p : positions) gpus.push_back(indices[p]);
  return FormatGpuRanges(gpus);
}

}  // namespace

Result<GpuTopology> ParseGpuTopologySpec(const std::string& spec, const std::vector<int>& indices) {
  GpuTopology t = GpuTopology::Flat(indices);
  if (TrimSpec(spec).empty()) return Status::Invalid("the topology is empty");
  std::array<std::optional<SpecLevelGroups>, kSpecLevels.size()> levels;
  for (std::string_view part : SplitSpec(spec, ';')) {
    size_t eq = part.find('=');
    if (part.empty()) return Status::Invalid("empty part (two ';' in a row, or one at an end)");
    if (eq == std::string_view::npos) {
      return Status::Invalid("\"" + std::string(part) +
                             "\": expected LEVEL=GROUPS, e.g. nvlink=0-3,4-7");
    }
    const std::string name(TrimSpec(part.substr(0, eq)));
    size_t which = 0;
    while (which < kSpecLevels.size() && name != kSpecLevels[which]) ++which;
    if (which == kSpecLevels.size()) {
      return Status::Invalid("unknown level \"" + name +
                             "\" (levels: nvlink, pcie, hostbridge, numa)");
    }
    if (levels[which]) return Status::Invalid("level " + name + " is given twice");
    KUOTA_ASSIGN_OR_RETURN(levels[which],
                           SpecLevel(TrimSpec(part.substr(eq + 1)), name, t.indices, t));
  }
  // PCIe groups nest: each inside one group of every wider level given.
  for (size_t inner = 1; inner < kSpecLevels.size(); ++inner) {
    if (!levels[inner]) continue;
    for (size_t outer = inner + 1; outer < kSpecLevels.size(); ++outer) {
      if (!levels[outer]) continue;
      for (const auto& members : levels[inner]->members) {
        std::map<int, std::vector<int>> spans;  // outer group -> these members in it
        for (int p : members) spans[levels[outer]->group_of[p]].push_back(p);
        if (spans.size() == 1 && spans.begin()->first >= 0) continue;
        std::string where;
        for (const auto& [g, in] : spans) {
          if (!where.empty()) where += " and ";
          where += g < 0 ? "no " + std::string(kSpecLevels[outer]) + " group (GPUs " +
                               SpecMembers(in, t.indices) + ")"
                         : SpecMembers(levels[outer]->members[g], t.indices);
        }
        return Status::Invalid(std::string(kSpecLevels[inner]) + ": group " +
                               SpecMembers(members, t.indices) + " is not inside one " +
                               kSpecLevels[outer] + " group: it spans " + where);
      }
    }
  }
  const size_t n = t.indices.size();
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      auto same = [&](size_t level) {
        return levels[level] && levels[level]->group_of[a] >= 0 &&
               levels[level]->group_of[a] == levels[level]->group_of[b];
      };
      t.nvlink[a][b] = same(0);
      for (size_t l = 1; l < kSpecLevels.size(); ++l) {
        if (same(l)) {
          t.pcie[a][b] = kSpecPcie[l - 1];
          break;
        }
      }
    }
  }
  t.known = true;
  return t;
}

std::string FormatGpuTopologySpec(const GpuTopology& topology) {
  if (!topology.known) return "";
  std::string out;
  std::vector<int> previous;
  auto add = [&](const char* name, const std::vector<int>& group_of) {
    std::map<int, std::vector<int>> groups;
    for (size_t p = 0; p < group_of.size(); ++p) {
      groups[group_of[p]].push_back(topology.indices[p]);
    }
    std::string text;
    for (const auto& [g, gpus] : groups) {
      if (gpus.size() < 2) continue;
      std::string one = FormatGpuRanges(gpus);
      for (char& c : one) {
        if (c == ',') c = '+';
      }
      text += (text.empty() ? "" : ",") + one;
    }
    if (text.empty()) return;
    out += (out.empty() ? "" : ";") + std::string(name) + "=" + text;
  };
  add("nvlink", GpuComponents(topology, true, std::nullopt));
  for (size_t l = 1; l < kSpecLevels.size(); ++l) {
    std::vector<int> group_of = GpuComponents(topology, false, kSpecPcie[l - 1]);
    if (group_of == previous) continue;
    previous = group_of;
    add(kSpecLevels[l], group_of);
  }
  return out;
}

}  // namespace kuota::runtime
