#include "cli/login_command.h"

#include <httplib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "auth/base64.h"
#include "base/private_file.h"
#include "cli/api_client.h"
#include "cli/server_flags.h"
#include "server/kubeconfig.h"

namespace kuota::cli {
namespace {

struct LoginFlags {
  std::string socket;
  std::string out;
};

std::string HomeDir() {
  const char* h = std::getenv("HOME");
  return h != nullptr && *h != '\0' ? std::string(h) : "/tmp";
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

int RunLogin(const LoginFlags& flags) {
  std::string socket = flags.socket;
  if (socket.empty()) {
    for (const std::string& p : DefaultSocketPaths()) {
      if (Exists(p)) {
        socket = p;
        break;
      }
    }
  }
  if (socket.empty()) {
    std::string tried;
    for (const std::string& p : DefaultSocketPaths()) tried += "\n  " + p;
    PrintError("login", "no kuotad socket found; tried:" + tried +
                            "\nis kuotad running? (kuotad --insecure-http has none)");
    return 1;
  }
  httplib::Client client(socket, 80);
  client.set_address_family(AF_UNIX);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(30, 0);
  httplib::Result res = client.Post("/kuota/v1/login", "", "application/json");
  if (!res) {
    PrintError("login",
               "cannot reach kuotad at " + socket + ": " + httplib::to_string(res.error()));
    return 1;
  }
  nlohmann::json body = nlohmann::json::parse(res->body, nullptr, false);
  if (res->status != 200 || !body.is_object()) {
    std::string message =
        body.is_object() && body.contains("message") && body["message"].is_string()
            ? body["message"].get<std::string>()
            : "HTTP " + std::to_string(res->status);
    PrintError("login", message);
    return 1;
  }
  server::KubeconfigCredentials creds;
  auto str = [&body](const char* field) {
    return body.contains(field) && body[field].is_string() ? body[field].get<std::string>() : "";
  };
  std::optional<std::string> ca = auth::Base64Decode(str("certificateAuthorityData"));
  if (!ca || str("token").empty() || str("server").empty()) {
    PrintError("login", "kuotad's answer lacks a token, server or CA: " + res->body.substr(0, 200));
    return 1;
  }
  creds.ca_pem = *ca;
  creds.token = str("token");
  creds.user = str("user");
  creds.ns = str("namespace").empty() ? "default" : str("namespace");
  std::string out = flags.out;
  if (out.empty()) {
    const std::string dir = HomeDir() + "/.kube";
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      PrintError("login", "cannot create " + dir + ": " + std::strerror(errno));
      return 1;
    }
    out = dir + "/kuota";
  }
  if (Status w = WritePrivateFile(out, server::KubeconfigYaml(str("server"), creds)); !w.ok()) {
    PrintError("login", w.message());
    return 1;
  }
  std::printf(
      "logged in to %s as %s (namespace %s)\nkubeconfig: %s (readable by you only)\n"
      "  export KUBECONFIG=%s\n",
      str("server").c_str(), creds.user.c_str(), creds.ns.c_str(), out.c_str(), out.c_str());
  return 0;
}

}  // namespace

std::vector<std::string> DefaultSocketPaths() {
  std::vector<std::string> paths;
  if (const char* s = std::getenv("KUOTA_SOCKET"); s != nullptr && *s != '\0') paths.push_back(s);
  paths.push_back("/run/kuota/kuotad.sock");
  std::string kubeconfig = DefaultKubeconfigPath();  // <data dir>/kubeconfig
  paths.push_back(kubeconfig.substr(0, kubeconfig.rfind('/')) + "/kuotad.sock");
  return paths;
}

void AddLoginCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<LoginFlags>();
  CLI::App* cmd = app.add_subcommand(
      "login",
      "Get a kubeconfig for kubectl and kuota from the local kuotad: it asks over kuotad's Unix\n"
      "socket, where the kernel says who you are (no password), and gets a token, kuotad's CA\n"
      "and your namespace (your login name; created on first login, yours to edit)");
  cmd->add_option("--socket", flags->socket,
                  "kuotad's socket (default: $KUOTA_SOCKET, /run/kuota/kuotad.sock, then "
                  "<data-dir>/kuotad.sock)");
  cmd->add_option("-o,--kubeconfig-out", flags->out,
                  "Where to write the kubeconfig (default: ~/.kube/kuota, mode 0600)");
  cmd->callback(
      [flags, exit_code] { *exit_code = RunGuarded("login", [&] { return RunLogin(*flags); }); });
}

}  // namespace kuota::cli
