#include "cli/app.h"

#include <CLI/CLI.hpp>

#include "cli/simulate_command.h"

namespace kuota::cli {

int RunKuota(int argc, char** argv) {
  CLI::App app{
      "kuota: Kueue-compatible job queueing and quota.\n"
      "Reads Kueue's own manifests (kueue.x-k8s.io/v1beta1) unchanged."};
  app.require_subcommand(1);
  int exit_code = 0;
  AddSimulateCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}

}  // namespace kuota::cli
