#include "store/row_upgrade.h"

#include <string>
#include <vector>

namespace kuota::store {
namespace {

constexpr std::string_view kUpgradeLevelKey = "upgrade_level";

std::string RowName(const StoreDatabase::ScannedRow& r) {
  return r.resource + " " + (r.row.ns.empty() ? "" : r.row.ns + "/") + r.row.name;
}

// One batch: the rows after `*after_id`, rewritten where they need it, in
// one transaction. Sets *done when there were none left.
Status UpgradeBatch(StoreDatabase& db, const StoreOptions& options, int64_t* after_id,
                    int64_t* rewritten, bool* done) NO_THREAD_SAFETY_ANALYSIS {
  MutexLock lock(db.mu());
  KUOTA_RETURN_IF_ERROR(db.Begin());
  auto fail = [&](Status st) {
    db.Rollback();
    return st;
  };
  Result<std::vector<StoreDatabase::ScannedRow>> rows =
      db.ScanObjects(*after_id, std::max<int64_t>(1, options.upgrade_batch));
  if (!rows.ok()) return fail(rows.status());
  int64_t n = 0;
  for (const StoreDatabase::ScannedRow& r : *rows) {
    Json object = Json::parse(r.row.json, nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded()) {
      return fail(
          Status::Invalid("upgrading the store: the stored " + RowName(r) + " is not valid JSON"));
    }
    Result<std::optional<Json>> next = options.upgrade(r.resource, object);
    if (!next.ok()) {
      return fail(Status(next.status().code(),
                         "upgrading the store: " + RowName(r) + ": " + next.status().message()));
    }
    if (!next->has_value()) continue;
    Status st = db.RewriteObjectJson(r.id, (**next).dump());
    if (!st.ok()) return fail(st);
    ++n;
  }
  if (rows->empty()) {
    *done = true;
    Status st = db.SetMetaValue(kUpgradeLevelKey, options.upgrade_level);
    if (!st.ok()) return fail(st);
  } else {
    *after_id = rows->back().id;
  }
  KUOTA_RETURN_IF_ERROR(db.Commit());
  *rewritten += n;
  return Status::Ok();
}

}  // namespace

Status UpgradeRows(StoreDatabase& db, const StoreOptions& options) {
  if (!options.upgrade || options.upgrade_level <= 0) return Status::Ok();
  {
    MutexLock lock(db.mu());
    KUOTA_ASSIGN_OR_RETURN(int64_t level, db.MetaValue(kUpgradeLevelKey, 0));
    if (level >= options.upgrade_level) return Status::Ok();
  }
  int64_t after_id = 0, rewritten = 0;
  bool done = false;
  while (!done) {
    KUOTA_RETURN_IF_ERROR(UpgradeBatch(db, options, &after_id, &rewritten, &done));
    if (!done && options.after_upgrade_batch) options.after_upgrade_batch(rewritten);
  }
  return Status::Ok();
}

}  // namespace kuota::store
