// The `kuota why` subcommand: a workload's state, the scheduler's reason for
// it, and its place in its queues (Kueue's visibility API).
// Registers itself on a CLI11 app; runs on the calling thread.
#pragma once

#include <CLI/CLI.hpp>

namespace kuota::cli {

// Adds `why` to `app`. The callback sets `*exit_code`.
void AddWhyCommand(CLI::App& app, int* exit_code);

}  // namespace kuota::cli
