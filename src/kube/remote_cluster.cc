#include "kube/remote_cluster.h"

#include <yaml-cpp/yaml.h>

#include "jobs/registry.h"
#include "kube/kube_client.h"
#include "kube/kube_object_store.h"
#include "server/kubeconfig.h"

namespace kuota::kube {
namespace {

class KubeRemoteCluster final : public control::RemoteCluster {
 public:
  explicit KubeRemoteCluster(ClusterTarget target)
      : client_(std::move(target), RemoteClientOptions()), store_(client_, ListedResources()) {}

  store::ObjectStore& Store() override { return store_; }

  Status Probe() override {
    const Json review = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}};
    return client_.Request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", &review)
        .status();
  }

 private:
  // What the manager lists on a worker (KubeObjectStore lists only these):
  // Workloads, pods and the jobs of every kind.
  static std::vector<std::string> ListedResources() {
    std::vector<std::string> out = {"workloads.kueue.x-k8s.io", "pods"};
    for (const auto& k : jobs::JobKinds()) out.push_back(k->Resource());
    return out;
  }
  static ClientOptions RemoteClientOptions() {
    ClientOptions o;
    o.user_agent = "kuotad/0.1.0 (multikueue)";
    o.request_timeout_seconds = 10;
    return o;
  }
  KubeClient client_;
  KubeObjectStore store_;
};

// Kueue's validateKubeconfig: what a kubeconfig for a worker may not say.
Status CheckKubeconfig(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::Invalid(std::string("failed to parse kubeconfig: ") + e.what());
  }
  if (!root.IsMap()) return Status::Invalid("failed to parse kubeconfig: not a map");
  for (const auto& entry : root["clusters"]) {
    const std::string name = entry["name"] ? entry["name"].as<std::string>("") : "";
    const YAML::Node c = entry["cluster"];
    if (!c || !c.IsMap()) continue;
    if (c["insecure-skip-tls-verify"] &&
        c["insecure-skip-tls-verify"].as<std::string>("") == "true") {
      return Status::Invalid("insecure TLS verification is not allowed for cluster " + name);
    }
    if (c["certificate-authority"]) {
      return Status::Invalid(
          "certificate-authority file paths are not allowed, use certificate-authority-data for "
          "cluster " +
          name);
    }
    if (!c["server"] || c["server"].as<std::string>("").empty()) {
      return Status::Invalid("server URL is required for cluster " + name);
    }
  }
  for (const auto& entry : root["users"]) {
    const YAML::Node u = entry["user"];
    if (u && u.IsMap() && (u["tokenFile"] || u["client-certificate"] || u["client-key"])) {
      return Status::Invalid("file paths in user " +
                             (entry["name"] ? entry["name"].as<std::string>("") : "") +
                             " are not allowed, put the credential in the kubeconfig");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<control::RemoteCluster>> OpenRemoteCluster(const std::string& kubeconfig) {
  KUOTA_RETURN_IF_ERROR(CheckKubeconfig(kubeconfig));
  // No directory: nothing relative is read (CheckKubeconfig refused paths).
  KUOTA_ASSIGN_OR_RETURN(server::KubeconfigTarget t,
                         server::ParseKubeconfig(kubeconfig, "/nonexistent"));
  ClusterTarget target{t.url, t.ca_pem, t.token, ""};
  return std::unique_ptr<control::RemoteCluster>(
      std::make_unique<KubeRemoteCluster>(std::move(target)));
}

}  // namespace kuota::kube
