// Fuzz target: codec::DecodeDocuments, the manifest decoder behind
// `kuota simulate`, `kuota submit` and kuotad's admission of Kueue objects:
// multi-document YAML (anchors, aliases, tags, block scalars, `kind: List`)
// into typed objects, with Kueue's defaulting and webhook validation.
// Input: the YAML text. Asserts beyond "no crash": validation only refuses
// (a stream that decodes with validation decodes without it, to the same
// objects); documents come back in order with 1-based lines; every error
// has a message naming its document.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/codec/decode.h"
#include "fuzz_check.h"
#include "object_fingerprint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kuota;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  codec::DecodeOptions validated;
  auto with = codec::DecodeDocuments(text, validated);
  codec::DecodeOptions unvalidated;
  unvalidated.validate = false;
  auto without = codec::DecodeDocuments(text, unvalidated);
  if (!with.ok()) {
    FUZZ_CHECK(with.status().message().rfind("document ", 0) == 0 ||
                   with.status().message().find("line") != std::string::npos,
               with.status().message());
  }
  if (!without.ok()) {
    FUZZ_CHECK(!with.ok(), without.status().message());
    return 0;
  }
  if (!with.ok()) return 0;
  const auto& a = with.value();
  const auto& b = without.value();
  FUZZ_CHECK(a.size() == b.size(), text);
  int last_index = -1;
  for (size_t i = 0; i < a.size(); ++i) {
    FUZZ_CHECK(a[i].document_index >= last_index && a[i].line >= 1, text);
    last_index = a[i].document_index;
    FUZZ_CHECK(a[i].document_index == b[i].document_index && a[i].line == b[i].line, text);
    FUZZ_CHECK(fuzz::Fingerprint(a[i].object) == fuzz::Fingerprint(b[i].object),
               fuzz::Fingerprint(a[i].object) + " vs " + fuzz::Fingerprint(b[i].object));
  }
  return 0;
}
