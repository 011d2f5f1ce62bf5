#include "auth/rbac_authorizer.h"

#include <chrono>
#include <mutex>

#include "auth/rbac_rules.h"

namespace kuota::auth {
namespace {

using Json = nlohmann::json;

const char* const kStoreKeys[] = {
    "roles.rbac.authorization.k8s.io",
    "clusterroles.rbac.authorization.k8s.io",
    "rolebindings.rbac.authorization.k8s.io",
    "clusterrolebindings.rbac.authorization.k8s.io",
};

std::string KeyOf(const Json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "/";
  return StringAt(*meta, "namespace") + "/" + StringAt(*meta, "name");
}

}  // namespace

RbacAuthorizer::RbacAuthorizer(store::ObjectStore& store) : store_(store) {}

RbacAuthorizer::~RbacAuthorizer() { Stop(); }

Status RbacAuthorizer::Load(Kind kind, int64_t* resource_version) {
  auto list = store_.List(kStoreKeys[kind], {});
  if (!list.ok()) return list.status();
  std::map<std::string, Json> objects;
  for (Json& item : list->items) {
    std::string key = KeyOf(item);
    objects[key] = std::move(item);
  }
  *resource_version = list->resource_version;
  std::unique_lock lock(mu_);
  objects_[kind] = std::move(objects);
  return Status::Ok();
}

Status RbacAuthorizer::Start() {
  std::vector<int64_t> versions(kKinds);
  for (int k = 0; k < kKinds; ++k) {
    KUOTA_RETURN_IF_ERROR(Load(static_cast<Kind>(k), &versions[static_cast<size_t>(k)])
                              .WithContext(std::string("reading ") + kStoreKeys[k]));
  }
  for (int k = 0; k < kKinds; ++k) {
    int64_t rv = versions[static_cast<size_t>(k)];
    threads_.emplace_back([this, k, rv] { WatchLoop(static_cast<Kind>(k), rv); });
  }
  return Status::Ok();
}

void RbacAuthorizer::Stop() {
  stopping_ = true;
  {
    std::lock_guard lock(watchers_mu_);
    for (auto& w : watchers_) {
      if (w) w->Stop();
    }
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void RbacAuthorizer::WatchLoop(Kind kind, int64_t rv) {
  using std::chrono::milliseconds;
  while (!stopping_) {
    // Watches from the version listed, so nothing between the list and the
    // watch is missed; a watch that ends (or a version too old) lists again.
    auto watch = store_.Watch(kStoreKeys[kind], "", rv);
    if (!watch.ok()) {
      std::this_thread::sleep_for(milliseconds(200));
      if (!Load(kind, &rv).ok()) std::this_thread::sleep_for(milliseconds(300));
      continue;
    }
    std::shared_ptr<store::Watcher> w(std::move(*watch));
    {
      std::lock_guard lock(watchers_mu_);
      watchers_[kind] = w;
    }
    store::WatchEvent event;
    while (!stopping_ && w->Alive()) {
      if (!w->Next(&event, milliseconds(1000))) continue;
      if (event.type == store::EventType::kBookmark) continue;
      rv = event.resource_version;
      std::string key = KeyOf(event.object);
      std::unique_lock lock(mu_);
      if (event.type == store::EventType::kDeleted) {
        objects_[kind].erase(key);
      } else {
        objects_[kind][key] = std::move(event.object);
      }
    }
    if (!stopping_ && !Load(kind, &rv).ok()) std::this_thread::sleep_for(milliseconds(300));
  }
}

const Json* RbacAuthorizer::RoleRules(const Json& binding, const std::string& ns) const {
  auto ref = binding.find("roleRef");
  if (ref == binding.end() || !ref->is_object()) return nullptr;
  const std::string kind = StringAt(*ref, "kind");
  const std::string name = StringAt(*ref, "name");
  const std::map<std::string, Json>* roles = nullptr;
  std::string key;
  if (kind == "ClusterRole") {
    roles = &objects_[kClusterRole];
    key = "/" + name;
  } else if (kind == "Role" && !ns.empty()) {
    roles = &objects_[kRole];
    key = ns + "/" + name;
  } else {
    return nullptr;
  }
  auto it = roles->find(key);
  if (it == roles->end()) return nullptr;
  auto rules = it->second.find("rules");
  return rules != it->second.end() && rules->is_array() ? &*rules : nullptr;
}

template <typename Visit>
void RbacAuthorizer::ForEachBinding(const UserInfo& user, const std::string& ns,
                                    Visit visit) const {
  auto subjects_match = [&user](const Json& binding, const std::string& binding_ns) {
    auto subjects = binding.find("subjects");
    if (subjects == binding.end() || !subjects->is_array()) return false;
    for (const Json& s : *subjects) {
      if (SubjectMatches(s, user, binding_ns)) return true;
    }
    return false;
  };
  for (const auto& [key, binding] : objects_[kClusterRoleBinding]) {
    if (!subjects_match(binding, "")) continue;
    if (const Json* rules = RoleRules(binding, "")) {
      if (visit("ClusterRoleBinding", key.substr(1), binding, *rules)) return;
    }
  }
  if (ns.empty()) return;
  const std::string prefix = ns + "/";
  const auto& bindings = objects_[kRoleBinding];
  for (auto it = bindings.lower_bound(prefix);
       it != bindings.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    if (!subjects_match(it->second, ns)) continue;
    if (const Json* rules = RoleRules(it->second, ns)) {
      if (visit("RoleBinding", it->first, it->second, *rules)) return;
    }
  }
}

Decision RbacAuthorizer::Authorize(const UserInfo& user, const RequestInfo& request) const {
  if (user.IsAdmin()) return {true, std::string("member of ") + kGroupMasters};
  Decision d;
  std::shared_lock lock(mu_);
  ForEachBinding(
      user, request.ns,
      [&](const char* kind, const std::string& name, const Json& binding, const Json& rules) {
        for (const Json& rule : rules) {
          if (!RuleAllows(rule, request)) continue;
          d.allowed = true;
          d.reason = std::string("RBAC: allowed by ") + kind + " \"" + name + "\" of " +
                     StringAt(binding["roleRef"], "kind") + " \"" +
                     StringAt(binding["roleRef"], "name") + "\"";
          return true;
        }
        return false;
      });
  return d;
}

std::vector<Json> RbacAuthorizer::RulesFor(const UserInfo& user, const std::string& ns) const {
  std::vector<Json> out;
  if (user.IsAdmin()) {
    out.push_back({{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"*"}}});
    out.push_back({{"nonResourceURLs", {"*"}}, {"verbs", {"*"}}});
    return out;
  }
  std::shared_lock lock(mu_);
  ForEachBinding(user, ns, [&](const char*, const std::string&, const Json&, const Json& rules) {
    for (const Json& rule : rules) out.push_back(rule);
    return false;
  });
  return out;
}

}  // namespace kuota::auth
