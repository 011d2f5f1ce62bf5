// Flags and plumbing shared by the `kuota` commands that talk to kuotad:
// --server / --kubeconfig, -n/--namespace, connecting, and printing an error
// as "kuota CMD: message". Used on the calling thread.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "base/status.h"
#include "cli/api_client.h"

namespace kuota::cli {

// Text for --help: how kuota finds the server.
inline constexpr const char* kServerHelp =
    "kuotad's URL. Default: $KUOTA_SERVER, else the server in\n"
    "the kubeconfig kuotad writes ($XDG_STATE_HOME/kuota/kubeconfig\n"
    "or ~/.local/state/kuota/kubeconfig)";

// Adds --server and --kubeconfig to `cmd`.
void AddServerFlags(CLI::App* cmd, ServerFlags* flags);

// Adds -n/--namespace (default "default") to `cmd`.
void AddNamespaceFlag(CLI::App* cmd, std::string* ns);

// Prints "kuota `command`: message" to stderr.
void PrintError(const std::string& command, const std::string& message);

// Runs `body` and returns its exit code; an exception (a malformed answer)
// becomes an error message and exit code 1 instead of a crash.
int RunGuarded(const std::string& command, const std::function<int()>& body);

// A client for the server `flags` name, or nullopt after printing why there is none.
std::optional<ApiClient> Connect(const std::string& command, const ServerFlags& flags);

}  // namespace kuota::cli
