// Fuzz target: JSON patch (RFC 6902) as kuotad applies a PATCH with
// Content-Type application/json-patch+json (server::ApplyPatch). Input: the
// object (JSON; a small Pod when absent or not an object), a line "--", then
// the patch body. Asserts beyond "no crash": a refused patch is a 400
// (malformed) or 422 (an operation that cannot apply), or 413 when it would
// grow the object past the size limit; a patch of only "test" operations
// that passes leaves the object unchanged.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "server/patch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kuota;
  auto [object_text, body] = fuzz::SplitAtDashes(fuzz::AsText(data, size));
  const nlohmann::json current = fuzz::ObjectOrPod(object_text);
  server::ApiError error;
  auto result = server::ApplyPatch(server::PatchType::kJsonPatch, current, body, &error);
  if (!result) {
    FUZZ_CHECK(error.code == 400 || error.code == 422 || error.code == 413,
               std::to_string(error.code) + " " + error.message);
    return 0;
  }
  nlohmann::json patch = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  bool only_tests = patch.is_array();
  for (const auto& op : patch) {
    only_tests = only_tests && op.is_object() && op.value("op", nlohmann::json()) == "test";
  }
  if (only_tests) FUZZ_CHECK(*result == current, body);
  return 0;
}
