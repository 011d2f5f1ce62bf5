#include "cli/app.h"

#include <CLI/CLI.hpp>

#include "cli/describe_command.h"
#include "cli/get_command.h"
#include "cli/login_command.h"
#include "cli/logs_command.h"
#include "cli/perf_command.h"
#include "cli/simulate_command.h"
#include "cli/stop_command.h"
#include "cli/submit_command.h"
#include "cli/why_command.h"

namespace kuota::cli {

int RunKuota(int argc, char** argv) {
  CLI::App app{
      "kuota: Kueue-compatible job queueing and quota.\n"
      "Reads Kueue's own manifests (kueue.x-k8s.io/v1beta1 and v1beta2) unchanged."};
  app.require_subcommand(1);
  int exit_code = 0;
  AddSimulateCommand(app, &exit_code);
  AddPerfCommand(app, &exit_code);
  AddSubmitCommand(app, &exit_code);
  AddGetCommand(app, &exit_code);
  AddDescribeCommand(app, &exit_code);
  AddWhyCommand(app, &exit_code);
  AddStopCommands(app, &exit_code);
  AddLogsCommand(app, &exit_code);
  AddLoginCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}

}  // namespace kuota::cli
