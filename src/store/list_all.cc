#include "store/list_all.h"

#include <utility>

namespace kuota::store {

Status ListEach(ObjectStore& store, const std::string& resource,
                const std::function<void(Json&)>& each, ListOptions options) {
  options.limit = 1000;
  options.count_remaining = false;
  options.as_text = false;
  options.continue_token.clear();
  do {
    Result<ListResult> page = store.List(resource, options);
    if (!page.ok()) return page.status();
    for (Json& item : page->items) each(item);
    options.continue_token = page->continue_token;
  } while (!options.continue_token.empty());
  return Status::Ok();
}

Result<std::vector<Json>> ListAll(ObjectStore& store, const std::string& resource,
                                  ListOptions options) {
  std::vector<Json> out;
  Status st = ListEach(
      store, resource, [&out](Json& item) { out.push_back(std::move(item)); }, std::move(options));
  if (!st.ok()) return st;
  return out;
}

}  // namespace kuota::store
