// The `kuota simulate` subcommand: what-if scheduling over a state file, and
// the user's "why is my workload pending?" tool. Registers itself on a CLI11
// app; runs on the calling thread.
#pragma once

#include <CLI/CLI.hpp>

namespace kuota::cli {

// Adds `simulate` to `app`. The callback sets `*exit_code`.
void AddSimulateCommand(CLI::App& app, int* exit_code);

}  // namespace kuota::cli
