#include "control/multikueue_clusters.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "auth/base64.h"
#include "base/time.h"
#include "control/meta_string.h"
#include "control/multikueue_objects.h"
#include "server/json_fields.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

constexpr const char* kMkClusters = "multikueueclusters.kueue.x-k8s.io";
constexpr const char* kMkSecrets = "secrets";
constexpr const char* kActive = "Active";

}  // namespace

bool IsUnreachable(const Status& why) { return why.code() == StatusCode::kUnavailable; }

WorkerClusters::WorkerClusters(store::ObjectStore& local, const Clock& clock,
                               RemoteClusterFactory factory, std::string controller_namespace)
    : local_(local),
      clock_(clock),
      factory_(std::move(factory)),
      namespace_(std::move(controller_namespace)) {}

Result<std::string> WorkerClusters::LoadKubeconfig(const Json& cluster) const {
  const Json& source = server::FieldValue(cluster, {"spec", "clusterSource"});
  const Json& kc = server::FieldValue(source, {"kubeConfig"});
  if (!kc.is_object()) {
    return Status::Unsupported(
        "clusterProfileRef is not supported by Kuota: give the worker's kubeconfig");
  }
  const std::string location = kc.value("location", "");
  const std::string type = kc.value("locationType", "Secret");
  if (type == "Path") {
    std::ifstream in(location);
    if (!in) return Status::NotFound("open " + location + ": no such file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  Result<Json> secret = local_.Get(kMkSecrets, namespace_, location);
  if (!secret.ok()) {
    if (secret.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("secrets \"" + location + "\" not found in namespace \"" +
                              namespace_ + "\"");
    }
    return secret.status();
  }
  const Json& data = server::FieldValue(*secret, {"data", "kubeconfig"});
  if (data.is_string()) {
    std::optional<std::string> decoded = auth::Base64Decode(data.get<std::string>());
    if (!decoded)
      return Status::Invalid("key \"kubeconfig\" in secret \"" + location + "\" is not base64");
    return *decoded;
  }
  const Json& plain = server::FieldValue(*secret, {"stringData", "kubeconfig"});
  if (plain.is_string()) return plain.get<std::string>();
  return Status::NotFound("key \"kubeconfig\" not found in secret \"" + location + "\"");
}

void WorkerClusters::SetState(WorkerCluster& c, bool active, std::string reason,
                              std::string message) {
  if (active) {
    c.lost_since.reset();
  } else if (!c.lost_since) {
    c.lost_since = clock_.Now();
  }
  c.active = active;
  c.reason = std::move(reason);
  c.message = std::move(message);
}

void WorkerClusters::Refresh(Duration probe_every) {
  Result<store::ListResult> listed = local_.List(kMkClusters, {});
  if (!listed.ok()) return;
  std::set<std::string> seen;
  const Time now = clock_.Now();
  for (const Json& obj : listed->items) {
    const std::string name = MetaString(obj, "name");
    seen.insert(name);
    WorkerCluster& c = clusters_[name];
    c.name = name;
    Result<std::string> kubeconfig = LoadKubeconfig(obj);
    if (!kubeconfig.ok()) {
      c.remote.reset();
      c.kubeconfig.clear();
      SetState(c, false, "BadConfig",
               "load client config failed: " + kubeconfig.status().message());
      WriteCondition(obj, c);
      continue;
    }
    if (!c.remote || *kubeconfig != c.kubeconfig) {
      c.kubeconfig = *kubeconfig;
      c.last_probe.reset();
      Result<std::unique_ptr<RemoteCluster>> opened = factory_(*kubeconfig);
      if (!opened.ok()) {
        c.remote.reset();
        SetState(c, false, "BadConfig", "load client config failed: " + opened.status().message());
        WriteCondition(obj, c);
        continue;
      }
      c.remote = std::move(*opened);
    }
    if (!c.last_probe || now - *c.last_probe >= probe_every) {
      c.last_probe = now;
      Status probed = c.remote->Probe();
      if (probed.ok()) {
        SetState(c, true, "Active", "Connected");
      } else {
        SetState(c, false, "ClientConnectionFailed", probed.message());
      }
    }
    WriteCondition(obj, c);
  }
  for (auto it = clusters_.begin(); it != clusters_.end();) {
    it = seen.count(it->first) ? std::next(it) : clusters_.erase(it);
  }
}

void WorkerClusters::WriteCondition(const Json& cluster, const WorkerCluster& c) {
  const std::string status = c.active ? "True" : "False";
  Json conditions = server::FieldValue(cluster, {"status", "conditions"});
  if (!conditions.is_array()) conditions = Json::array();
  Json* found = nullptr;
  for (Json& cond : conditions) {
    if (cond.is_object() && cond.value("type", "") == kActive) found = &cond;
  }
  if (found != nullptr && found->value("status", "") == status &&
      found->value("reason", "") == c.reason && found->value("message", "") == c.message) {
    return;
  }
  Json cond = {
      {"type", kActive},
      {"status", status},
      {"reason", c.reason},
      {"message", c.message},
      {"observedGeneration", server::FieldValue(cluster, {"metadata", "generation"}).is_number()
                                 ? server::FieldValue(cluster, {"metadata", "generation"})
                                 : Json(0)},
      {"lastTransitionTime", FormatRfc3339(clock_.Now())}};
  if (found != nullptr) {
    if (found->value("status", "") == status)
      cond["lastTransitionTime"] = (*found)["lastTransitionTime"];
    *found = std::move(cond);
  } else {
    conditions.push_back(std::move(cond));
  }
  Json update = cluster;
  update["status"]["conditions"] = std::move(conditions);
  store::UpdateOptions options;
  options.status_only = true;
  Result<Json> written = local_.Update(kMkClusters, std::move(update), options);
  if (!written.ok() &&
      written.status().code() != StatusCode::kConflict) {  // a conflict: next refresh
    std::fprintf(stderr, "kuotad: multikueue: writing the status of MultiKueueCluster %s: %s\n",
                 c.name.c_str(), written.status().message().c_str());
  }
}

RemoteCluster* WorkerClusters::Active(const std::string& name) {
  auto it = clusters_.find(name);
  if (it == clusters_.end() || !it->second.active || !it->second.remote) return nullptr;
  return it->second.remote.get();
}

const WorkerCluster* WorkerClusters::Find(const std::string& name) const {
  auto it = clusters_.find(name);
  return it == clusters_.end() ? nullptr : &it->second;
}

void WorkerClusters::ReportFailure(const std::string& name, const Status& why) {
  if (!IsUnreachable(why)) return;
  auto it = clusters_.find(name);
  if (it == clusters_.end()) return;
  SetState(it->second, false, "ClientConnectionFailed", why.message());
  it->second.last_probe = clock_.Now();
}

}  // namespace kuota::control
