#include "server/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "auth/base64.h"

namespace kuota::server {
namespace {

// A YAML double-quoted scalar.
std::string YamlQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string KubeconfigYaml(const std::string& server_url, const KubeconfigCredentials& creds) {
  std::string cluster = "    server: " + YamlQuote(server_url) + "\n";
  if (!creds.ca_pem.empty()) {
    cluster +=
        "    certificate-authority-data: " + YamlQuote(auth::Base64Encode(creds.ca_pem)) + "\n";
  }
  const std::string user =
      creds.token.empty() ? "  user: {}\n" : "  user:\n    token: " + YamlQuote(creds.token) + "\n";
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: kuota\n"
         "  cluster:\n" +
         cluster +
         "contexts:\n"
         "- name: kuota\n"
         "  context:\n"
         "    cluster: kuota\n"
         "    user: " +
         YamlQuote(creds.user) +
         "\n"
         "    namespace: " +
         YamlQuote(creds.ns) +
         "\n"
         "current-context: kuota\n"
         "preferences: {}\n"
         "users:\n"
         "- name: " +
         YamlQuote(creds.user) + "\n" + user;
}

Result<KubeconfigTarget> ParseKubeconfig(const std::string& text, const std::string& dir) {
  KubeconfigTarget target;
  auto read_file = [&dir](std::string path, std::string& out) -> Status {
    if (!path.empty() && path[0] != '/') path = dir + "/" + path;
    std::ifstream in(path);
    if (!in) return Status::NotFound("cannot open " + path);
    std::stringstream text;
    text << in.rdbuf();
    out = text.str();
    return Status::Ok();
  };
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return Status::Invalid("not a kubeconfig (want a YAML mapping)");
    const std::string current =
        root["current-context"] ? root["current-context"].as<std::string>() : "";
    std::string cluster_name, user_name;
    if (root["contexts"] && root["contexts"].IsSequence()) {
      for (const YAML::Node& c : root["contexts"]) {
        if (c["name"] && c["name"].as<std::string>() == current && c["context"]) {
          if (c["context"]["cluster"]) cluster_name = c["context"]["cluster"].as<std::string>();
          if (c["context"]["user"]) user_name = c["context"]["user"].as<std::string>();
        }
      }
    }
    if (!root["clusters"] || !root["clusters"].IsSequence() || root["clusters"].size() == 0) {
      return Status::Invalid("no clusters in the kubeconfig");
    }
    for (const YAML::Node& c : root["clusters"]) {
      if (!(cluster_name.empty() || (c["name"] && c["name"].as<std::string>() == cluster_name)) ||
          !c["cluster"]) {
        continue;
      }
      const YAML::Node cl = c["cluster"];
      if (!cl["server"])
        return Status::Invalid("clusters[" + c["name"].as<std::string>("") +
                               "].cluster.server: missing");
      target.url = cl["server"].as<std::string>();
      if (cl["certificate-authority-data"]) {
        auto pem = auth::Base64Decode(cl["certificate-authority-data"].as<std::string>());
        if (!pem) return Status::Invalid("certificate-authority-data: not base64");
        target.ca_pem = *pem;
      } else if (cl["certificate-authority"]) {
        KUOTA_RETURN_IF_ERROR(
            read_file(cl["certificate-authority"].as<std::string>(), target.ca_pem)
                .WithContext("certificate-authority"));
      }
      break;
    }
    if (root["users"] && root["users"].IsSequence()) {
      for (const YAML::Node& u : root["users"]) {
        if (!u["name"] || u["name"].as<std::string>() != user_name || !u["user"]) continue;
        if (u["user"]["token"]) {
          target.token = u["user"]["token"].as<std::string>();
        } else if (u["user"]["tokenFile"]) {
          KUOTA_RETURN_IF_ERROR(read_file(u["user"]["tokenFile"].as<std::string>(), target.token)
                                    .WithContext("tokenFile"));
          while (!target.token.empty() &&
                 std::isspace(static_cast<unsigned char>(target.token.back()))) {
            target.token.pop_back();
          }
        }
      }
    }
  } catch (const std::exception& e) {
    return Status::Invalid(std::string("not a kubeconfig: ") + e.what());
  }
  if (target.url.empty()) return Status::Invalid("no server for the current context's cluster");
  return target;
}

}  // namespace kuota::server
