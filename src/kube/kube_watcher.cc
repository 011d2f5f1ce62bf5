#include "kube/kube_watcher.h"

#include <cstdio>
#include <cstdlib>

#include "kube/resource_path.h"

namespace kuota::kube {

struct KubeWatcher::Stream {
  WatchStreamSpec spec;
  const server::ResourceInfo* info = nullptr;
  int64_t rv = 0;
  WatchCanceller canceller;
  std::thread thread;
};

namespace {

int64_t VersionOf(const Json& object) {
  const Json* meta =
      object.is_object() && object.contains("metadata") ? &object["metadata"] : nullptr;
  if (meta == nullptr || !meta->is_object() || !meta->contains("resourceVersion") ||
      !(*meta)["resourceVersion"].is_string()) {
    return 0;
  }
  return std::strtoll((*meta)["resourceVersion"].get<std::string>().c_str(), nullptr, 10);
}

}  // namespace

KubeWatcher::KubeWatcher(KubeClient& client, std::vector<WatchStreamSpec> streams,
                         KubeWatchOptions options)
    : client_(client), options_(std::move(options)) {
  for (auto& spec : streams) {
    auto s = std::make_unique<Stream>();
    s->rv = spec.from;
    s->spec = std::move(spec);
    Result<const server::ResourceInfo*> info = ResourceForKey(s->spec.resource);
    if (!info.ok()) continue;  // not a kind Kuota knows: nothing to watch
    s->info = *info;
    streams_.push_back(std::move(s));
  }
  for (auto& s : streams_) {
    Stream* raw = s.get();
    s->thread = std::thread([this, raw] { RunStream(*raw); });
  }
}

KubeWatcher::~KubeWatcher() { Stop(); }

void KubeWatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
  for (auto& s : streams_) {
    if (!s->thread.joinable()) continue;
    s->canceller.Cancel();
    s->thread.join();
  }
}

bool KubeWatcher::Alive() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !stopped_ && !dead_;
}

int64_t KubeWatcher::reconnects() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reconnects_;
}

bool KubeWatcher::Next(store::EventPtr* event, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return stopped_ || !queue_.empty(); });
  if (stopped_ || queue_.empty()) return false;
  *event = std::make_shared<const store::WatchEvent>(std::move(queue_.front()));
  queue_.pop_front();
  return true;
}

void KubeWatcher::Push(store::WatchEvent event) {
  if (options_.on_resource_version) options_.on_resource_version(event.resource_version);
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(event));
  }
  cv_.notify_all();
}

void KubeWatcher::Die() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    dead_ = true;
  }
  cv_.notify_all();
}

bool KubeWatcher::HandleLine(Stream& stream, std::string_view line, bool* gone) {
  Json ev = Json::parse(line, nullptr, false);
  if (!ev.is_object() || !ev.contains("type") || !ev["type"].is_string() ||
      !ev.contains("object") || !ev["object"].is_object()) {
    std::fprintf(stderr, "kuotad: watch %s: not a watch event: %.200s\n",
                 stream.spec.resource.c_str(), std::string(line).c_str());
    return false;  // reconnect from the last good version
  }
  const std::string type = ev["type"];
  Json& object = ev["object"];
  if (type == "ERROR") {
    const int code = object.value("code", 0);
    const std::string reason = object.value("reason", "");
    if (code == 410 || reason == "Expired" || reason == "Gone") {
      *gone = true;
    } else {
      std::fprintf(stderr, "kuotad: watch %s: error %d %s: %s\n", stream.spec.resource.c_str(),
                   code, reason.c_str(), object.value("message", "").c_str());
    }
    return false;
  }
  store::WatchEvent out;
  out.resource = stream.spec.resource;
  out.resource_version = VersionOf(object);
  if (type == "ADDED") {
    out.type = store::EventType::kAdded;
  } else if (type == "MODIFIED") {
    out.type = store::EventType::kModified;
  } else if (type == "DELETED") {
    out.type = store::EventType::kDeleted;
  } else if (type == "BOOKMARK") {
    out.type = store::EventType::kBookmark;
  } else {
    std::fprintf(stderr, "kuotad: watch %s: unknown event type %s\n", stream.spec.resource.c_str(),
                 type.c_str());
    return true;
  }
  if (out.resource_version > stream.rv) stream.rv = out.resource_version;
  if (out.type != store::EventType::kBookmark) {
    // Objects in a watch carry their kind; make sure of it.
    if (!object.contains("kind")) object["kind"] = stream.info->kind;
    if (!object.contains("apiVersion")) object["apiVersion"] = stream.info->ApiVersion();
    out.object = std::move(object);
  }
  Push(std::move(out));
  return true;
}

void KubeWatcher::RunStream(Stream& stream) {
  auto backoff = options_.backoff_initial;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_ || dead_) return;
    }
    std::string path = CollectionPath(*stream.info, stream.spec.ns) +
                       "?watch=1&allowWatchBookmarks=true&timeoutSeconds=" +
                       std::to_string(options_.server_timeout_seconds);
    if (stream.rv > 0) path += "&resourceVersion=" + std::to_string(stream.rv);
    bool gone = false, events = false, broken = false;
    const auto started = std::chrono::steady_clock::now();
    Status st = client_.Watch(
        path,
        [&](std::string_view line) {
          events = true;
          const bool more = HandleLine(stream, line, &gone);
          broken |= !more;  // an ERROR event or an unreadable line
          return more;
        },
        stream.canceller);
    if (stream.canceller.cancelled()) return;
    if (gone || st.code() == StatusCode::kGone) {
      std::fprintf(stderr,
                   "kuotad: watch %s: resourceVersion %lld is too old (410 Gone); "
                   "listing again\n",
                   stream.spec.resource.c_str(), static_cast<long long>(stream.rv));
      Die();
      return;
    }
    // A stream that ended by itself after a while (the server's timeout)
    // resumes at once; one that failed or was cut by an error event waits.
    const bool healthy =
        st.ok() && !broken &&
        (events || std::chrono::steady_clock::now() - started > std::chrono::seconds(5));
    if (!st.ok()) {
      std::fprintf(stderr, "kuotad: watch %s: %s; again in %lld ms\n", stream.spec.resource.c_str(),
                   st.message().c_str(), static_cast<long long>(backoff.count()));
    }
    std::unique_lock<std::mutex> lock(mu_);
    ++reconnects_;
    if (healthy) {
      backoff = options_.backoff_initial;
      continue;
    }
    cv_.wait_for(lock, backoff, [&] { return stopped_ || dead_; });
    backoff = std::min(backoff * 2, options_.backoff_max);
  }
}

}  // namespace kuota::kube
