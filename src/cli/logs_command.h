// The `kuota logs` subcommand: print or follow the logs of a pod, or of a
// Job's pods (label batch.kubernetes.io/job-name), from the pods/log API.
// Registers itself on a CLI11 app; runs on the calling thread.
#pragma once

#include <CLI/CLI.hpp>

namespace kuota::cli {

// Adds `logs` to `app`. The callback sets `*exit_code`.
void AddLogsCommand(CLI::App& app, int* exit_code);

}  // namespace kuota::cli
