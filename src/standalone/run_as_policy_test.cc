// Run-as policy: which user a pod runs as, or why it cannot run, for each
// combination of the pod's submitter annotation, kuotad's own uid and what
// the system knows of the user. A table of named cases over a fake lookup.
#include "standalone/run_as_policy.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "jobctl/submitter.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

// A pod; `uid` is its kuota.dev/submitter-uid annotation (nullopt: none),
// `raw` replaces the annotation with any JSON value.
Json Pod(std::optional<std::string> uid, std::optional<Json> raw = std::nullopt) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"namespace", "team-a"}}}};
  if (uid) pod["metadata"]["annotations"][jobctl::kSubmitterUidAnnotation] = *uid;
  if (raw) pod["metadata"]["annotations"][jobctl::kSubmitterUidAnnotation] = *raw;
  return pod;
}

// The system's users: root, alice (1001) and kuota (1000); 1002 cannot be
// looked up (a broken directory service); others are unknown.
Result<runtime::RunAs> FakeLookUp(uint32_t uid) {
  switch (uid) {
    case 0:
      return runtime::RunAs{0, 0, {0}, "/root", "root"};
    case 1000:
      return runtime::RunAs{1000, 1000, {1000}, "/home/kuota", "kuota"};
    case 1001:
      return runtime::RunAs{1001, 1001, {1001, 27}, "/home/alice", "alice"};
    case 1002:
      return Status::Unavailable("looking up uid 1002: Connection refused");
    default:
      return Status::NotFound("no passwd entry for uid " + std::to_string(uid));
  }
}

struct Case {
  std::string name;
  Json pod;
  bool require_submitter;
  uint32_t daemon_uid;
  // Allowed: the uid it runs as (nullopt: as kuotad, nothing changed).
  // Refused: the reason and the message.
  std::optional<uint32_t> run_as_uid;
  std::string reason;
  std::string message;
};

class RunAsPolicyTest : public ::testing::TestWithParam<Case> {};

TEST_P(RunAsPolicyTest, Decides) {
  const Case& c = GetParam();
  int lookups = 0;
  UserLookup look_up = [&](uint32_t uid) {
    ++lookups;
    return FakeLookUp(uid);
  };
  RunAsDecision d = DecideRunAs(c.pod, RunAsPolicy{c.require_submitter, c.daemon_uid}, look_up);
  EXPECT_LE(lookups, 1);
  if (!c.require_submitter) {
    EXPECT_EQ(lookups, 0);
  }
  EXPECT_EQ(d.reason, c.reason);
  EXPECT_EQ(d.message, c.message);
  EXPECT_EQ(d.allowed(), c.reason.empty());
  if (c.run_as_uid) {
    ASSERT_TRUE(d.run_as.has_value());
    EXPECT_EQ(d.run_as->uid, *c.run_as_uid);
    Result<runtime::RunAs> want = FakeLookUp(*c.run_as_uid);
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(d.run_as->gid, want->gid);
    EXPECT_EQ(d.run_as->groups, want->groups);
    EXPECT_EQ(d.run_as->home, want->home);
    EXPECT_EQ(d.run_as->user_name, want->user_name);
  } else {
    EXPECT_FALSE(d.run_as.has_value());
  }
}

const char kWhy[] = "kuotad runs a pod's processes only as the user who submitted it";

INSTANTIATE_TEST_SUITE_P(
    Table, RunAsPolicyTest,
    ::testing::Values(
        // --insecure-http: everything runs as kuotad, whatever the pod says.
        Case{"InsecureRunsAsKuotad", Pod("1001"), false, 0, std::nullopt, "", ""},
        Case{"InsecureIgnoresMissingAnnotation", Pod(std::nullopt), false, 1000, std::nullopt, "",
             ""},
        Case{"InsecureIgnoresMalformedAnnotation", Pod("x"), false, 0, std::nullopt, "", ""},
        // Root kuotad: each pod as its submitter.
        Case{"RootRunsAliceAsAlice", Pod("1001"), true, 0, 1001u, "", ""},
        Case{"RootRunsRootOnlyWhenRootSubmitted", Pod("0"), true, 0, 0u, "", ""},
        Case{"MissingAnnotation", Pod(std::nullopt), true, 0, std::nullopt, "NoSubmitter",
             std::string("the pod has no kuota.dev/submitter-uid annotation: ") + kWhy +
                 " (the API server records it on every object it creates, and kuotad's "
                 "controllers copy it from the job)"},
        Case{"MalformedAnnotation", Pod("-1"), true, 0, std::nullopt, "NoSubmitter",
             std::string("metadata.annotations[kuota.dev/submitter-uid]: Invalid value: \"-1\": "
                         "must be a decimal user id (0 to 4294967294); ") +
                 kWhy},
        Case{"AnnotationNotAString", Pod(std::nullopt, Json(1001)), true, 0, std::nullopt,
             "NoSubmitter",
             std::string("metadata.annotations[kuota.dev/submitter-uid]: Invalid value: 1001: "
                         "must be a decimal user id (0 to 4294967294); ") +
                 kWhy},
        Case{"EmptyAnnotation", Pod(""), true, 0, std::nullopt, "NoSubmitter",
             std::string("metadata.annotations[kuota.dev/submitter-uid]: Invalid value: \"\": "
                         "must be a decimal user id (0 to 4294967294); ") +
                 kWhy},
        Case{"UnknownUser", Pod("4000"), true, 0, std::nullopt, "UnknownSubmitter",
             "the pod's submitter, uid 4000, has no passwd entry on this machine (no passwd "
             "entry for uid 4000): kuotad cannot run processes as a user the system does not "
             "know"},
        Case{"LookupFails", Pod("1002"), true, 0, std::nullopt, "SubmitterLookupFailed",
             "cannot look up the pod's submitter, uid 1002: looking up uid 1002: Connection "
             "refused"},
        // kuotad as uid 1000: only its own uid's pods.
        Case{"NonRootRunsItsOwnUid", Pod("1000"), true, 1000, 1000u, "", ""},
        Case{"NonRootCannotRunAlice", Pod("1001"), true, 1000, std::nullopt, "CannotRunAsSubmitter",
             "kuotad runs as uid 1000 and cannot run processes as uid 1001 (alice); start "
             "kuotad as root to run other users' jobs"},
        Case{"NonRootCannotRunRoot", Pod("0"), true, 1000, std::nullopt, "CannotRunAsSubmitter",
             "kuotad runs as uid 1000 and cannot run processes as uid 0 (root); start kuotad "
             "as root to run other users' jobs"},
        Case{"NonRootCannotRunAnUnknownUid", Pod("4000"), true, 1000, std::nullopt,
             "CannotRunAsSubmitter",
             "kuotad runs as uid 1000 and cannot run processes as uid 4000; start kuotad as "
             "root to run other users' jobs"},
        // kuotad's own uid without a passwd entry (a container's arbitrary
        // uid): nothing to change, it runs as kuotad.
        Case{"OwnUnknownUidRunsAsKuotad", Pod("4000"), true, 4000, std::nullopt, "", ""}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(RunAsPolicyNameTest, TheSubmittedByNameFillsInForAUserTheSystemDoesNotKnow) {
  Json pod = Pod("4000");
  pod["metadata"]["annotations"][jobctl::kSubmittedByAnnotation] = "bob";
  RunAsDecision d = DecideRunAs(pod, RunAsPolicy{true, 1000}, FakeLookUp);
  EXPECT_EQ(d.reason, "CannotRunAsSubmitter");
  EXPECT_EQ(d.message,
            "kuotad runs as uid 1000 and cannot run processes as uid 4000 (bob); start kuotad as "
            "root to run other users' jobs");
}

}  // namespace
}  // namespace kuota::standalone
