#include "cli/server_flags.h"

#include <cstdio>
#include <exception>

namespace kuota::cli {

void AddServerFlags(CLI::App* cmd, ServerFlags* flags) {
  cmd->add_option("--server,-s", flags->server, kServerHelp);
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "Read the server URL from this kubeconfig file instead");
}

void AddNamespaceFlag(CLI::App* cmd, std::string* ns) {
  cmd->add_option("-n,--namespace", *ns, "Namespace")->capture_default_str();
}

void PrintError(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "kuota %s: %s\n", command.c_str(), message.c_str());
}

int RunGuarded(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    PrintError(command, std::string("unexpected answer from the server: ") + e.what());
    return 1;
  }
}

std::optional<ApiClient> Connect(const std::string& command, const ServerFlags& flags) {
  Result<ServerTarget> target = ResolveServer(flags);
  if (!target.ok()) {
    PrintError(command, target.status().message());
    return std::nullopt;
  }
  return ApiClient(*target);
}

}  // namespace kuota::cli
