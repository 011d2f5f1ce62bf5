#include "perf/workload_watch.h"

#include <chrono>

namespace kuota::perf {
namespace {

using Json = nlohmann::json;

int64_t ResourceVersionOf(const Json& object) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return 0;
  auto rv = m->find("resourceVersion");
  if (rv == m->end() || !rv->is_string()) return 0;
  return std::strtoll(rv->get_ref<const std::string&>().c_str(), nullptr, 10);
}

}  // namespace

WorkloadWatch::WorkloadWatch(const ServerAddress& server, std::atomic<int64_t>* requests,
                             OnEvent on_event, OnWarning on_warning)
    : server_(server),
      on_event_(std::move(on_event)),
      on_warning_(std::move(on_warning)),
      client_(std::make_unique<ApiClient>(server, requests)) {}

WorkloadWatch::~WorkloadWatch() { Stop(); }

void WorkloadWatch::Start(int64_t resource_version) {
  rv_ = resource_version;
  thread_ = std::thread([this] { Run(); });
}

void WorkloadWatch::Stop() {
  stop_ = true;
  if (!thread_.joinable()) return;
  // Stop() aborts only a request in flight: repeat until the thread is out.
  while (!done_.load()) {
    client_->Stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  thread_.join();
}

std::string WorkloadWatch::error() const {
  std::lock_guard lock(mu_);
  return error_;
}

void WorkloadWatch::Run() {
  RunLoop();
  done_ = true;
}

void WorkloadWatch::RunLoop() {
  int failures = 0;
  while (!stop_) {
    const int64_t before = events_.load();
    const std::string path =
        std::string(kWorkloadsPath) +
        "?watch=true&allowWatchBookmarks=true&timeoutSeconds=60&resourceVersion=" +
        std::to_string(rv_);
    buf_.clear();
    gone_ = false;
    ApiReply reply = client_->Stream(path, [this](const char* data, size_t n) {
      OnData(data, n);
      return !stop_.load();
    });
    if (stop_) break;
    if (gone_ || reply.status == 410) {
      on_warning_("the watch's resourceVersion " + std::to_string(rv_) +
                  " expired; listed all Workloads again (transitions in between may be missed)");
      if (!Relist()) {
        if (++failures > 20) break;
      }
      continue;
    }
    if (reply.status != 0 && reply.status != 200) {
      std::lock_guard lock(mu_);
      error_ = "watching Workloads: " + DescribeReply(reply);
      break;
    }
    failures = events_.load() > before ? 0 : failures + 1;
    if (failures > 50) {
      std::lock_guard lock(mu_);
      error_ = "the Workload watch keeps failing: " + DescribeReply(reply);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(failures > 0 ? 100 : 0));
  }
}

bool WorkloadWatch::Relist() {
  ApiReply reply = client_->Get(kWorkloadsPath);
  if (!reply.ok()) {
    on_warning_("listing Workloads: " + DescribeReply(reply));
    return false;
  }
  Json list = Json::parse(reply.body, nullptr, false);
  if (list.is_discarded() || !list.is_object()) return false;
  for (const Json& item : list.value("items", Json::array())) {
    if (item.is_object()) on_event_("MODIFIED", item);
  }
  rv_ = ResourceVersionOf(list);
  return true;
}

void WorkloadWatch::OnData(const char* data, size_t n) {
  buf_.append(data, n);
  size_t pos = 0;
  for (size_t nl; (nl = buf_.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    if (nl > pos) HandleLine(std::string_view(buf_).substr(pos, nl - pos));
  }
  buf_.erase(0, pos);
}

void WorkloadWatch::HandleLine(std::string_view line) {
  Json ev = Json::parse(line.begin(), line.end(), nullptr, false);
  if (ev.is_discarded() || !ev.is_object()) {
    on_warning_("ignoring a watch line that is not JSON: " + std::string(line.substr(0, 200)));
    return;
  }
  const std::string type = ev.value("type", "");
  auto obj = ev.find("object");
  if (obj == ev.end() || !obj->is_object()) return;
  if (type == "ERROR") {
    if (obj->value("code", 0) == 410) {
      gone_ = true;
    } else {
      on_warning_("watch error: " + obj->value("message", obj->dump()));
    }
    return;
  }
  const int64_t rv = ResourceVersionOf(*obj);
  if (rv > rv_) rv_ = rv;
  if (type == "BOOKMARK") return;
  events_++;
  on_event_(type, *obj);
}

}  // namespace kuota::perf
