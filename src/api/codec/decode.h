// Decoding of Kueue manifests: multi-document YAML or JSON text into typed
// api::Object values, with Kueue's defaulting applied and its webhook
// validation run. Every error names the document (index, kind, name, line),
// the field path and the offending value. Unknown fields are errors.
// Stateless functions; safe to call from any thread.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/object.h"
#include "base/result.h"

namespace kuota::codec {

struct DecodeOptions {
  // Documents whose "apiVersion/kind" is listed here are skipped silently
  // (e.g. "conformance/v1/Expectation" in scenario files).
  std::set<std::string> skip_kinds;
  // Run api validation (Kueue's webhook rules) on each decoded object.
  bool validate = true;
  // With validation: also check names against DNS-1123 (see ValidateOptions).
  bool validate_names = true;
  // With validation: accept a Workload with several minCount pod sets (see
  // ValidateOptions; the simulator sets it, API writes never do).
  bool allow_several_min_count_pod_sets = false;
  // With validation, on an update: the stored object (see ValidateOptions).
  const api::Object* old_object = nullptr;
  // Inputs larger than this are refused before parsing.
  size_t max_bytes = 64u << 20;
};

struct DecodedObject {
  api::Object object;
  int document_index = 0;  // 0-based among the stream's documents
  int line = 0;            // 1-based line where the document starts
};

// Decodes every document of a YAML/JSON stream. Empty documents are skipped.
// Fails on the first bad document.
Result<std::vector<DecodedObject>> DecodeDocuments(std::string_view text,
                                                   const DecodeOptions& options = {});

// Decodes exactly one object (one document).
Result<api::Object> DecodeObject(std::string_view text, const DecodeOptions& options = {});

// Decodes one object that is already JSON (an API body, a stored or watched
// object) as DecodeObject(object.dump()) would, with the same errors, but
// without printing and parsing it again (and without yaml-cpp).
// options.max_bytes bounds the size of its JSON text.
Result<api::Object> DecodeJsonObject(const nlohmann::json& object,
                                     const DecodeOptions& options = {});

}  // namespace kuota::codec
