#include "cli/api_client.h"

#include <httplib.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <utility>

#include "server/client_credentials.h"
#include "server/kubeconfig.h"
#include "server/reply_status.h"
#include "server/transport_error.h"

namespace kuota::cli {
namespace {

constexpr const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

Status Unreachable(const std::string& url, httplib::Error e) {
  return Status::Unavailable("cannot reach kuotad at " + url + ": " + server::TransportError(e) +
                             " — start it with `kuotad`");
}

std::unique_ptr<httplib::Client> MakeClient(const ServerTarget& target, bool streaming) {
  auto client = std::make_unique<httplib::Client>(target.url);
  // A CA that holds no certificate leaves the system's: the handshake then
  // fails with "certificate verify failed", which names the problem.
  (void)server::UseCredentials(*client, target.ca_pem, target.token);
  client->set_connection_timeout(5, 0);
  if (streaming) {
    client->set_read_timeout(365 * 24 * 3600, 0);  // a follow may sit idle for long
  } else {
    client->set_read_timeout(60, 0);
  }
  client->set_write_timeout(30, 0);
  return client;
}

}  // namespace

std::string KubeconfigPath(const ServerFlags& flags) {
  if (!flags.kubeconfig.empty()) return flags.kubeconfig;
  // $KUBECONFIG as kubectl reads it (the first of a list).
  std::string env = EnvOr("KUBECONFIG", "");
  if (!env.empty()) return env.substr(0, env.find(':'));
  return DefaultKubeconfigPath();
}

std::string DefaultKubeconfigPath() {
  std::string state = EnvOr("XDG_STATE_HOME", "");
  if (!state.empty()) return state + "/kuota/kubeconfig";
  std::string home = EnvOr("HOME", "");
  if (!home.empty()) return home + "/.local/state/kuota/kubeconfig";
  return "/tmp/kuota/kubeconfig";
}

Result<std::string> ServerFromKubeconfig(const std::string& text) {
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return Status::Invalid("not a kubeconfig (want a YAML mapping)");
    std::string cluster_name;
    const std::string current =
        root["current-context"] ? root["current-context"].as<std::string>() : "";
    if (root["contexts"] && root["contexts"].IsSequence()) {
      for (const YAML::Node& c : root["contexts"]) {
        if (c["name"] && c["name"].as<std::string>() == current && c["context"] &&
            c["context"]["cluster"]) {
          cluster_name = c["context"]["cluster"].as<std::string>();
        }
      }
    }
    if (!root["clusters"] || !root["clusters"].IsSequence() || root["clusters"].size() == 0) {
      return Status::Invalid("no clusters in the kubeconfig");
    }
    for (const YAML::Node& c : root["clusters"]) {
      bool wanted =
          cluster_name.empty() || (c["name"] && c["name"].as<std::string>() == cluster_name);
      if (wanted && c["cluster"] && c["cluster"]["server"]) {
        return c["cluster"]["server"].as<std::string>();
      }
    }
    return Status::Invalid("no server for cluster \"" + cluster_name + "\" in the kubeconfig");
  } catch (const std::exception& e) {
    return Status::Invalid(std::string("not a kubeconfig: ") + e.what());
  }
}

Result<ServerTarget> TargetFromKubeconfig(const std::string& text, const std::string& dir) {
  return server::ParseKubeconfig(text, dir);
}

Result<ServerTarget> ResolveServer(const ServerFlags& flags) {
  KUOTA_ASSIGN_OR_RETURN(std::string url, ResolveServerUrl(flags));
  ServerTarget target;
  const std::string path = KubeconfigPath(flags);
  std::ifstream in(path);
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    const std::string dir =
        path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
    Result<ServerTarget> from_file = TargetFromKubeconfig(text.str(), dir);
    if (!from_file.ok()) return from_file.status().WithContext(path);
    target = *from_file;
  }
  target.url = url;
  if (std::string token = EnvOr("KUOTA_TOKEN", ""); !token.empty()) target.token = token;
  return target;
}

Result<std::string> ResolveServerUrl(const ServerFlags& flags) {
  if (!flags.server.empty()) return flags.server;
  if (std::string env = EnvOr("KUOTA_SERVER", ""); !env.empty()) return env;
  const std::string path = KubeconfigPath(flags);
  std::ifstream in(path);
  if (!in) {
    if (!flags.kubeconfig.empty()) {
      return Status::NotFound("--kubeconfig " + path + ": cannot open the file");
    }
    if (!EnvOr("KUBECONFIG", "").empty()) {
      return Status::NotFound("$KUBECONFIG " + path + ": cannot open the file");
    }
    return Status::NotFound(
        "no kuotad found: " + path +
        " does not exist. Start the server with `kuotad` (it writes that file), or point kuota at "
        "one with --server URL or KUOTA_SERVER=URL");
  }
  std::stringstream text;
  text << in.rdbuf();
  Result<std::string> server = ServerFromKubeconfig(text.str());
  if (!server.ok()) return server.status().WithContext(path);
  return server;
}

ApiClient::ApiClient(std::string url) : ApiClient(ServerTarget{std::move(url), "", ""}) {}

ApiClient::ApiClient(const ServerTarget& target)
    : target_(target),
      client_(MakeClient(target, false)),
      stream_client_(MakeClient(target, true)) {}

ApiClient::~ApiClient() = default;
ApiClient::ApiClient(ApiClient&&) noexcept = default;
ApiClient& ApiClient::operator=(ApiClient&&) noexcept = default;

Result<Json> ApiClient::Send(const std::string& method, const std::string& path,
                             const std::string& accept, const std::string& body,
                             const std::string& content_type) const {
  if (!client_->is_valid()) return Status::Invalid("bad server URL \"" + target_.url + "\"");
  httplib::Headers headers = {{"Accept", accept}};
  httplib::Result res = method == "GET" ? client_->Get(path, headers)
                        : method == "POST"
                            ? client_->Post(path, headers, body, content_type.c_str())
                            : client_->Patch(path, headers, body, content_type.c_str());
  if (!res) return Unreachable(target_.url, res.error());
  if (res->status < 200 || res->status >= 300)
    return server::StatusFromReply(res->status, res->body);
  Json parsed = Json::parse(res->body, nullptr, false);
  if (parsed.is_discarded()) {
    return Status::Internal("the server at " + target_.url + " answered " + path +
                            " with something that is not JSON (is it kuotad?)");
  }
  return parsed;
}

Result<Json> ApiClient::Get(const std::string& path) const {
  return Send("GET", path, "application/json", "", "");
}

Result<Json> ApiClient::GetTable(const std::string& path) const {
  return Send("GET", path, kTableAccept, "", "");
}

Result<Json> ApiClient::Create(const std::string& path, const Json& object) const {
  return Send("POST", path, "application/json", object.dump(), "application/json");
}

Result<Json> ApiClient::MergePatch(const std::string& path, const Json& patch) const {
  return Send("PATCH", path, "application/json", patch.dump(), "application/merge-patch+json");
}

Status ApiClient::Stream(const std::string& path,
                         const std::function<bool(std::string_view data)>& on_data) const {
  if (!stream_client_->is_valid()) return Status::Invalid("bad server URL \"" + target_.url + "\"");
  int status = 0;
  std::string error_body;
  bool stopped = false;
  auto res = stream_client_->Get(
      path.c_str(), httplib::Headers{{"Accept", "*/*"}},
      [&](const httplib::Response& response) {
        status = response.status;
        return true;
      },
      [&](const char* data, size_t len) {
        if (status < 200 || status >= 300) {
          error_body.append(data, len);
          return true;
        }
        if (!on_data(std::string_view(data, len))) {
          stopped = true;
          return false;
        }
        return true;
      });
  if (stopped) return Status::Ok();
  if (!res) {
    if (status >= 200 && status < 300) {
      return Status::Unavailable("the connection to kuotad at " + target_.url + " was lost");
    }
    return Unreachable(target_.url, res.error());
  }
  if (res->status < 200 || res->status >= 300) {
    return server::StatusFromReply(res->status, error_body.empty() ? res->body : error_body);
  }
  return Status::Ok();
}

}  // namespace kuota::cli
