// kuotad: the standalone Kuota server (store + API + engine on one machine).
#include <cstdio>

#include <CLI/CLI.hpp>

#include "standalone/kuotad.h"

int main(int argc, char** argv) {
  kuota::standalone::KuotadOptions o;
  CLI::App app{
      "kuotad: Kueue-compatible queueing and quota on one machine.\n"
      "Keeps objects in an embedded SQLite database and serves a Kubernetes-style API\n"
      "that the real kubectl uses: kubectl --kubeconfig <data-dir>/kubeconfig get cq"};
  app.add_option("--data-dir", o.data_dir,
                 "Database and kubeconfig directory (default: " +
                     kuota::standalone::DefaultDataDir() + ")");
  app.add_option("--address", o.address, "Address to listen on")->capture_default_str();
  app.add_option("--port", o.port, "Port to listen on (0: any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  app.add_option("--config", o.config_file,
                 "Kueue Configuration file (config.kueue.x-k8s.io/v1beta1): fairSharing, "
                 "waitForPodsReady");
  app.add_option("--kubeconfig-out", o.kubeconfig_path,
                 "Where to write a kubeconfig for kubectl (default: <data-dir>/kubeconfig)");
  app.add_flag("!--no-sync", o.sync,
               "Do not fsync each commit (faster, loses recent writes on power loss)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  kuota::Status st = kuota::standalone::RunKuotad(o);
  if (!st.ok()) {
    std::fprintf(stderr, "kuotad: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}
