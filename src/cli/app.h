// The `kuota` command line: subcommands and their flags. Entry point used by
// cmd/kuota/main.cc; runs on the calling thread.
#pragma once

namespace kuota::cli {

// Parses argv, runs the chosen subcommand, returns the process exit code.
int RunKuota(int argc, char** argv);

}  // namespace kuota::cli
