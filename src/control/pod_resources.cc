#include "control/pod_resources.h"

#include <algorithm>

#include "api/quantity.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

bool IsBinary(const std::string& name) {
  return name == "memory" || name == "ephemeral-storage" || name.rfind("hugepages-", 0) == 0;
}

std::string Show(const std::string& name, int64_t milli) {
  return api::Quantity::FromMilli(milli).ToString(IsBinary(name)) + " " + name;
}

Status ReadList(const Json& resources, const char* which, const std::string& path,
                ResourceAmounts* out) {
  if (!resources.is_object()) return Status::Ok();
  auto it = resources.find(which);
  if (it == resources.end() || it->is_null()) return Status::Ok();
  if (!it->is_object()) return Status::Invalid(path + "." + which + ": must be a map");
  for (const auto& [name, v] : it->items()) {
    std::string text = v.is_string() ? v.get<std::string>() : v.is_number() ? v.dump() : "";
    auto q = api::Quantity::Parse(text);
    if (!q.ok()) {
      return Status::Invalid(path + "." + which + "." + name + ": " + q.status().message());
    }
    (*out)[name] = q->milli();
  }
  return Status::Ok();
}

Result<ResourceAmounts> ContainerRequests(const Json& c, const std::string& path) {
  ResourceAmounts req, lim;
  auto r = c.is_object() ? c.find("resources") : c.end();
  if (c.is_object() && r != c.end()) {
    KUOTA_RETURN_IF_ERROR(ReadList(*r, "requests", path + ".resources", &req));
    KUOTA_RETURN_IF_ERROR(ReadList(*r, "limits", path + ".resources", &lim));
  }
  for (const auto& [name, v] : lim) req.emplace(name, v);  // request defaults to limit
  return req;
}

}  // namespace

Result<ResourceAmounts> PodRequests(const Json& pod) {
  ResourceAmounts total;
  const Json spec = pod.value("spec", Json::object());
  const Json containers = spec.value("containers", Json::array());
  for (size_t i = 0; i < containers.size(); ++i) {
    KUOTA_ASSIGN_OR_RETURN(
        ResourceAmounts r,
        ContainerRequests(containers[i], "spec.containers[" + std::to_string(i) + "]"));
    for (const auto& [name, v] : r) total[name] = api::Quantity::Add(total[name], v);
  }
  const Json inits = spec.value("initContainers", Json::array());
  for (size_t i = 0; i < inits.size(); ++i) {
    KUOTA_ASSIGN_OR_RETURN(
        ResourceAmounts r,
        ContainerRequests(inits[i], "spec.initContainers[" + std::to_string(i) + "]"));
    for (const auto& [name, v] : r) total[name] = std::max(total[name], v);
  }
  total["pods"] = 1000;
  return total;
}

ContainerLimits LimitsOf(const Json& container) {
  // cgroups enforce limits, as the kubelet does; requests only place pods.
  ContainerLimits out;
  ResourceAmounts lim;
  if (container.is_object() && container.contains("resources")) {
    (void)ReadList(container["resources"], "limits", "", &lim);
  }
  auto pick = [&](const char* name) -> int64_t {
    if (auto it = lim.find(name); it != lim.end()) return it->second;
    return 0;
  };
  out.cpu_millis = pick("cpu");
  out.memory_bytes = pick("memory") / 1000;
  return out;
}

std::string FirstShortfall(const ResourceAmounts& need, const ResourceAmounts& have) {
  for (const auto& [name, v] : need) {
    if (v <= 0) continue;
    auto it = have.find(name);
    if (it == have.end()) continue;  // not something this machine accounts for
    const int64_t h = it->second;
    if (v > h) return Show(name, v) + " (the machine has " + Show(name, h) + ")";
  }
  return "";
}

}  // namespace kuota::control
