// StoreMetrics: the SQLite store's writer as Prometheus counters (Kuota's
// own, beside Kueue's): committed write transactions, the writes they
// carried, and the batch leader's wall and CPU seconds in them, COMMIT
// included. Every write waits on that serial path; wall well above CPU says
// it waits (on fsync, or for a core) rather than works. Read at each scrape.
#pragma once

#include <vector>

#include "metrics/exposition.h"
#include "store/sqlite_object_store.h"

namespace kuota::standalone {

// The families for `stats` (one unlabelled sample each).
std::vector<metrics::MetricFamily> StoreWriteFamilies(
    const store::SqliteObjectStore::WriteStats& stats);

}  // namespace kuota::standalone
