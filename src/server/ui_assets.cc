#include "server/ui_assets.h"

namespace kuota::server {
namespace {

std::string_view ContentTypeFor(std::string_view name) {
  auto ends_with = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  if (ends_with(".html")) return "text/html; charset=utf-8";
  if (ends_with(".js")) return "text/javascript; charset=utf-8";
  if (ends_with(".css")) return "text/css; charset=utf-8";
  if (ends_with(".svg")) return "image/svg+xml";
  if (ends_with(".png")) return "image/png";
  return "application/octet-stream";
}

}  // namespace

std::optional<UiAsset> FindUiAsset(std::string_view path) {
  std::string_view name;
  if (path == "/ui" || path == "/ui/") {
    name = "index.html";
  } else if (path.substr(0, 4) == "/ui/") {
    name = path.substr(4);
  } else {
    return std::nullopt;
  }
  for (size_t i = 0; i < internal::kUiFileCount; ++i) {
    const internal::UiFile& f = internal::kUiFiles[i];
    if (name == f.name) {
      return UiAsset{ContentTypeFor(name),
                     std::string_view(reinterpret_cast<const char*>(f.data), f.size)};
    }
  }
  return std::nullopt;
}

}  // namespace kuota::server
