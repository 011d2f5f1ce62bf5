#include "store/object_store.h"

#include <string_view>
#include <utility>

#include "store/sqlite_object_store.h"

namespace kuota::store {

const char* EventTypeName(EventType t) {
  switch (t) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
    case EventType::kBookmark:
      return "BOOKMARK";
  }
  return "UNKNOWN";
}

ResourceFilter ParseResourceFilter(std::string_view filter) {
  if (!filter.empty() && filter[0] == '!') return {filter.substr(1), true};
  return {filter, false};
}

bool ResourceSelected(const std::string& filter, const std::string& resource) {
  const ResourceFilter f = ParseResourceFilter(filter);
  if (f.resource.empty()) return true;
  return (f.resource == resource) != f.exclude;
}

std::vector<Result<Json>> ObjectStore::WriteBatch(std::vector<BatchWrite> writes) {
  std::vector<Result<Json>> results;
  results.reserve(writes.size());
  for (BatchWrite& w : writes) {
    switch (w.op) {
      case BatchWrite::Op::kCreate:
        results.push_back(Create(w.resource, std::move(w.object)));
        break;
      case BatchWrite::Op::kUpdate:
        results.push_back(Update(w.resource, std::move(w.object), w.update));
        break;
      case BatchWrite::Op::kDelete:
        results.push_back(Delete(w.resource, w.ns, w.name, w.del));
        break;
    }
  }
  return results;
}

EventPtr SharedAnswer(EventType type, const std::string& resource, Json object) {
  auto event = std::make_shared<WatchEvent>();
  event->type = type;
  event->resource = resource;
  event->object = std::move(object);
  return event;
}

Result<EventPtr> ObjectStore::CreateShared(const std::string& resource, Json object) {
  KUOTA_ASSIGN_OR_RETURN(Json created, Create(resource, std::move(object)));
  EventPtr event = SharedAnswer(EventType::kAdded, resource, std::move(created));
  return event;
}

Result<EventPtr> ObjectStore::UpdateShared(const std::string& resource, Json object,
                                           const UpdateOptions& options) {
  KUOTA_ASSIGN_OR_RETURN(Json updated, Update(resource, std::move(object), options));
  EventPtr event = SharedAnswer(EventType::kModified, resource, std::move(updated));
  return event;
}

int64_t ObjectStore::WriteVersion(std::string_view /*resource*/) { return -1; }

Result<std::unique_ptr<ObjectStore>> ObjectStore::Open(const StoreOptions& options) {
  KUOTA_ASSIGN_OR_RETURN(std::unique_ptr<SqliteObjectStore> store,
                         SqliteObjectStore::Open(options));
  return std::unique_ptr<ObjectStore>(std::move(store));
}

}  // namespace kuota::store
