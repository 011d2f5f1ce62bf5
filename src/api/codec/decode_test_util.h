// Decode test helpers (tests only): what the codec tests ask of a decoding,
// the error message users would see or "OK", and tables of such errors.
// Header-only; pure.
#pragma once

#include <gtest/gtest.h>

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

// A decoding that fails: its name, the input and the whole
// Status::ToString() it gives.
struct DecodeErrorCase {
  std::string name;
  std::string yaml;
  std::string want;
};

// Each of `cases` decodes to its error.
template <class Cases>
void ExpectDecodeErrors(const Cases& cases) {
  for (const DecodeErrorCase& c : cases) {
    EXPECT_EQ(DecodeErrorOf(c.yaml), c.want) << c.name << "\n--- input ---\n" << c.yaml;
  }
}

}  // namespace kuota::codec::testing
