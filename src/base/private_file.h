// PrivateFile: writes a file atomically with an exact mode: a temporary file
// made with that mode from its creation (so a secret is never readable by
// others, not even for a moment), synced, then renamed over the old one.
// For kubeconfigs with tokens, keys, secrets and certificates.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/status.h"

namespace kuota {

// Replaces `path` with `text`, mode 0600. Unavailable, naming the file and
// the system's reason, when it cannot.
Status WritePrivateFile(const std::string& path, const std::string& text);

// Replaces `path` with `text`, mode `mode` exactly (whatever the umask).
Status WriteFileAtomically(const std::string& path, const std::string& text, mode_t mode);

}  // namespace kuota
