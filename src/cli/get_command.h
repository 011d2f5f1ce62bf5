// The `kuota get` subcommand: objects on kuotad as kubectl prints them — the
// server's Table (Kueue's printer columns), or YAML / JSON / names.
// Registers itself on a CLI11 app; runs on the calling thread.
#pragma once

#include <CLI/CLI.hpp>

namespace kuota::cli {

// Adds `get` to `app`. The callback sets `*exit_code`.
void AddGetCommand(CLI::App& app, int* exit_code);

}  // namespace kuota::cli
