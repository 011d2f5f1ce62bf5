// The `kuota perf` subcommand: Kueue's scheduler performance benchmark,
// reproduced (virtual time over the engine, or real time against kuotad).
// Registers itself on a CLI11 app; runs on the calling thread (the real-time
// run starts threads of its own).
#pragma once

#include <CLI/CLI.hpp>

namespace kuota::cli {

// Adds `perf` to `app`. The callback sets `*exit_code`.
void AddPerfCommand(CLI::App& app, int* exit_code);

}  // namespace kuota::cli
