// ListEach / ListAll: every object of one resource, read page by page (1000
// a page, without counting what remains), for readers that need the whole
// collection at once: a controller's initial sync before it watches, a
// metrics scrape. Thread-safe as the store is.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "store/object_store.h"

namespace kuota::store {

// Calls `each` with every object of `resource` that `options` selects
// (namespace, selectors; its paging fields are set here), in the store's
// order; the first error of a page read ends it.
Status ListEach(ObjectStore& store, const std::string& resource,
                const std::function<void(Json&)>& each, ListOptions options = {});

// The same objects, collected.
Result<std::vector<Json>> ListAll(ObjectStore& store, const std::string& resource,
                                  ListOptions options = {});

}  // namespace kuota::store
