// Row upgrade: rewrites, in place, the object rows an older build of Kuota
// stored in a form this build no longer stores (StoreOptions::upgrade), when
// a store opens and before it serves. Rows keep their key, uid and
// resourceVersion (the object is the same, only its encoding changes), so
// no watch event is made. Batches of StoreOptions::upgrade_batch rows are
// committed one by one; the level reached is recorded (kuota_meta
// "upgrade_level") only once every row is current, so an upgrade cut short
// by a crash resumes on the next open, and rows already rewritten are left
// as they are.
#pragma once

#include "base/status.h"
#include "store/object_store.h"
#include "store/store_database.h"

namespace kuota::store {

// Runs options.upgrade over `db` (opened, not yet shared) unless it is unset
// or the store already records options.upgrade_level. An error names the row
// (resource, namespace/name) that could not be upgraded; the batches before
// it stay committed.
Status UpgradeRows(StoreDatabase& db, const StoreOptions& options);

}  // namespace kuota::store
