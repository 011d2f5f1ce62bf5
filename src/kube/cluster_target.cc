#include "kube/cluster_target.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kuota::kube {
namespace {

constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

Result<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

Result<ClusterTarget> TargetFromKubeconfigFile(const std::string& path) {
  Result<std::string> text = ReadWhole(path);
  if (!text.ok()) return Status::NotFound("kubeconfig " + path + ": cannot open");
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  Result<server::KubeconfigTarget> target = server::ParseKubeconfig(*text, dir);
  if (!target.ok()) return target.status().WithContext("kubeconfig " + path);
  return ClusterTarget{target->url, target->ca_pem, target->token, ""};
}

Result<ClusterTarget> InClusterTarget(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return Status::Invalid(
        "--in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not "
        "running in a pod? use --kubeconfig FILE)");
  }
  ClusterTarget t;
  const std::string h = host;
  // An IPv6 service address needs brackets in a URL.
  t.url = "https://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + port;
  const std::string dir = root + kServiceAccountDir;
  KUOTA_ASSIGN_OR_RETURN(std::string token, ReadWhole(dir + "/token"));
  KUOTA_ASSIGN_OR_RETURN(t.ca_pem, ReadWhole(dir + "/ca.crt"));
  t.token = Trim(token);
  t.token_file = dir + "/token";
  return t;
}

std::string InClusterNamespace(const std::string& fallback, const std::string& root) {
  Result<std::string> ns = ReadWhole(root + kServiceAccountDir + "/namespace");
  if (!ns.ok() || Trim(*ns).empty()) return fallback;
  return Trim(*ns);
}

}  // namespace kuota::kube
