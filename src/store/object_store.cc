#include "store/object_store.h"

#include <utility>

#include "store/sqlite_object_store.h"

namespace kuota::store {

const char* EventTypeName(EventType t) {
  switch (t) {
    case EventType::kAdded: return "ADDED";
    case EventType::kModified: return "MODIFIED";
    case EventType::kDeleted: return "DELETED";
    case EventType::kBookmark: return "BOOKMARK";
  }
  return "UNKNOWN";
}

Result<std::unique_ptr<ObjectStore>> ObjectStore::Open(const StoreOptions& options) {
  KUOTA_ASSIGN_OR_RETURN(std::unique_ptr<SqliteObjectStore> store,
                         SqliteObjectStore::Open(options));
  return std::unique_ptr<ObjectStore>(std::move(store));
}

}  // namespace kuota::store
