// The `kuota stop` and `kuota resume` subcommands: Kueue's stopPolicy for
// ClusterQueues and LocalQueues (Hold, HoldAndDrain with --drain, None on
// resume) and spec.active for Workloads, set with a JSON merge patch.
// Registers itself on a CLI11 app; runs on the calling thread.
#pragma once

#include <CLI/CLI.hpp>

namespace kuota::cli {

// Adds `stop` and `resume` to `app`. The callbacks set `*exit_code`.
void AddStopCommands(CLI::App& app, int* exit_code);

}  // namespace kuota::cli
