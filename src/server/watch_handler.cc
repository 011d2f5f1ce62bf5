// The watch verb of ResourceHandlers (see resource_handlers.h): a chunked
// stream of watch events, from a listed initial state or a resourceVersion.
//
// The initial state (resourceVersion unset or 0, or sendInitialEvents) is
// read from the store a page at a time, each page encoded and written before
// the next is read, so an open watch holds one page, never the collection.
// Writes go on between pages, so page i shows its keys as they were at the
// resourceVersion it was read at, rv_i (rv_1 <= rv_2 <= ...). The watch
// subscribes from rv_1 and drops each event that the page holding its key
// already shows (the event's version <= that page's rv_i): every object's
// history reaches the client once and in order, and once the events up to
// the last page's version are through, the client holds the state at that
// version (where sendInitialEvents' closing bookmark points).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/json_fields.h"
#include "server/media_types.h"
#include "server/resource_handlers.h"
#include "server/table_printer.h"
#include "server/watch_encoder.h"
#include "store/continue_token.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kuota::server {
namespace {

using Json = nlohmann::json;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Lines of the initial state are gathered into writes of about this size.
constexpr size_t kWriteChunk = 64 << 10;
// A watch whose initial state was at least this large hands the memory it
// freed back to the OS when that state has been sent.
constexpr size_t kReleaseAfterBytes = 4 << 20;

bool ParseInt(const std::string& text, int64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// An object's place in the store's list order: (namespace, name).
using Key = std::pair<std::string, std::string>;

Key KeyOf(const Json& object) {
  return {StringField(object, {"metadata", "namespace"}),
          StringField(object, {"metadata", "name"})};
}

// Where the pages of a watch's initial state were read (see the top of this
// file): which events they already show.
class InitialPages {
 public:
  // Records a page read at `rv` whose last object was `last`; nullopt for
  // the last page, which holds every key after the page before it.
  void Add(int64_t rv, std::optional<Key> last) {
    if (last) {
      bounded_.emplace_back(std::move(*last), rv);
    } else {
      last_rv_ = rv;
    }
  }
  // True when the page holding `event`'s object already shows the event.
  bool Shows(const store::WatchEvent& event) const {
    if (event.resource_version > last_rv_) return false;
    Key key = KeyOf(event.object);
    auto page = std::lower_bound(bounded_.begin(), bounded_.end(), key,
                                 [](const auto& p, const Key& k) { return p.first < k; });
    int64_t page_rv = page == bounded_.end() ? last_rv_ : page->second;
    return event.resource_version <= page_rv;
  }
  int64_t last_rv() const { return last_rv_; }
  // Once events are past last_rv() no page shows any of them.
  void Clear() { std::vector<std::pair<Key, int64_t>>().swap(bounded_); }

 private:
  std::vector<std::pair<Key, int64_t>> bounded_;  // (last key, rv) in key order
  int64_t last_rv_ = 0;
};

// Hands memory freed by a watch that sent a large initial state back to the
// OS: glibc keeps freed memory in its arenas (one per thread that allocated
// it), and malloc_trim returns their free pages. A no-op without glibc.
void ReleaseFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

// One page of `resource` in `ns` after `token` ("" for the first), unfiltered.
Result<store::ListResult> ReadPage(store::ObjectStore& store, const std::string& resource,
                                   const std::string& ns, const std::string& token,
                                   int64_t page_size, bool as_text) {
  store::ListOptions options;
  options.ns = ns;
  options.limit = std::max<int64_t>(page_size, 1);
  options.continue_token = token;
  options.count_remaining = false;
  options.as_text = as_text;
  return store.List(resource, options);
}

// The last key of a page, from its continue token; nullopt for the last page.
std::optional<Key> LastKey(const store::ListResult& page) {
  if (page.continue_token.empty()) return std::nullopt;
  Result<store::ContinueToken> token = store::ContinueToken::Decode(page.continue_token);
  if (!token.ok()) return std::nullopt;
  return Key{token->ns, token->name};
}

// kube-apiserver's answer to a watch from a version it has not reached
// (storage.NewTooLargeResourceVersionError): 504 Timeout, retry in 1 s.
Json TooLargeResourceVersion(int64_t requested, int64_t current) {
  ApiError e;
  e.code = 504;
  e.reason = "Timeout";
  e.message = "Timeout: Too large resource version: " + std::to_string(requested) +
              ", current: " + std::to_string(current);
  e.causes = Json::array(
      {{{"reason", "ResourceVersionTooLarge"}, {"message", "Too large resource version"}}});
  Json status = e.ToStatus();
  status["details"]["retryAfterSeconds"] = 1;
  return status;
}

// A store failure while the watch opens, as the list verb reports it.
HttpReply StoreError(const Status& status, const ResourceInfo& resource) {
  if (status.code() == StatusCode::kInvalid) return BadRequestError(status.message()).ToReply();
  return FromStatus(status, resource, "").ToReply();
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
  const ResourceInfo* resource = nullptr;
  std::string ns;  // "" for all namespaces
  int64_t page_size = 500;
  // The initial state, when the watch sends one: the page read as the watch
  // opened (the others are read as the stream goes) and where pages were read.
  bool listing = false;
  store::ListResult first_page;
  InitialPages pages;
  bool initial_bookmark = false;
  bool bookmarks = false;
  int64_t resource_version = 0;
  SteadyClock::time_point deadline;
};

// Writes the initial state, page by page. False when the stream must end
// (client gone, watch stopped or timed out, or a store error sent as an
// ERROR event). Adds the bytes written to `*bytes`.
bool SendInitialState(store::ObjectStore& store, WatchState& s, const ChunkWriter& write,
                      size_t* bytes) {
  std::string out;
  auto flush = [&] {
    if (out.empty()) return true;
    *bytes += out.size();
    bool ok = write(out);
    out.clear();
    return ok;
  };
  store::ListResult page = std::move(s.first_page);
  while (true) {
    for (std::string& text : page.texts) {
      WatchEncoder::AppendTextLine("ADDED", text, &out);
      std::string().swap(text);
      if (out.size() >= kWriteChunk && !flush()) return false;
    }
    for (Json& item : page.items) {
      if (s.encoder->Matches(item)) out += s.encoder->Added(item);
      item = Json();
      if (out.size() >= kWriteChunk && !flush()) return false;
    }
    if (page.continue_token.empty()) break;
    if (!s.watcher->Alive() || SteadyClock::now() >= s.deadline) return false;
    const std::string token = std::move(page.continue_token);
    page = store::ListResult();  // this page goes before the next is read
    Result<store::ListResult> next = ReadPage(store, s.resource->StoreKey(), s.ns, token,
                                              s.page_size, s.encoder->CopiesStoredText());
    if (!next.ok()) {
      out += WatchEncoder::Error(FromStatus(next.status(), *s.resource, ""));
      flush();
      return false;
    }
    page = std::move(next).value();
    s.pages.Add(page.resource_version, LastKey(page));
  }
  return flush();
}

// Sends the store event unless the initial state already showed it.
bool Deliver(WatchState& s, const store::WatchEvent& event, const ChunkWriter& write, bool* wrote) {
  *wrote = false;
  if (s.listing) {
    if (s.pages.Shows(event)) return true;
    if (event.resource_version > s.pages.last_rv()) {
      s.pages.Clear();
      s.listing = false;
    }
  }
  if (event.resource_version > s.resource_version) s.resource_version = event.resource_version;
  std::string line = s.encoder->Translate(event);
  if (line.empty()) return true;
  *wrote = true;
  return write(line);
}

void RunWatch(store::ObjectStore& store, WatchState& s, int64_t bookmark_ms, int64_t heartbeat_ms,
              const ChunkWriter& write) {
  bool open = true;
  bool wrote = false;
  if (s.listing) {
    size_t bytes = 0;
    open = SendInitialState(store, s, write, &bytes);
    if (bytes >= kReleaseAfterBytes) ReleaseFreedMemory();
    s.resource_version = std::max(s.resource_version, s.pages.last_rv());
    if (open && s.initial_bookmark) {
      // List returned only after the events up to its version were queued
      // here: send those the pages do not show, then the bookmark that says
      // the client holds the state at the last page's version.
      store::EventPtr event;
      store::EventPtr later;
      while (open && s.watcher->Next(&event, milliseconds(0))) {
        if (event->resource_version > s.pages.last_rv()) {
          later = std::move(event);
          break;
        }
        open = Deliver(s, *event, write, &wrote);
      }
      if (open) open = write(s.encoder->Bookmark(s.pages.last_rv(), true));
      if (open && later) open = Deliver(s, *later, write, &wrote);
    }
  }
  auto last_write = SteadyClock::now();
  auto last_bookmark = last_write;
  while (open) {
    auto now = SteadyClock::now();
    if (now >= s.deadline) break;
    auto wait = std::min<SteadyClock::duration>(s.deadline - now, milliseconds(1000));
    store::EventPtr event;
    if (s.watcher->Next(&event, std::chrono::duration_cast<milliseconds>(wait))) {
      open = Deliver(s, *event, write, &wrote);
      if (wrote) last_write = SteadyClock::now();
      continue;
    }
    if (!s.watcher->Alive()) break;  // stopped, or fell behind: the client re-watches
    now = SteadyClock::now();
    if (s.bookmarks && now - last_bookmark >= milliseconds(bookmark_ms)) {
      open = write(s.encoder->Bookmark(s.resource_version, false));
      last_bookmark = last_write = now;
    } else if (now - last_write >= milliseconds(heartbeat_ms)) {
      open = write("\n");  // JSON decoders skip whitespace; a gone client fails the write
      last_write = now;
    } else {
      open = write(std::string_view());  // a probe: a client that hung up ends the watch now
    }
  }
  s.watcher->Stop();
}

}  // namespace

int64_t ResourceHandlers::WaitForResourceVersion(int64_t rv) {
  const auto deadline = SteadyClock::now() + milliseconds(std::max<int64_t>(
                                                 options_.future_resource_version_wait_ms, 0));
  while (true) {
    const int64_t current = store_.CurrentResourceVersion();
    if (current >= rv || SteadyClock::now() >= deadline) return current;
    {
      store::MutexLock lock(&mu_);
      if (stopping_) return current;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
}

HttpReply ResourceHandlers::Watch(const HttpRequest& request, const RequestTarget& target) {
  const ResourceInfo& r = *target.resource;
  std::string field_selector = request.Query("fieldSelector");
  if (!target.name.empty()) {
    // Watching one object is watching its collection for that name.
    field_selector =
        "metadata.name=" + target.name + (field_selector.empty() ? "" : "," + field_selector);
  }
  const std::string& label_selector = request.Query("labelSelector");
  WatchEncoderOptions encoder_options;
  Result<store::ListLabelSelector> labels = store::ListLabelSelector::Parse(label_selector);
  if (!labels.ok()) return BadRequestError(labels.status().message()).ToReply();
  Result<store::ListFieldSelector> fields = store::ListFieldSelector::Parse(field_selector);
  if (!fields.ok()) return BadRequestError(fields.status().message()).ToReply();
  encoder_options.labels = std::move(labels).value();
  encoder_options.fields = std::move(fields).value();
  encoder_options.table =
      Negotiate(request.accept, /*allow_table=*/true, false) == Representation::kTable;
  encoder_options.include = ParseIncludeObject(request.Query("includeObject"));
  encoder_options.webhooks = options_.webhooks;

  auto state = std::make_shared<WatchState>();
  state->encoder = std::make_unique<WatchEncoder>(r, clock_, std::move(encoder_options));
  state->resource = &r;
  state->ns = target.ns;
  state->page_size = options_.watch_page_size;
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
  if (from > 0) {
    // As kube-apiserver: wait a little for a version the store has not
    // reached, then answer with an ERROR event rather than hang.
    const int64_t current = WaitForResourceVersion(from);
    if (current < from) {
      HttpReply reply;
      reply.body = WatchEncoder::ErrorStatus(TooLargeResourceVersion(from, current));
      return reply;
    }
  }
  const bool list_first = rv_text.empty() || rv_text == "0" || send_initial;
  const bool filtered = !label_selector.empty() || !field_selector.empty();
  if (list_first) {
    // The first page now (so a failing store is an HTTP error), the rest as
    // the stream goes; the watch starts from the first page's version.
    Result<store::ListResult> page =
        ReadPage(store_, r.StoreKey(), target.ns, "", options_.watch_page_size,
                 state->encoder->CopiesStoredText());
    if (!page.ok()) return StoreError(page.status(), r);
    state->first_page = std::move(page).value();
    state->pages.Add(state->first_page.resource_version, LastKey(state->first_page));
    state->listing = true;
    from = state->first_page.resource_version;
    state->initial_bookmark = send_initial && state->bookmarks;
  } else if (filtered) {
    // A resumed, filtered watch: what matches now stands in for what
    // matched at `from` (read a page at a time, keeping only the keys).
    std::string token;
    do {
      Result<store::ListResult> page =
          ReadPage(store_, r.StoreKey(), target.ns, token, options_.watch_page_size, false);
      if (!page.ok()) return StoreError(page.status(), r);
      for (const Json& item : page->items) {
        if (state->encoder->Matches(item)) state->encoder->Seed(item);
      }
      token = std::move(page->continue_token);
    } while (!token.empty());
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
  reply.stream = [this, state, bookmark_ms, heartbeat_ms](const ChunkWriter& write) {
    RunWatch(store_, *state, bookmark_ms, heartbeat_ms, write);
  };
  return reply;
}

}  // namespace kuota::server
