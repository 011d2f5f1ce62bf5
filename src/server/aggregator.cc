#include "server/aggregator.h"
#include "auth/ca_store.h"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <vector>

#include <httplib.h>

#include "auth/base64.h"
#include "base/clock.h"
#include "base/time.h"
#include "server/json_fields.h"
#include "server/json_reply.h"
#include "server/request_target.h"
#include "server/resource_info.h"
#include "server/status_errors.h"
#include "server/visibility.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

constexpr const char* kApiServicesKey = "apiservices.apiregistration.k8s.io";
constexpr const char* kAuthConfigMap = "extension-apiserver-authentication";

// The groups the server serves itself (never proxied).
const std::set<std::string>& BuiltInGroups() {
  static const std::set<std::string> kGroups = [] {
    std::set<std::string> g;
    for (const ResourceInfo& r : ServedResources()) g.insert(r.group);
    return g;
  }();
  return kGroups;
}

// kube-apiserver's aggregator answers what it cannot proxy with plain text.
HttpReply AggregatorText(int status, std::string text) {
  HttpReply reply;
  reply.status = status;
  reply.content_type = "text/plain; charset=utf-8";
  reply.body = std::move(text) + "\n";
  return reply;
}

int64_t IntOr(const Json& o, const char* key, int64_t fallback) {
  auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

// Kubernetes' version order (CompareKubeAwareVersionStrings): GA before
// beta before alpha, higher numbers first; other names after, by name.
bool KubeAwareVersionBefore(const std::string& a, const std::string& b) {
  static const std::regex kVersion("v([0-9]+)(?:(alpha|beta)([0-9]+))?");
  std::smatch ma, mb;
  const bool ka = std::regex_match(a, ma, kVersion), kb = std::regex_match(b, mb, kVersion);
  if (ka != kb) return ka;
  if (!ka) return a < b;
  auto rank = [](const std::smatch& m) {
    const std::string stage = m[2].str();
    return stage.empty() ? 2 : stage == "beta" ? 1 : 0;
  };
  if (rank(ma) != rank(mb)) return rank(ma) > rank(mb);
  const long major_a = std::stol(ma[1].str()), major_b = std::stol(mb[1].str());
  if (major_a != major_b) return major_a > major_b;
  const long minor_a = ma[3].matched ? std::stol(ma[3].str()) : 0;
  const long minor_b = mb[3].matched ? std::stol(mb[3].str()) : 0;
  return minor_a > minor_b;
}

// The APIServices of `group`, the preferred version first (versionPriority,
// highest first; then Kubernetes' version order), as kube-apiserver lists them.
std::vector<Json> ServicesOfGroup(const std::vector<Json>& all, const std::string& group) {
  std::vector<Json> out;
  for (const Json& s : all) {
    if (StringField(s, {"spec", "group"}) == group) out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const Json& a, const Json& b) {
    int64_t pa = IntOr(a.value("spec", Json::object()), "versionPriority", 0);
    int64_t pb = IntOr(b.value("spec", Json::object()), "versionPriority", 0);
    if (pa != pb) return pa > pb;
    return KubeAwareVersionBefore(StringField(a, {"spec", "version"}),
                                  StringField(b, {"spec", "version"}));
  });
  return out;
}

Json GroupEntry(const std::string& group, const std::vector<Json>& services) {
  Json versions = Json::array();
  for (const Json& s : services) {
    const std::string v = StringField(s, {"spec", "version"});
    versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  }
  return {{"name", group}, {"versions", versions}, {"preferredVersion", versions[0]}};
}

// Percent-encodes a query key or value.
std::string QueryEscape(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Where a Service's request goes: the name the certificate must carry and
// the address and port to connect to.
struct AggregatedTarget {
  std::string host;  // SERVICE.NAMESPACE.svc
  std::string ip;
  int port = 0;
};

// kube-apiserver's endpoint routing (k8s.io/apiserver's ResolveEndpoint):
// the Service's port numbered `port`, then an Endpoints subset with an
// address and a port of the same name, both picked at random.
Result<AggregatedTarget> ResolveAggregatedEndpoint(store::ObjectStore& store, const std::string& ns,
                                                   const std::string& name, int port) {
  Result<Json> svc = store.Get("services", ns, name);
  if (!svc.ok()) {
    if (svc.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("service \"" + name + "\" not found");
    }
    return svc.status();
  }
  const std::string type = StringField(*svc, {"spec", "type"});
  if (!type.empty() && type != "ClusterIP" && type != "LoadBalancer" && type != "NodePort") {
    return Status::Invalid("unsupported service type \"" + type + "\"");
  }
  const Json ports = svc->value("spec", Json::object()).value("ports", Json::array());
  const Json* svc_port = nullptr;
  for (const Json& p : ports) {
    if (p.is_object() && IntOr(p, "port", 0) == port) svc_port = &p;
  }
  if (svc_port == nullptr) {
    return Status::NotFound("no service port " + std::to_string(port) + " found for service \"" +
                            name + "\"");
  }
  const std::string port_name = StringField(*svc_port, {"name"});
  Result<Json> eps = store.Get("endpoints", ns, name);
  const Json subsets = eps.ok() ? eps->value("subsets", Json::array()) : Json::array();
  const std::string none = "no endpoints available for service \"" + name + "\"";
  if (!subsets.is_array() || subsets.empty()) return Status::Unavailable(none);
  thread_local std::mt19937 rng{std::random_device{}()};
  const size_t seed = rng() % subsets.size();
  for (size_t i = 0; i < subsets.size(); ++i) {
    const Json& ss = subsets[(seed + i) % subsets.size()];
    const Json addresses = ss.value("addresses", Json::array());
    if (!addresses.is_array() || addresses.empty()) continue;
    for (const Json& p : ss.value("ports", Json::array())) {
      if (!p.is_object() || StringField(p, {"name"}) != port_name) continue;
      AggregatedTarget t;
      t.host = name + "." + ns + ".svc";
      t.ip = StringField(addresses[rng() % addresses.size()], {"ip"});
      t.port = static_cast<int>(IntOr(p, "port", 0));
      if (t.ip.empty() || t.port <= 0) continue;
      return t;
    }
  }
  return Status::Unavailable(none);
}

// The reply of one proxied call, or why there is none (a transport error,
// worded as Go's http client words it).
struct ProxiedReply {
  int status = 0;
  std::string content_type;
  std::string body;
};

// Converts an APIResourceList into the resources of an aggregated discovery
// version (subresources under their resource), as kube-apiserver does.
Json AggregatedResources(const Json& list, const std::string& group, const std::string& version) {
  Json out = Json::array();
  std::map<std::string, size_t> index;
  const Json resources = list.value("resources", Json::array());
  for (const Json& r : resources) {
    const std::string name = StringField(r, {"name"});
    if (name.empty() || name.find('/') != std::string::npos) continue;
    index[name] = out.size();
    out.push_back(
        {{"resource", name},
         {"responseKind", {{"group", group}, {"version", version}, {"kind", r.value("kind", "")}}},
         {"scope", r.value("namespaced", false) ? "Namespaced" : "Cluster"},
         {"singularResource", r.value("singularName", "")},
         {"verbs", r.value("verbs", Json::array())}});
  }
  for (const Json& r : resources) {
    const std::string name = StringField(r, {"name"});
    size_t slash = name.find('/');
    if (slash == std::string::npos) continue;
    auto it = index.find(name.substr(0, slash));
    if (it == index.end()) continue;
    Json& parent = out[it->second];
    if (!parent.contains("subresources")) parent["subresources"] = Json::array();
    parent["subresources"].push_back(
        {{"subresource", name.substr(slash + 1)},
         {"responseKind", {{"group", group}, {"version", version}, {"kind", r.value("kind", "")}}},
         {"verbs", r.value("verbs", Json::array())}});
  }
  return out;
}

}  // namespace

namespace {

// One HTTPS call to an APIService's Service as kube-apiserver's proxy makes
// it. `user` empty: the aggregator's own call (discovery), without headers.
Result<ProxiedReply> CallAggregated(store::ObjectStore& store, const auth::ClientPem& client_pem,
                                    int timeout_seconds, const Json& api_service,
                                    const std::string& method, const std::string& path_and_query,
                                    const HttpRequest* request) {
  const Json& spec = api_service["spec"];
  const Json& service = spec["service"];
  KUOTA_ASSIGN_OR_RETURN(AggregatedTarget target,
                         ResolveAggregatedEndpoint(store, StringField(service, {"namespace"}),
                                                   StringField(service, {"name"}),
                                                   static_cast<int>(IntOr(service, "port", 443))));
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(
      BIO_new_mem_buf(client_pem.cert.data(), static_cast<int>(client_pem.cert.size())), &BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
      BIO_new_mem_buf(client_pem.key.data(), static_cast<int>(client_pem.key.size())), &BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr), &X509_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  if (!cert || !key)
    return Status::Internal("the aggregator's proxy client certificate is not PEM");
  httplib::SSLClient client(target.host, target.port, cert.get(), key.get());
  client.set_hostname_addr_map({{target.host, target.ip}});
  if (spec.value("insecureSkipTLSVerify", false) == true) {
    client.enable_server_certificate_verification(false);
  } else {
    if (std::string bundle = StringField(spec, {"caBundle"}); !bundle.empty()) {
      std::optional<std::string> ca = auth::Base64Decode(bundle);
      X509_STORE* ca_store = ca ? auth::CaStoreFromPem(*ca).release() : nullptr;
      if (ca_store == nullptr) return Status::Invalid("spec.caBundle holds no PEM certificate");
      client.set_ca_cert_store(ca_store);  // the client's SSL_CTX owns it now
    }
    client.enable_server_certificate_verification(true);
  }
  client.set_connection_timeout(timeout_seconds, 0);
  client.set_read_timeout(timeout_seconds, 0);
  client.set_write_timeout(timeout_seconds, 0);
  httplib::Headers headers;
  std::string content_type = "application/json";
  if (request != nullptr) {
    headers.emplace("X-Remote-User", request->user.name);
    for (const std::string& g : request->user.groups) headers.emplace("X-Remote-Group", g);
    if (!request->accept.empty()) headers.emplace("Accept", request->accept);
    if (!request->content_type.empty()) content_type = request->content_type;
  } else {
    // kube-apiserver's own discovery calls, as the aggregator itself.
    headers.emplace("X-Remote-User", "system:kube-aggregator");
    headers.emplace("X-Remote-Group", "system:masters");
    headers.emplace("Accept", "application/json");
  }
  httplib::Result res(nullptr, httplib::Error::Unknown);
  const char* p = path_and_query.c_str();
  const std::string body = request != nullptr ? request->body : "";
  if (method == "GET") {
    res = client.Get(p, headers);
  } else if (method == "HEAD") {
    res = client.Head(p, headers);
  } else if (method == "POST") {
    res = client.Post(p, headers, body, content_type.c_str());
  } else if (method == "PUT") {
    res = client.Put(p, headers, body, content_type.c_str());
  } else if (method == "PATCH") {
    res = client.Patch(p, headers, body, content_type.c_str());
  } else if (method == "DELETE") {
    res = client.Delete(p, headers, body, content_type.c_str());
  } else {
    return Status::Invalid("method " + method + " is not proxied");
  }
  if (!res) {
    const std::string addr = target.ip + ":" + std::to_string(target.port);
    std::string why = httplib::to_string(res.error());
    if (res.error() == httplib::Error::Connection) {
      why = "dial tcp " + addr + ": connect: connection refused";
    } else if (res.error() == httplib::Error::SSLServerVerification) {
      why =
          "tls: failed to verify certificate: x509: certificate signed by unknown authority or "
          "not valid for " +
          target.host;
    }
    return Status::Unavailable("error trying to reach service: " + why);
  }
  ProxiedReply out;
  out.status = res->status;
  out.content_type = res->get_header_value("Content-Type");
  out.body = res->body;
  return out;
}

}  // namespace

Aggregator::Aggregator(store::ObjectStore& store, AggregatorOptions options)
    : store_(store), options_(std::move(options)) {}

Aggregator::~Aggregator() {
  {
    store::MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  if (availability_.joinable()) availability_.join();
}

void Aggregator::CheckAvailability() {
  Result<store::ListResult> all = store_.List(kApiServicesKey, store::ListOptions{});
  if (!all.ok()) return;
  for (const Json& s : all->items) {
    Json condition = AvailableCondition(s);
    const Json conditions = s.value("status", Json::object()).value("conditions", Json::array());
    Json old;
    for (const Json& c : conditions) {
      if (c.is_object() && c.value("type", "") == "Available") old = c;
    }
    if (old.is_object() && old.value("status", "") == condition["status"] &&
        old.value("reason", "") == condition["reason"] &&
        old.value("message", "") == condition["message"]) {
      continue;
    }
    condition["lastTransitionTime"] =
        old.is_object() && old.value("status", "") == condition["status"]
            ? old.value("lastTransitionTime", FormatRfc3339(RealClock().Now()))
            : FormatRfc3339(RealClock().Now());
    Json updated = s;
    Json kept = Json::array();
    for (const Json& c : conditions) {
      if (!c.is_object() || c.value("type", "") != "Available") kept.push_back(c);
    }
    kept.push_back(condition);
    updated["status"] = {{"conditions", kept}};
    store::UpdateOptions options;
    options.status_only = true;
    // A Conflict (the object changed meanwhile) is retried next round.
    (void)store_.Update(kApiServicesKey, updated, options);
  }
}

Json Aggregator::AvailableCondition(const Json& api_service) const {
  Json c = {{"type", "Available"}, {"status", "True"}};
  const Json spec = api_service.value("spec", Json::object());
  if (!spec.contains("service") || !spec["service"].is_object()) {
    c["reason"] = "Local";
    c["message"] = "Local APIServices are always available";
    return c;
  }
  const std::string group = StringField(spec, {"group"});
  const std::string version = StringField(spec, {"version"});
  Result<ProxiedReply> r = CallAggregated(store_, client_, 5, api_service, "GET",
                                          "/apis/" + group + "/" + version, nullptr);
  const std::string ns = StringField(spec["service"], {"namespace"});
  const std::string name = StringField(spec["service"], {"name"});
  if (!r.ok()) {
    c["status"] = "False";
    const Status& st = r.status();
    if (st.code() == StatusCode::kNotFound && st.message().rfind("service \"", 0) == 0) {
      c["reason"] = "ServiceNotFound";
      c["message"] = "service/" + name + " in \"" + ns + "\" is not present";
    } else if (st.code() == StatusCode::kUnavailable &&
               st.message().rfind("no endpoints", 0) == 0) {
      c["reason"] = "MissingEndpoints";
      c["message"] = "endpoints for service/" + name + " in \"" + ns + "\" have no addresses";
    } else if (st.code() == StatusCode::kNotFound) {
      c["reason"] = "ServicePortError";
      c["message"] = st.message();
    } else {
      c["reason"] = "FailedDiscoveryCheck";
      c["message"] =
          "failing or missing response from " + group + "/" + version + ": " + st.message();
    }
    return c;
  }
  if (r->status != 200) {
    c["status"] = "False";
    c["reason"] = "FailedDiscoveryCheck";
    c["message"] = "failing or missing response from " + group + "/" + version + ": bad status " +
                   std::to_string(r->status);
    return c;
  }
  c["reason"] = "Passed";
  c["message"] = "all checks passed";
  return c;
}

Status Aggregator::Start() {
  KUOTA_ASSIGN_OR_RETURN(client_,
                         auth::GenerateClientPem("front-proxy-ca", options_.proxy_client_name));
  auto list = [](const std::string& one) { return Json::array({one}).dump(); };
  Json data = {{"requestheader-client-ca-file", client_.ca_cert},
               {"requestheader-allowed-names", list(options_.proxy_client_name)},
               {"requestheader-username-headers", list("X-Remote-User")},
               {"requestheader-group-headers", list("X-Remote-Group")},
               {"requestheader-extra-headers-prefix", list("X-Remote-Extra-")}};
  Result<Json> existing = store_.Get("configmaps", "kube-system", kAuthConfigMap);
  if (existing.ok()) {
    Json updated = *existing;
    updated["data"] = data;
    KUOTA_RETURN_IF_ERROR(store_.Update("configmaps", updated).status());
    StartAvailability();
    return Status::Ok();
  }
  if (existing.status().code() != StatusCode::kNotFound) return existing.status();
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", kAuthConfigMap}, {"namespace", "kube-system"}}},
             {"data", data}};
  KUOTA_RETURN_IF_ERROR(store_.Create("configmaps", cm).status());
  StartAvailability();
  return Status::Ok();
}

void Aggregator::StartAvailability() {
  if (options_.availability_interval_ms <= 0) return;
  availability_ = std::thread([this] {
    store::MutexLock lock(&mu_);
    while (!stopping_) {
      lock.Unlock();
      CheckAvailability();
      lock.Lock();
      if (stopping_) break;
      wake_.WaitUntil(std::chrono::steady_clock::now() +
                      std::chrono::milliseconds(options_.availability_interval_ms));
    }
  });
}

bool Aggregator::Handles(std::string_view path) const {
  std::vector<std::string> p = SplitPath(path);
  return p.size() >= 2 && p[0] == "apis" && BuiltInGroups().count(p[1]) == 0;
}

HttpReply Aggregator::Serve(const HttpRequest& request) const {
  std::vector<std::string> p = SplitPath(request.path);
  const std::string& group = p[1];
  if (p.size() == 2) {
    if (request.method != "GET" && request.method != "HEAD") {
      return MethodNotAllowedError().ToReply();
    }
    Result<store::ListResult> all = store_.List(kApiServicesKey, store::ListOptions{});
    if (!all.ok()) return InternalError(all.status().message()).ToReply();
    std::vector<Json> services = ServicesOfGroup(all->items, group);
    if (services.empty()) return UnknownPathError().ToReply();
    Json doc = GroupEntry(group, services);
    doc["kind"] = "APIGroup";
    doc["apiVersion"] = "v1";
    return JsonReply(doc);
  }
  Result<Json> api_service = store_.Get(kApiServicesKey, "", p[2] + "." + group);
  if (!api_service.ok()) {
    if (api_service.status().code() == StatusCode::kNotFound) return UnknownPathError().ToReply();
    return InternalError(api_service.status().message()).ToReply();
  }
  const Json spec = api_service->value("spec", Json::object());
  if (!spec.contains("service") || !spec["service"].is_object()) {
    // A local APIService names a group this server would serve itself.
    return UnknownPathError().ToReply();
  }
  std::string target = request.path;
  bool first = true;
  for (const auto& [key, value] : request.query) {
    target += (first ? "?" : "&") + QueryEscape(key) + "=" + QueryEscape(value);
    first = false;
  }
  Result<ProxiedReply> proxied = CallAggregated(store_, client_, options_.timeout_seconds,
                                                *api_service, request.method, target, &request);
  if (!proxied.ok()) {
    const Status& st = proxied.status();
    // Resolution failures are logged by kube-apiserver and answered "service
    // unavailable"; transport errors are answered with their text.
    if (st.message().rfind("error trying to reach service", 0) == 0) {
      return AggregatorText(503, st.message());
    }
    return AggregatorText(503, "service unavailable");
  }
  HttpReply reply;
  reply.status = proxied->status;
  reply.content_type = proxied->content_type.empty() ? "application/json" : proxied->content_type;
  reply.body = std::move(proxied->body);
  return reply;
}

void Aggregator::AmendDiscovery(const HttpRequest& request, HttpReply& reply) const {
  if (request.path != "/apis" || reply.status != 200 || reply.stream) return;
  Json doc = Json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return;
  Result<store::ListResult> all = store_.List(kApiServicesKey, store::ListOptions{});
  if (!all.ok()) return;
  // Registered groups, highest groupPriorityMinimum first (then by name).
  std::map<std::string, int64_t> priority;
  for (const Json& s : all->items) {
    if (!s.value("spec", Json::object()).contains("service")) continue;
    const std::string g = StringField(s, {"spec", "group"});
    if (g.empty() || BuiltInGroups().count(g)) continue;
    int64_t prio = IntOr(s["spec"], "groupPriorityMinimum", 0);
    priority[g] = std::max(priority.count(g) ? priority[g] : 0, prio);
  }
  std::vector<std::string> groups;
  for (const auto& [g, prio] : priority) groups.push_back(g);
  std::stable_sort(groups.begin(), groups.end(), [&](const std::string& a, const std::string& b) {
    return priority[a] > priority[b];
  });
  // What the server lists itself for groups it does not serve (the
  // visibility group, which only a scheduler attached to it answers) goes.
  auto own = [&](const Json& entry, const Json& name) {
    const std::string n = name.is_string() ? name.get<std::string>() : "";
    return BuiltInGroups().count(n) == 0 && entry.is_object();
  };
  if (doc.value("kind", "") == "APIGroupList" && doc["groups"].is_array()) {
    Json kept = Json::array();
    for (const Json& g : doc["groups"]) {
      if (!own(g, g.value("name", Json()))) kept.push_back(g);
    }
    for (const std::string& g : groups)
      kept.push_back(GroupEntry(g, ServicesOfGroup(all->items, g)));
    doc["groups"] = kept;
  } else if (doc.value("kind", "") == "APIGroupDiscoveryList" && doc["items"].is_array()) {
    Json kept = Json::array();
    for (const Json& item : doc["items"]) {
      if (!own(item, item.value("metadata", Json::object()).value("name", Json()))) {
        kept.push_back(item);
      }
    }
    for (const std::string& g : groups) {
      Json versions = Json::array();
      for (const Json& s : ServicesOfGroup(all->items, g)) {
        const std::string v = StringField(s, {"spec", "version"});
        Result<ProxiedReply> list =
            CallAggregated(store_, client_, 5, s, "GET", "/apis/" + g + "/" + v, nullptr);
        Json resources = Json::array();
        bool fresh = list.ok() && list->status == 200;
        if (fresh) {
          Json parsed = Json::parse(list->body, nullptr, /*allow_exceptions=*/false);
          fresh = parsed.is_object();
          if (fresh) resources = AggregatedResources(parsed, g, v);
        }
        versions.push_back(
            {{"version", v}, {"resources", resources}, {"freshness", fresh ? "Current" : "Stale"}});
      }
      kept.push_back(
          {{"metadata", {{"name", g}, {"creationTimestamp", nullptr}}}, {"versions", versions}});
    }
    doc["items"] = kept;
  } else {
    return;
  }
  reply.body = doc.dump();
}

}  // namespace kuota::server
