// Identity admission: on one machine kuotad runs a pod's processes as the
// user who submitted it (run_as_policy.h), so a pod or job whose
// securityContext asks for another identity — runAsUser, runAsGroup,
// fsGroup or supplementalGroups naming another uid or a group the submitter
// is not in, `privileged: true` or `runAsNonRoot: false` from a non-root
// submitter — is refused when it is created or updated (403 Forbidden, naming
// the field and the identity it would get) instead of being run silently as
// the submitter. Asking for one's own uid and groups stays allowed.
// CheckRequestedIdentity is pure; IdentityAdmission is thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/admission_hook.h"
#include "standalone/run_as_policy.h"

namespace kuota::standalone {

// Who an object's processes would run as.
struct Identity {
  uint32_t uid = 0;
  std::string user_name;  // empty when the system does not know the uid
  // The user's groups (primary first); nullopt when they could not be looked
  // up, and then no group may be asked for.
  std::optional<std::vector<uint32_t>> groups;
};

// Ok when every securityContext under `object`'s spec (the pod's, its
// containers', and those of every pod template a job holds) asks for nothing
// but `who`; else Forbidden with one "field.path: what it asks" clause per
// field that asks for more, and the identity the processes would run as.
Status CheckRequestedIdentity(const nlohmann::json& object, const Identity& who);

// The identity `object` would run as: its submitter (kuota.dev/submitter-uid,
// which the API server stamps before admission) or, with no stamp (kuotad
// without authentication), kuotad's own user. `look_up` gives the groups.
Identity IdentityOf(const nlohmann::json& object, uint32_t daemon_uid, const UserLookup& look_up);

// An AdmissionHook in front of `inner`: runs it, then refuses creates and
// updates of pods and job kinds that CheckRequestedIdentity refuses.
class IdentityAdmission final : public server::AdmissionHook {
 public:
  IdentityAdmission(server::AdmissionHook& inner, uint32_t daemon_uid, UserLookup look_up)
      : inner_(inner), daemon_uid_(daemon_uid), look_up_(std::move(look_up)) {}
  Status Admit(const server::ResourceInfo& resource, Operation op, const nlohmann::json* old_object,
               nlohmann::json* object) override;
  std::vector<std::string> Warnings(const server::ResourceInfo& resource,
                                    const nlohmann::json& object) override {
    return inner_.Warnings(resource, object);
  }

 private:
  server::AdmissionHook& inner_;
  const uint32_t daemon_uid_;
  const UserLookup look_up_;
};

}  // namespace kuota::standalone
