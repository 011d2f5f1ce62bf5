// Fuzz target: JSON merge patch (RFC 7386) and apply patches, as kuotad
// applies a PATCH with Content-Type application/merge-patch+json or
// application/apply-patch+yaml (server::ApplyPatch). Input: the object (JSON;
// a small Pod when absent or not an object), a line "--", then the patch
// body. Asserts beyond "no crash": a refused patch is a 400; a merge patch is
// idempotent (applying it to its own result changes nothing); an apply patch
// merges exactly as a merge patch does.
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
  auto result = server::ApplyPatch(server::PatchType::kMergePatch, current, body, &error);
  server::ApiError apply_error;
  auto applied = server::ApplyPatch(server::PatchType::kApplyPatch, current, body, &apply_error);
  FUZZ_CHECK(result.has_value() == applied.has_value(), body);
  if (!result) {
    FUZZ_CHECK(error.code == 400 && apply_error.code == 400, error.message);
    return 0;
  }
  FUZZ_CHECK(*result == *applied, body);
  server::ApiError again_error;
  auto again = server::ApplyPatch(server::PatchType::kMergePatch, *result, body, &again_error);
  FUZZ_CHECK(again.has_value(), again_error.message);
  FUZZ_CHECK(*again == *result, result->dump() + "\n" + again->dump());
  return 0;
}
