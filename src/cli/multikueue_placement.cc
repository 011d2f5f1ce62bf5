#include "cli/multikueue_placement.h"

#include "cli/fields.h"
#include "cli/resource_kinds.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

constexpr const char* kMkController = "kueue.x-k8s.io/multikueue";
constexpr const char* kMkAdmittedPrefix = "The workload was admitted on \"";

std::vector<std::string> MkStrings(const Json* list) {
  std::vector<std::string> out;
  if (list == nullptr || !list->is_array()) return out;
  for (const Json& v : *list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string MkJoin(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::optional<MultiKueuePlacement> FindMultiKueuePlacement(const Json& workload,
                                                           const MultiKueueChecks& checks) {
  MultiKueuePlacement p;
  p.cluster = Text(workload, {"status", "clusterName"});
  p.nominated = MkStrings(Field(workload, {"status", "nominatedClusterNames"}));
  const bool dispatched = !p.cluster.empty() || !p.nominated.empty();
  const Json* entries = Field(workload, {"status", "admissionChecks"});
  const Json* entry = nullptr;
  if (entries != nullptr && entries->is_array()) {
    for (const Json& e : *entries) {
      const std::string name = Text(e, {"name"});
      if (checks.count(name) != 0 ||
          (checks.empty() && Text(e, {"message"}).rfind(kMkAdmittedPrefix, 0) == 0)) {
        entry = &e;
        break;
      }
    }
    if (entry == nullptr && checks.empty() && dispatched && entries->size() == 1) {
      entry = &(*entries)[0];
    }
  }
  if (entry == nullptr && !dispatched) return std::nullopt;
  if (entry != nullptr) {
    p.check = Text(*entry, {"name"});
    p.state = Text(*entry, {"state"}, "Pending");
    p.message = Text(*entry, {"message"});
    if (auto it = checks.find(p.check); it != checks.end()) p.workers = it->second;
  }
  return p;
}

std::vector<std::pair<std::string, std::string>> MultiKueueLines(const MultiKueuePlacement& p) {
  std::vector<std::pair<std::string, std::string>> lines;
  if (!p.cluster.empty()) {
    std::string why;
    if (!p.nominated.empty()) {
      why = "the first of its nominated workers " + MkJoin(p.nominated) + " to admit it";
    } else if (!p.workers.empty()) {
      why = "the first of its workers " + MkJoin(p.workers) + " to admit it";
    } else {
      why = "the worker that admitted it";
    }
    lines.emplace_back("Runs on", p.cluster + " (" + why + ")");
  } else if (!p.nominated.empty()) {
    lines.emplace_back("Dispatched to",
                       MkJoin(p.nominated) + " (waiting for one of them to admit it)");
  } else if (p.state == "Pending" || p.state.empty()) {
    lines.emplace_back("Dispatched to",
                       "<none> yet (once it reserves quota here: to the active workers" +
                           (p.workers.empty() ? "" : " of " + MkJoin(p.workers)) + ")");
  }
  if (!p.check.empty()) {
    lines.emplace_back(
        "Check", p.check + " (" + p.state + ")" + (p.message.empty() ? "" : ": " + p.message));
  }
  if (p.state == "Retry") {
    lines.emplace_back("Retry", p.message + " (it is evicted and dispatched again)");
  } else if (p.state == "Rejected") {
    lines.emplace_back("Rejected", p.message + " (it is deactivated)");
  }
  return lines;
}

std::string MultiKueueWaitReason(const MultiKueuePlacement& p) {
  if (p.state == "Ready") return "";
  const std::string check = p.check.empty() ? "" : " (MultiKueue check " + p.check + ")";
  if (p.state == "Retry") {
    return "its MultiKueue check " + p.check + " is Retry: " + p.message +
           "; it is evicted and dispatched again";
  }
  if (p.state == "Rejected")
    return "its MultiKueue check " + p.check + " rejected it: " + p.message;
  if (!p.nominated.empty()) {
    return "waiting for a worker cluster to admit it: dispatched to " + MkJoin(p.nominated) + check;
  }
  return "waiting for a worker cluster to admit it: not yet dispatched to any" +
         (p.workers.empty() ? std::string() : " of " + MkJoin(p.workers)) + check;
}

Result<MultiKueueChecks> FetchMultiKueueChecks(const ApiClient& client) {
  Result<Json> acs = client.Get(FindKind("admissionchecks")->CollectionPath(""));
  if (!acs.ok()) return acs.status();
  std::map<std::string, std::vector<std::string>> configs;
  Result<Json> cfgs = client.Get(FindKind("multikueueconfigs")->CollectionPath(""));
  if (cfgs.ok()) {
    for (const Json& c : cfgs->value("items", Json::array())) {
      configs[Text(c, {"metadata", "name"})] = MkStrings(Field(c, {"spec", "clusters"}));
    }
  }
  MultiKueueChecks out;
  for (const Json& ac : acs->value("items", Json::array())) {
    if (Text(ac, {"spec", "controllerName"}) != kMkController) continue;
    std::vector<std::string>& workers = out[Text(ac, {"metadata", "name"})];
    if (auto it = configs.find(Text(ac, {"spec", "parameters", "name"})); it != configs.end()) {
      workers = it->second;
    }
  }
  return out;
}

}  // namespace kuota::cli
