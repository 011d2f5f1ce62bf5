// ApiClient: the `kuota` commands' HTTP client for kuotad's Kubernetes-style
// API (cpp-httplib underneath): JSON get/create/merge-patch, Tables, and
// streamed reads (pod logs). Server errors come back as Status values carrying
// the server's own message (the kube Status body), and an unreachable server
// as one clear Unavailable error. Also finds which server to talk to.
// One ApiClient per thread (it holds one connection); distinct instances may
// be used from different threads.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "server/kubeconfig.h"

namespace httplib {
class Client;
}

namespace kuota::cli {

using Json = nlohmann::json;

// Where the server is: the flags every server command takes.
struct ServerFlags {
  std::string server;      // --server URL
  std::string kubeconfig;  // --kubeconfig FILE
};

// The kubeconfig kuotad writes in its default data directory:
// $XDG_STATE_HOME/kuota/kubeconfig, else ~/.local/state/kuota/kubeconfig.
std::string DefaultKubeconfigPath();

// The `server:` of the current context's cluster in kubeconfig `text` (YAML).
Result<std::string> ServerFromKubeconfig(const std::string& text);

// A server and how to talk to it: its URL, the CA its certificate must be
// signed by (PEM; empty: the system's), and the bearer token to send.
using ServerTarget = server::KubeconfigTarget;

// The current context's server, certificate-authority(-data) and user token
// (token or tokenFile) in kubeconfig `text`; relative files are read from
// `dir`.
Result<ServerTarget> TargetFromKubeconfig(const std::string& text, const std::string& dir);

// Like ResolveServerUrl, with the kubeconfig's credentials: --server and
// $KUOTA_SERVER still read the kubeconfig (when there is one) for the CA and
// token; $KUOTA_TOKEN overrides the token.
Result<ServerTarget> ResolveServer(const ServerFlags& flags);

// The kubeconfig to read: --kubeconfig, else $KUBECONFIG (its first file, as
// kubectl), else kuotad's default kubeconfig.
std::string KubeconfigPath(const ServerFlags& flags);

// The server URL: --server, else $KUOTA_SERVER, else the kubeconfig named by
// --kubeconfig or $KUBECONFIG, else kuotad's default kubeconfig. Fails with a message saying
// how to point kuota at a server.
Result<std::string> ResolveServerUrl(const ServerFlags& flags);

class ApiClient {
 public:
  // `url` is "http://host:port" (https too). Nothing is sent until a call.
  explicit ApiClient(std::string url);
  // With TLS verified against target.ca_pem and the bearer token sent.
  explicit ApiClient(const ServerTarget& target);
  ~ApiClient();
  ApiClient(ApiClient&&) noexcept;
  ApiClient& operator=(ApiClient&&) noexcept;

  const std::string& url() const { return target_.url; }
  // The server and credentials, for another client to the same kuotad.
  const ServerTarget& target() const { return target_; }

  // GET `path` (with its query). Errors: the server's Status as NotFound,
  // Invalid, Conflict, AlreadyExists, Unavailable (503) or Internal; an
  // unreachable server as Unavailable("cannot reach kuotad at URL: ...").
  Result<Json> Get(const std::string& path) const;
  // GET a meta.k8s.io/v1 Table of `path`.
  Result<Json> GetTable(const std::string& path) const;
  // POST `object` to the collection `path`; the created object.
  Result<Json> Create(const std::string& path, const Json& object) const;
  // PATCH `path` with a JSON merge patch; the patched object.
  Result<Json> MergePatch(const std::string& path, const Json& patch) const;
  // GET `path` and hand the body to `on_data` as it arrives (no read timeout:
  // for follows); `on_data` returns false to stop reading. Errors as Get.
  Status Stream(const std::string& path,
                const std::function<bool(std::string_view data)>& on_data) const;

 private:
  Result<Json> Send(const std::string& method, const std::string& path, const std::string& accept,
                    const std::string& body, const std::string& content_type) const;

  ServerTarget target_;
  std::unique_ptr<httplib::Client> client_;
  std::unique_ptr<httplib::Client> stream_client_;  // no read timeout
};

}  // namespace kuota::cli
