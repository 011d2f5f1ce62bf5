// Fuzz target: one HTTP request through kuotad's whole API path — routing,
// JSON decoding, patches, admission (schema and Kueue validation), the SQLite
// store — and then every stored Job and Pod through the readers kuotad's
// background loops run on them (the Job controller's ReconcileJob, the
// Workload a queued Job makes, a pod's resource requests). Aborts on an
// exception escaping any of them, or on a 5xx answer: both are bugs.
//
// Input: "METHOD PATH\nCONTENT-TYPE\nBODY". Built as a libFuzzer target with
// -DKUOTA_FUZZ=ON (clang); as `kuota_fuzz_replay` with any compiler, which
// replays the seed corpus plus deterministic mutations of it (a ctest).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include <unistd.h>

#include "control/admission_hook.h"
#include "control/pod_resources.h"
#include "jobctl/job_controller.h"
#include "jobs/registry.h"
#include "server/pod_logs.h"
#include "server/resource_handlers.h"
#include "server/router.h"
#include "server/visibility.h"
#include "store/object_store.h"

namespace {

using Json = nlohmann::json;
using namespace kuota;

// The API over a store in a fresh temporary directory, for the whole run.
struct Api {
  Api() {
    char dir[] = "/tmp/kuota-fuzz-XXXXXX";
    if (mkdtemp(dir) == nullptr) std::abort();
    store::StoreOptions so;
    so.path = std::string(dir) + "/kuota.db";
    so.sync = false;
    so.clock = &clock;
    auto opened = store::ObjectStore::Open(so);
    if (!opened.ok()) std::abort();
    db = std::move(opened).value();
    handlers =
        std::make_unique<server::ResourceHandlers>(*db, &hook, clock, server::HandlerOptions{});
    logs = std::make_unique<server::PodLogs>(*db, server::PodLogOptions{});
    router = std::make_unique<server::Router>(*handlers, *logs, visibility);
    for (const char* ns : {"default", "team-a"}) (void)handlers->EnsureNamespace(ns);
  }
  RealClock clock;
  control::KuotaAdmissionHook hook;
  server::VisibilityApi visibility{nullptr};
  std::unique_ptr<store::ObjectStore> db;
  std::unique_ptr<server::ResourceHandlers> handlers;
  std::unique_ptr<server::PodLogs> logs;
  std::unique_ptr<server::Router> router;
};

// What kuotad's loops do with a stored object of `resource`.
void ReadLikeTheLoops(const std::string& resource, const Json& object) {
  if (resource == "jobs.batch") {
    (void)jobctl::ReconcileJob(object, {}, Time::FromSeconds(1'800'000'000));
    if (const jobs::JobKind* kind = jobs::FindJobKind(resource)) {
      bool succeeded = false;
      (void)kind->IsFinished(object, &succeeded);
      (void)kind->IsSuspended(object);
      (void)kind->BuildWorkload(object);
    }
  } else if (resource == "pods") {
    (void)control::PodRequests(object);
  }
}

// %XX and '+' decoded, as the HTTP library hands query values to the router.
std::string UrlDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() &&
               std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string_view NextLine(std::string_view& in) {
  size_t nl = in.find('\n');
  std::string_view line = in.substr(0, nl);
  in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Api* api = new Api();  // lives for the whole process, as kuotad's
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view first = NextLine(in);
  server::HttpRequest req;
  size_t space = first.find(' ');
  if (space == std::string_view::npos) return 0;
  req.method = std::string(first.substr(0, space));
  std::string target(first.substr(space + 1));
  size_t q = target.find('?');
  req.path = target.substr(0, q);
  if (q != std::string::npos) {
    std::string_view query = std::string_view(target).substr(q + 1);
    while (!query.empty()) {
      size_t amp = query.find('&');
      std::string_view kv = query.substr(0, amp);
      size_t eq = kv.find('=');
      req.query.emplace(UrlDecode(kv.substr(0, eq)),
                        eq == std::string_view::npos ? "" : UrlDecode(kv.substr(eq + 1)));
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    }
  }
  req.content_type = std::string(NextLine(in));
  req.body = std::string(in);
  req.accept = "application/json";
  if (req.query.count("watch")) return 0;  // a watch blocks; covered by the server tests
  server::HttpReply reply;
  try {
    reply = api->router->Route(req);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exception escaped the API: %s\n", e.what());
    std::abort();
  }
  static const bool verbose = std::getenv("KUOTA_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%s %s -> %d\n", req.method.c_str(), target.c_str(), reply.status);
  if (reply.status >= 500) {
    std::fprintf(stderr, "%s %s -> %d %s\n", req.method.c_str(), target.c_str(), reply.status,
                 reply.body.c_str());
    std::abort();
  }
  // Whatever the request stored, the loops must be able to read (or refuse).
  if (reply.status == 200 || reply.status == 201) {
    Json stored = Json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
    if (stored.is_object()) {
      const std::string kind = stored.value("kind", "");
      const std::string resource = kind == "Job" ? "jobs.batch" : kind == "Pod" ? "pods" : "";
      try {
        if (!resource.empty()) ReadLikeTheLoops(resource, stored);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "a reader threw on a stored %s: %s\n%s\n", kind.c_str(), e.what(),
                     reply.body.c_str());
        std::abort();
      }
    }
  }
  return 0;
}
