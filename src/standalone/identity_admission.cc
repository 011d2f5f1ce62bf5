#include "standalone/identity_admission.h"

#include <algorithm>

#include "jobctl/submitter.h"
#include "jobs/registry.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

std::string DescribeIdentity(const Identity& who) {
  std::string s = "uid " + std::to_string(who.uid);
  if (!who.user_name.empty()) s += " (" + who.user_name + ")";
  if (who.groups && !who.groups->empty()) s += ", gid " + std::to_string(who.groups->front());
  return s;
}

// The integer a securityContext field holds, as text for the message.
std::string ShownValue(const Json& value) { return value.dump(); }

bool InIdentityGroups(const Identity& who, const Json& value) {
  if (!who.groups || !value.is_number_integer()) return false;
  const int64_t gid = value.get<int64_t>();
  return std::any_of(who.groups->begin(), who.groups->end(),
                     [gid](uint32_t g) { return static_cast<int64_t>(g) == gid; });
}

// One securityContext (a pod's or a container's) at `path`.
void CheckSecurityContext(const Json& ctx, const std::string& path, const Identity& who,
                          std::vector<std::string>& refusals) {
  const auto field = [&](const char* name) -> const Json* {
    auto it = ctx.find(name);
    return it == ctx.end() || it->is_null() ? nullptr : &*it;
  };
  if (const Json* v = field("runAsUser")) {
    if (!v->is_number_integer() || v->get<int64_t>() != static_cast<int64_t>(who.uid)) {
      refusals.push_back(path + ".runAsUser: asks to run as uid " + ShownValue(*v));
    }
  }
  for (const char* name : {"runAsGroup", "fsGroup"}) {
    if (const Json* v = field(name); v != nullptr && !InIdentityGroups(who, *v)) {
      refusals.push_back(path + "." + name + ": asks for gid " + ShownValue(*v) +
                         (who.groups ? ", a group the submitter is not in"
                                     : " (the submitter's groups are not known here)"));
    }
  }
  if (const Json* v = field("supplementalGroups"); v != nullptr && v->is_array()) {
    for (size_t i = 0; i < v->size(); ++i) {
      if (!InIdentityGroups(who, (*v)[i])) {
        refusals.push_back(path + ".supplementalGroups[" + std::to_string(i) + "]: asks for gid " +
                           ShownValue((*v)[i]) + ", a group the submitter is not in");
      }
    }
  }
  if (who.uid != 0) {
    if (const Json* v = field("privileged"); v != nullptr && *v == true) {
      refusals.push_back(path + ".privileged: true asks for root's privileges");
    }
    if (const Json* v = field("runAsNonRoot"); v != nullptr && *v == false) {
      refusals.push_back(path + ".runAsNonRoot: false asks to be allowed to run as root");
    }
  }
}

// Every securityContext object below `node`, wherever a pod spec sits in it
// (a pod's spec, a Job's spec.template.spec, a JobSet's replicated jobs...).
void WalkSecurityContexts(const Json& node, const std::string& path, const Identity& who,
                          std::vector<std::string>& refusals) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      const std::string child = path.empty() ? key : path + "." + key;
      if (key == "securityContext" && value.is_object()) {
        CheckSecurityContext(value, child, who, refusals);
      } else {
        WalkSecurityContexts(value, child, who, refusals);
      }
    }
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) {
      WalkSecurityContexts(node[i], path + "[" + std::to_string(i) + "]", who, refusals);
    }
  }
}

}  // namespace

Status CheckRequestedIdentity(const Json& object, const Identity& who) {
  auto spec = object.find("spec");
  if (spec == object.end()) return Status::Ok();
  std::vector<std::string> refusals;
  WalkSecurityContexts(*spec, "spec", who, refusals);
  if (refusals.empty()) return Status::Ok();
  std::string message;
  for (const std::string& r : refusals) message += (message.empty() ? "" : "; ") + r;
  return Status::Forbidden(message + ": kuotad runs its processes only as the user who submitted " +
                           "it, " + DescribeIdentity(who) + ", and never as another identity");
}

Identity IdentityOf(const Json& object, uint32_t daemon_uid, const UserLookup& look_up) {
  Identity who;
  who.uid = daemon_uid;
  Result<std::optional<uint32_t>> recorded = jobctl::SubmitterUid(object);
  if (recorded.ok() && recorded->has_value()) who.uid = **recorded;
  if (look_up) {
    if (Result<runtime::RunAs> user = look_up(who.uid); user.ok()) {
      who.user_name = user->user_name;
      std::vector<uint32_t> groups = {user->gid};
      for (uint32_t g : user->groups) {
        if (g != user->gid) groups.push_back(g);
      }
      who.groups = std::move(groups);
    }
  }
  return who;
}

Status IdentityAdmission::Admit(const server::ResourceInfo& resource, Operation op,
                                const Json* old_object, Json* object) {
  Status st = inner_.Admit(resource, op, old_object, object);
  if (!st.ok() || op == Operation::kDelete || object == nullptr) return st;
  const std::string key = resource.StoreKey();
  if (key != "pods" && jobs::FindJobKind(key) == nullptr) return st;
  return CheckRequestedIdentity(*object, IdentityOf(*object, daemon_uid_, look_up_));
}

}  // namespace kuota::standalone
