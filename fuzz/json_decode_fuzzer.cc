// Fuzz target: codec::DecodeObject on JSON, as kuotad's admission hook runs
// it on the JSON a client sent (parsed by nlohmann, then dumped). Input: a
// JSON document. Asserts beyond "no crash": the JSON's compact, indented and
// ASCII-escaped (\uXXXX, surrogate pairs) spellings decode alike: all three
// accepted as the same object, or all three refused.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/codec/decode.h"
#include "fuzz_check.h"
#include "object_fingerprint.h"

namespace {

std::string Outcome(const kuota::Result<kuota::api::Object>& r) {
  return r.ok() ? "ok " + kuota::fuzz::Fingerprint(r.value()) : "error";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kuota;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto raw = codec::DecodeObject(text);  // the text itself, JSON or not
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  std::string compact, indented, ascii;
  try {
    compact = json.dump();
    indented = json.dump(2);
    ascii = json.dump(-1, ' ', /*ensure_ascii=*/true);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string a = Outcome(codec::DecodeObject(compact));
  const std::string b = Outcome(codec::DecodeObject(indented));
  const std::string c = Outcome(codec::DecodeObject(ascii));
  FUZZ_CHECK(a == b, compact + "\n" + a + "\nindented: " + b);
  FUZZ_CHECK(a == c, compact + "\n" + a + "\nascii: " + c);
  (void)raw;
  return 0;
}
