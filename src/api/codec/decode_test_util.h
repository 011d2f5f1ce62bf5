// Decode test helpers (tests only): what the codec tests ask of a decoding,
// the error message users would see or "OK". Header-only; pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/codec/decode.h"

namespace kuota::codec::testing {

// The error DecodeDocuments gives for `text` (Status::ToString), or "OK".
inline std::string DecodeErrorOf(std::string_view text) {
  Result<std::vector<DecodedObject>> r = DecodeDocuments(text);
  return r.ok() ? "OK" : r.status().ToString();
}

}  // namespace kuota::codec::testing
