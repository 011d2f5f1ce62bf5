// The watch verb of ResourceHandlers (see resource_handlers.h): a chunked
// stream of watch events, from a listed initial state or a resourceVersion.
#include <algorithm>
#include <charconv>
#include <functional>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "server/json_fields.h"
#include "server/media_types.h"
#include "server/resource_handlers.h"
#include "server/table_printer.h"
#include "server/watch_encoder.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

bool ParseInt(const std::string& text, int64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// The state one open watch needs on its serving thread. Shared between the
// handler that opens the watch and the stream callback the HTTP layer runs.
struct WatchState {
  WatchState() = default;
  WatchState(const WatchState&) = delete;
  WatchState& operator=(const WatchState&) = delete;
  ~WatchState() {
    if (on_close) on_close();
  }

  std::function<void()> on_close;  // unregisters `watcher` from the server
  std::unique_ptr<store::Watcher> watcher;
  std::unique_ptr<WatchEncoder> encoder;
  std::vector<Json> initial;  // ADDED before streaming
  bool initial_bookmark = false;
  bool bookmarks = false;
  int64_t resource_version = 0;
  SteadyClock::time_point deadline;
};

}  // namespace

HttpReply ResourceHandlers::Watch(const HttpRequest& request, const RequestTarget& target) {
  const ResourceInfo& r = *target.resource;
  std::string field_selector = request.Query("fieldSelector");
  if (!target.name.empty()) {
    // Watching one object is watching its collection for that name.
    field_selector = "metadata.name=" + target.name +
                     (field_selector.empty() ? "" : "," + field_selector);
  }
  WatchEncoderOptions encoder_options;
  Result<store::ListLabelSelector> labels =
      store::ListLabelSelector::Parse(request.Query("labelSelector"));
  if (!labels.ok()) return BadRequestError(labels.status().message()).ToReply();
  Result<store::ListFieldSelector> fields = store::ListFieldSelector::Parse(field_selector);
  if (!fields.ok()) return BadRequestError(fields.status().message()).ToReply();
  encoder_options.labels = std::move(labels).value();
  encoder_options.fields = std::move(fields).value();
  encoder_options.table =
      Negotiate(request.accept, /*allow_table=*/true, false) == Representation::kTable;
  encoder_options.include = ParseIncludeObject(request.Query("includeObject"));

  auto state = std::make_shared<WatchState>();
  state->encoder = std::make_unique<WatchEncoder>(r, clock_, std::move(encoder_options));
  state->bookmarks = request.Query("allowWatchBookmarks") == "true";
  int64_t timeout_s = options_.default_watch_timeout_s;
  if (const std::string& t = request.Query("timeoutSeconds"); !t.empty()) {
    if (!ParseInt(t, &timeout_s) || timeout_s < 0) {
      return BadRequestError("invalid timeoutSeconds: \"" + t + "\"").ToReply();
    }
  }
  state->deadline = SteadyClock::now() + std::chrono::seconds(timeout_s);

  const std::string& rv_text = request.Query("resourceVersion");
  bool send_initial = request.Query("sendInitialEvents") == "true";
  int64_t from = 0;
  if (!rv_text.empty() && rv_text != "0" && !ParseInt(rv_text, &from)) {
    return BadRequestError("invalid resource version: \"" + rv_text + "\"").ToReply();
  }
  bool list_first = rv_text.empty() || rv_text == "0" || send_initial;
  store::ListOptions list_options;
  list_options.ns = target.ns;
  list_options.label_selector = request.Query("labelSelector");
  list_options.field_selector = field_selector;
  bool filtered = !list_options.label_selector.empty() || !list_options.field_selector.empty();
  if (list_first || filtered) {
    Result<store::ListResult> list = store_.List(r.StoreKey(), list_options);
    if (!list.ok()) {
      if (list.status().code() == StatusCode::kInvalid) {
        return BadRequestError(list.status().message()).ToReply();
      }
      return FromStatus(list.status(), r, "").ToReply();
    }
    if (list_first) {
      state->initial = std::move(list->items);
      from = list->resource_version;
      state->initial_bookmark = send_initial && state->bookmarks;
    } else {
      // A resumed, filtered watch: what matches now stands in for what matched at `from`.
      for (const Json& item : list->items) state->encoder->Seed(item);
    }
  }
  state->resource_version = from;

  Result<std::unique_ptr<store::Watcher>> watcher = store_.Watch(r.StoreKey(), target.ns, from);
  if (!watcher.ok()) {
    if (watcher.status().code() == StatusCode::kGone) {
      // As kube-apiserver: a 200 stream holding one ERROR event with the 410.
      HttpReply reply;
      reply.body = WatchEncoder::Error(ExpiredError(watcher.status().message()));
      return reply;
    }
    return FromStatus(watcher.status(), r, "").ToReply();
  }
  state->watcher = std::move(watcher).value();
  store::Watcher* raw_watcher = state->watcher.get();
  if (!RegisterWatcher(raw_watcher)) {
    ApiError e;
    e.code = 503;
    e.reason = "ServiceUnavailable";
    e.message = "the server is shutting down";
    return e.ToReply();
  }
  // Unregistered when the last holder of the state lets go, even if the HTTP
  // layer never runs the stream.
  state->on_close = [this, raw_watcher] { UnregisterWatcher(raw_watcher); };

  HttpReply reply;
  // A parameter keeps the HTTP layer from gzip-buffering the stream.
  reply.content_type = "application/json;stream=watch";
  const int64_t bookmark_ms = options_.watch_bookmark_interval_ms;
  const int64_t heartbeat_ms = options_.watch_heartbeat_ms;
  reply.stream = [state, bookmark_ms, heartbeat_ms](const ChunkWriter& write) {
    bool open = true;
    for (const Json& item : state->initial) {
      if (!write(state->encoder->Added(item))) {
        open = false;
        break;
      }
    }
    state->initial.clear();
    if (open && state->initial_bookmark) {
      open = write(state->encoder->Bookmark(state->resource_version, true));
    }
    auto last_write = SteadyClock::now();
    auto last_bookmark = last_write;
    while (open) {
      auto now = SteadyClock::now();
      if (now >= state->deadline) break;
      auto wait = std::min<SteadyClock::duration>(state->deadline - now, milliseconds(1000));
      store::WatchEvent event;
      if (state->watcher->Next(&event, std::chrono::duration_cast<milliseconds>(wait))) {
        if (event.resource_version > state->resource_version) {
          state->resource_version = event.resource_version;
        }
        std::string line = state->encoder->Translate(event);
        if (!line.empty()) {
          open = write(line);
          last_write = SteadyClock::now();
        }
        continue;
      }
      if (!state->watcher->Alive()) break;  // stopped, or fell behind: the client re-watches
      now = SteadyClock::now();
      if (state->bookmarks && now - last_bookmark >= milliseconds(bookmark_ms)) {
        open = write(state->encoder->Bookmark(state->resource_version, false));
        last_bookmark = last_write = now;
      } else if (now - last_write >= milliseconds(heartbeat_ms)) {
        open = write("\n");  // JSON decoders skip whitespace; a gone client fails the write
        last_write = now;
      }
    }
    state->watcher->Stop();
  };
  return reply;
}

}  // namespace kuota::server
