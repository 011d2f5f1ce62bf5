// ContinueToken: the opaque `continue` string of a paginated list, the key of
// the last item a page returned plus the list's resourceVersion, encoded as
// unpadded base64url of a small JSON document. Plain value; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace kuota::store {

struct ContinueToken {
  int64_t resource_version = 0;  // of the first page's list
  std::string ns;                // the last item returned
  std::string name;

  std::string Encode() const;
  // Invalid when `text` was not made by Encode.
  static Result<ContinueToken> Decode(std::string_view text);
};

}  // namespace kuota::store
