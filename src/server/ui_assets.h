// The web dashboard's static files (src/server/ui/*), embedded in the binary
// at build time by embed_ui.cmake. They carry no data: the page reads
// everything from the API with the bearer token its user gives it, so kuotad
// serves them without authentication (GET /ui, /ui/, /ui/app.js, ...).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace kuota::server {

struct UiAsset {
  std::string_view content_type;  // e.g. "text/html; charset=utf-8"
  std::string_view body;
};

// The file a path names: "/ui" and "/ui/" are index.html, "/ui/NAME" is NAME;
// nullopt for anything else (other paths, unknown or nested names).
std::optional<UiAsset> FindUiAsset(std::string_view path);

namespace internal {
// One embedded file; the generated ui_assets_data.cc defines the table.
struct UiFile {
  const char* name;  // "index.html"
  const unsigned char* data;
  size_t size;
};
extern const UiFile kUiFiles[];
extern const size_t kUiFileCount;
}  // namespace internal

}  // namespace kuota::server
