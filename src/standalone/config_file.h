// ConfigFile: reads the Kueue manager Configuration file
// (config.kueue.x-k8s.io/v1beta1) that kuotad takes with --config, in either
// mode (standalone or Kubernetes). Errors name the file. Pure; thread-safe.
#pragma once

#include <string>

#include "api/configuration.h"
#include "base/result.h"

namespace kuota::standalone {

// Empty `path`: the defaults.
Result<api::Configuration> LoadConfigFile(const std::string& path);

}  // namespace kuota::standalone
