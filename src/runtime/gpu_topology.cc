#include "runtime/gpu_topology.h"

#include <algorithm>

namespace kuota::runtime {

const char* PcieLevelName(PcieLevel level) {
  switch (level) {
    case PcieLevel::kSwitch:
      return "PCIe switch";
    case PcieLevel::kHostBridge:
      return "PCIe host bridge";
    case PcieLevel::kNumaNode:
      return "NUMA node";
    case PcieLevel::kSystem:
      break;
  }
  return "machine";
}

GpuTopology GpuTopology::Flat(std::vector<int> indices) {
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  GpuTopology t;
  const size_t n = indices.size();
  t.indices = std::move(indices);
  t.nvlink.assign(n, std::vector<bool>(n, false));
  t.pcie.assign(n, std::vector<PcieLevel>(n, PcieLevel::kSystem));
  return t;
}

int GpuTopology::PositionOf(int index) const {
  auto it = std::lower_bound(indices.begin(), indices.end(), index);
  if (it == indices.end() || *it != index) return -1;
  return static_cast<int>(it - indices.begin());
}

Status GpuTopology::Validate() const {
  const size_t n = indices.size();
  for (size_t i = 1; i < n; ++i) {
    if (indices[i] <= indices[i - 1]) {
      return Status::Invalid("GPU topology: indices are not strictly ascending");
    }
  }
  if (nvlink.size() != n || pcie.size() != n) {
    return Status::Invalid("GPU topology: matrices do not match the " + std::to_string(n) +
                           " GPU(s)");
  }
  for (size_t a = 0; a < n; ++a) {
    if (nvlink[a].size() != n || pcie[a].size() != n) {
      return Status::Invalid("GPU topology: row " + std::to_string(a) + " is not " +
                             std::to_string(n) + " wide");
    }
  }
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = a + 1; b < n; ++b) {
      if (nvlink[a][b] != nvlink[b][a] || pcie[a][b] != pcie[b][a]) {
        return Status::Invalid("GPU topology: GPUs " + std::to_string(indices[a]) + " and " +
                               std::to_string(indices[b]) + " disagree on their link");
      }
    }
  }
  return Status::Ok();
}

std::vector<int> GpuComponents(const GpuTopology& topology, bool nvlink,
                               std::optional<PcieLevel> pcie) {
  const size_t n = topology.indices.size();
  std::vector<int> group(n, -1);
  int next = 0;
  for (size_t start = 0; start < n; ++start) {
    if (group[start] >= 0) continue;
    std::vector<size_t> stack = {start};
    group[start] = next;
    while (!stack.empty()) {
      size_t a = stack.back();
      stack.pop_back();
      for (size_t b = 0; b < n; ++b) {
        if (group[b] >= 0) continue;
        bool joined = (nvlink && topology.nvlink[a][b]) || (pcie && topology.pcie[a][b] <= *pcie);
        if (!joined) continue;
        group[b] = next;
        stack.push_back(b);
      }
    }
    ++next;
  }
  return group;
}

std::string FormatGpuRanges(const std::vector<int>& indices) {
  std::vector<int> s = indices;
  std::sort(s.begin(), s.end());
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t j = i;
    while (j + 1 < s.size() && s[j + 1] == s[j] + 1) ++j;
    auto add = [&out](int v) {
      if (!out.empty()) out += ',';
      out += std::to_string(v);
    };
    if (j - i >= 2) {
      add(s[i]);
      out += '-' + std::to_string(s[j]);
    } else {
      for (size_t k = i; k <= j; ++k) add(s[k]);
    }
    i = j + 1;
  }
  return out;
}

}  // namespace kuota::runtime
