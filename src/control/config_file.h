// ConfigFile: reads the Kueue manager Configuration file
// (config.kueue.x-k8s.io/v1beta1 or v1beta2, decoded by api/codec) that
// kuotad takes with --config, in either mode (standalone or Kubernetes).
// Errors name the file. Pure; thread-safe.
#pragma once

#include <string>

#include "api/configuration.h"
#include "base/result.h"

namespace kuota::control {

// Empty `path`: the defaults. NotFound when the file cannot be opened;
// Invalid (naming the file, field and line) when it is not a Configuration.
Result<api::Configuration> LoadConfigFile(const std::string& path);

}  // namespace kuota::control
