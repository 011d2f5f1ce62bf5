// PrivateFile: writes a file that only its owner may read (kubeconfigs with
// tokens, secrets), atomically: a temporary file made 0600 from its creation,
// then renamed over the old one.
#pragma once

#include <string>

#include "base/status.h"

namespace kuota {

// Replaces `path` with `text`, mode 0600. Unavailable, naming the file and
// the system's reason, when it cannot.
Status WritePrivateFile(const std::string& path, const std::string& text);

}  // namespace kuota
