#include "server/kubeconfig.h"

namespace kuota::server {
namespace {

// A YAML double-quoted scalar.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string KubeconfigYaml(const std::string& server_url) {
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: kuota\n"
         "  cluster:\n"
         "    server: " + Quote(server_url) + "\n"
         "contexts:\n"
         "- name: kuota\n"
         "  context:\n"
         "    cluster: kuota\n"
         "    user: kuota\n"
         "    namespace: default\n"
         "current-context: kuota\n"
         "preferences: {}\n"
         "users:\n"
         "- name: kuota\n"
         "  user: {}\n";
}

}  // namespace kuota::server
