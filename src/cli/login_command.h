// The `kuota login` subcommand: asks kuotad, over its Unix socket (where the
// kernel tells kuotad who is calling), for a token and the user's namespace,
// and writes a kubeconfig only the user can read (default ~/.kube/kuota).
// Registers itself on a CLI11 app; runs on the calling thread.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace kuota::cli {

// Where kuotad's socket is looked for, in order: $KUOTA_SOCKET,
// /run/kuota/kuotad.sock (a kuotad run as root), then the socket in this
// user's default data directory.
std::vector<std::string> DefaultSocketPaths();

// Adds `login` to `app`. The callback sets `*exit_code`.
void AddLoginCommand(CLI::App& app, int* exit_code);

}  // namespace kuota::cli
