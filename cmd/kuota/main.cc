// kuota: the command-line entry point; everything lives in src/cli.
#include "cli/app.h"

int main(int argc, char** argv) { return kuota::cli::RunKuota(argc, argv); }
