// Fuzz target: api::Quantity::Parse, the Kubernetes quantity grammar ("500m",
// "10Gi", "1.5", "2e3") every manifest's resources go through. Asserts beyond
// "no crash": a parsed quantity stays within kMaxMilli or is saturated
// (+-kSaturated); an unsaturated one's canonical text (decimal and binary)
// parses again to the same value and its units_ceil() is the milli-units
// rounded up; saturating arithmetic keeps order.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/quantity.h"
#include "fuzz_check.h"

using kuota::api::Quantity;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = Quantity::Parse(text);
  if (!parsed.ok()) {
    FUZZ_CHECK(!parsed.status().message().empty(), text);
    return 0;
  }
  const Quantity q = parsed.value();
  const int64_t m = q.milli();
  FUZZ_CHECK((m <= Quantity::kMaxMilli && m >= -Quantity::kMaxMilli) || m == Quantity::kSaturated ||
                 m == -Quantity::kSaturated,
             text);
  FUZZ_CHECK((q + q) >= q || m < 0, text);
  FUZZ_CHECK((q - q).is_zero(), text);
  if (q.saturated()) return 0;  // prints as "Inf"; no round trip
  for (bool binary : {false, true}) {
    const std::string canonical = q.ToString(binary);
    auto again = Quantity::Parse(canonical);
    FUZZ_CHECK(again.ok(), std::string(text) + " -> " + canonical);
    FUZZ_CHECK(again.value() == q, std::string(text) + " -> " + canonical + " -> " +
                                       std::to_string(again.value().milli()) + "m");
  }
  const int64_t units = q.units_ceil();
  const __int128 units_milli = static_cast<__int128>(units) * 1000;  // may pass INT64_MAX
  FUZZ_CHECK(units_milli >= m && units_milli - m < 1000, text);
  return 0;
}
