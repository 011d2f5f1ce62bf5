// StoreWriterScrape: reads kuotad's store-writer counters (kuota_store_*)
// out of a /metrics page in Prometheus' text format, so a real-time run can
// say how busy the store's serial writer was between two scrapes.
#pragma once

#include <optional>
#include <string_view>

#include "perf/run_record.h"

namespace kuota::perf {

// The counters in `text` (measured = true), or nullopt when any of the five
// is missing or not a number.
std::optional<StoreWriterCost> ParseStoreWriter(std::string_view text);

// `end` minus `start`, field by field.
StoreWriterCost StoreWriterDelta(const StoreWriterCost& start, const StoreWriterCost& end);

}  // namespace kuota::perf
