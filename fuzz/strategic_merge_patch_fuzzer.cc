// Fuzz target: strategic merge patch (server::StrategicMergePatch, through
// server::ApplyPatch for Content-Type application/strategic-merge-patch+json):
// merge keys per field of Pod/Job/Node/Namespace/Event, $patch, $retainKeys,
// $setElementOrder, $deleteFromPrimitiveList. Input: the object (JSON; a
// small Pod when absent or not an object), a line "--", then the patch body.
// Asserts beyond "no crash": a refused patch is a 400; an accepted one yields
// a JSON object.
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
  auto result = server::ApplyPatch(server::PatchType::kStrategicMergePatch, current, body, &error);
  if (!result) {
    FUZZ_CHECK(error.code == 400, std::to_string(error.code) + " " + error.message);
    return 0;
  }
  FUZZ_CHECK(result->is_object(), body);
  return 0;
}
