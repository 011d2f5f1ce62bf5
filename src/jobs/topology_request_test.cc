// Tests of the topology request helper: which annotations make which
// topologyRequest (Kueue's PodSetTopologyRequest builder), and Kueue's
// webhook messages, with their field paths, for every invalid combination.
#include "jobs/topology_request.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jobs/job_fields.h"

namespace kuota::jobs {

using Json = nlohmann::json;

namespace {

constexpr const char* kMeta = "spec.template.metadata";
constexpr const char* kAnn = "spec.template.metadata.annotations";

Json MetaWith(const Json& annotations) { return {{"annotations", annotations}}; }

std::string Message(const Status& st) { return st.ok() ? "OK" : st.message(); }

Json Built(const Json& annotations, const PodSetIndexLabels& labels) {
  Result<Json> r = BuildTopologyRequest(MetaWith(annotations), labels);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : Json("error");
}

const PodSetIndexLabels kJobLabels{.pod_index_label = kJobCompletionIndexLabel};

TEST(TopologyRequestBuild, NothingAskedAndNoIndexLabelIsNoRequest) {
  EXPECT_TRUE(Built(Json::object(), {}).is_null());
  EXPECT_TRUE(BuildTopologyRequest(Json(), {}).value().is_null());
  EXPECT_TRUE(Built({{"other", "x"}}, {}).is_null());
  // A slice level without its size is no slice layer.
  EXPECT_TRUE(Built({{kPodSetSliceRequiredTopologyAnnotation, "rack"}}, {}).is_null());
}

TEST(TopologyRequestBuild, AnIndexLabelAloneMakesARequest) {
  EXPECT_EQ(Built(Json::object(), kJobLabels),
            Json({{"podIndexLabel", "batch.kubernetes.io/job-completion-index"}}));
  EXPECT_EQ(BuildTopologyRequest(Json(), kJobLabels).value(),
            Json({{"podIndexLabel", "batch.kubernetes.io/job-completion-index"}}));
}

TEST(TopologyRequestBuild, RequiredPreferredOrUnconstrained) {
  EXPECT_EQ(Built({{kPodSetRequiredTopologyAnnotation, "cloud.com/rack"}}, kJobLabels),
            Json({{"required", "cloud.com/rack"},
                  {"podIndexLabel", "batch.kubernetes.io/job-completion-index"}}));
  EXPECT_EQ(Built({{kPodSetPreferredTopologyAnnotation, "cloud.com/block"}}, {}),
            Json({{"preferred", "cloud.com/block"}}));
  EXPECT_EQ(Built({{kPodSetUnconstrainedTopologyAnnotation, "true"}}, {}),
            Json({{"unconstrained", true}}));
  // Go's strconv.ParseBool spellings.
  EXPECT_EQ(Built({{kPodSetUnconstrainedTopologyAnnotation, "F"}}, {}),
            Json({{"unconstrained", false}}));
  EXPECT_EQ(Built({{kPodSetUnconstrainedTopologyAnnotation, "TRUE"}}, {}),
            Json({{"unconstrained", true}}));
  // Required wins over preferred, preferred over unconstrained (the webhook
  // refuses both together).
  EXPECT_EQ(Built({{kPodSetRequiredTopologyAnnotation, "r"},
                   {kPodSetPreferredTopologyAnnotation, "p"},
                   {kPodSetUnconstrainedTopologyAnnotation, "true"}},
                  {}),
            Json({{"required", "r"}}));
  EXPECT_EQ(Built({{kPodSetPreferredTopologyAnnotation, "p"},
                   {kPodSetUnconstrainedTopologyAnnotation, "true"}},
                  {}),
            Json({{"preferred", "p"}}));
  Result<Json> bad = BuildTopologyRequest(
      MetaWith({{kPodSetUnconstrainedTopologyAnnotation, "maybe"}}), kJobLabels);
  EXPECT_FALSE(bad.ok());
}

TEST(TopologyRequestBuild, SlicesAndGroups) {
  EXPECT_EQ(Built({{kPodSetRequiredTopologyAnnotation, "block"},
                   {kPodSetSliceRequiredTopologyAnnotation, "rack"},
                   {kPodSetSliceSizeAnnotation, "4"}},
                  kJobLabels),
            Json({{"required", "block"},
                  {"podSetSliceRequiredTopology", "rack"},
                  {"podSetSliceSize", 4},
                  {"podIndexLabel", "batch.kubernetes.io/job-completion-index"}}));
  // A slice layer alone is a request too.
  EXPECT_EQ(
      Built({{kPodSetSliceRequiredTopologyAnnotation, "rack"}, {kPodSetSliceSizeAnnotation, "2"}},
            {}),
      Json({{"podSetSliceRequiredTopology", "rack"}, {"podSetSliceSize", 2}}));
  // The group name only with a required or preferred level.
  EXPECT_EQ(
      Built({{kPodSetPreferredTopologyAnnotation, "rack"}, {kPodSetGroupNameAnnotation, "g"}}, {}),
      Json({{"preferred", "rack"}, {"podSetGroupName", "g"}}));
  EXPECT_EQ(
      Built({{kPodSetUnconstrainedTopologyAnnotation, "true"}, {kPodSetGroupNameAnnotation, "g"}},
            {}),
      Json({{"unconstrained", true}}));
  // Multi-layer slices: a request, but a v1beta1 Workload has no field for
  // the layers (Kueue's conversion drops them too).
  EXPECT_EQ(Built({{kPodSetSliceRequiredTopologyConstraintsAnnotation,
                    R"([{"topology":"rack","size":2}])"}},
                  {}),
            Json::object());
}

TEST(TopologyRequestBuild, SubGroupsAsJobSetNumbersThem) {
  const PodSetIndexLabels labels{kJobCompletionIndexLabel, kJobSetJobIndexLabel, 3};
  EXPECT_EQ(Built({{kPodSetRequiredTopologyAnnotation, "rack"}}, labels),
            Json({{"required", "rack"},
                  {"podIndexLabel", "batch.kubernetes.io/job-completion-index"},
                  {"subGroupIndexLabel", "jobset.sigs.k8s.io/job-index"},
                  {"subGroupCount", 3}}));
}

TEST(TopologyRequestValidate, AcceptsWhatKueueAccepts) {
  for (const Json& a :
       {Json::object(), Json({{kPodSetRequiredTopologyAnnotation, "cloud.provider.com/rack"}}),
        Json({{kPodSetPreferredTopologyAnnotation, "kubernetes.io/hostname"},
              {kPodSetGroupNameAnnotation, "leader-workers"}}),
        Json({{kPodSetUnconstrainedTopologyAnnotation, "false"}}),
        Json({{kPodSetRequiredTopologyAnnotation, "block"},
              {kPodSetSliceRequiredTopologyAnnotation, "rack"},
              {kPodSetSliceSizeAnnotation, "+2"}}),
        Json({{kPodSetSliceRequiredTopologyConstraintsAnnotation,
               R"([{"topology":"block","size":8},{"topology":"rack","size":4}])"}})}) {
    EXPECT_EQ(Message(ValidateTopologyAnnotations(MetaWith(a), kMeta)), "OK") << a.dump();
  }
  EXPECT_EQ(Message(ValidateTopologyAnnotations(Json(), kMeta)), "OK");
}

TEST(TopologyRequestValidate, LevelsAreLabelKeys) {
  for (const std::string& ok : std::vector<std::string>{
           "kubernetes.io/hostname", "cloud.provider.com/topology-block", "rack", "A_b.c-1",
           std::string(63, 'x'), "a." + std::string(70, 'b') + "/rack"}) {
    EXPECT_EQ(CheckQualifiedName(ok), "") << ok;
  }
  EXPECT_EQ(CheckQualifiedName("a/b/c"),
            "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character, with an optional DNS subdomain prefix "
            "and '/' (e.g. 'example.com/MyName')");
  EXPECT_EQ(CheckQualifiedName("Example.com/rack")
                .rfind("prefix part a lowercase RFC 1123 "
                       "subdomain must consist of",
                       0),
            0u);
  EXPECT_EQ(CheckQualifiedName(std::string(250, 'a') + ".com/rack"),
            "prefix part must be no more than 253 characters");
  EXPECT_EQ(CheckQualifiedName("x/"), "name part must be non-empty");
  EXPECT_EQ(CheckQualifiedName(std::string(64, 'x')),
            "name part must be no more than 63 characters");
  EXPECT_EQ(CheckQualifiedName("rack-").rfind("name part must consist of", 0), 0u);
}

struct RefusedCase {
  Json annotations;
  std::string want;
};

TEST(TopologyRequestValidate, RefusesWithKueuesMessageAndPath) {
  const std::string req = kPodSetRequiredTopologyAnnotation;
  const std::string pref = kPodSetPreferredTopologyAnnotation;
  const std::string unc = kPodSetUnconstrainedTopologyAnnotation;
  const std::string slice = kPodSetSliceRequiredTopologyAnnotation;
  const std::string size = kPodSetSliceSizeAnnotation;
  const std::string group = kPodSetGroupNameAnnotation;
  const std::string layers = kPodSetSliceRequiredTopologyConstraintsAnnotation;
  const std::string ann = kAnn;
  const std::vector<RefusedCase> cases = {
      {{{req, "rack"}, {pref, "rack"}},
       ann + ": Invalid value: must not contain more than one topology annotation: "
             "[\"kueue.x-k8s.io/podset-required-topology\", "
             "\"kueue.x-k8s.io/podset-preferred-topology\", "
             "\"kueue.x-k8s.io/podset-unconstrained-topology\"]"},
      {{{pref, "rack"}, {unc, "true"}},
       ann + ": Invalid value: must not contain more than one topology annotation: "
             "[\"kueue.x-k8s.io/podset-required-topology\", "
             "\"kueue.x-k8s.io/podset-preferred-topology\", "
             "\"kueue.x-k8s.io/podset-unconstrained-topology\"]"},
      {{{req, "not a label"}},
       ann + "[" + req +
           "]: Invalid value: \"not a label\": name part must consist of alphanumeric "
           "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
           "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
      {{{pref, "/rack"}},
       ann + "[" + pref + "]: Invalid value: \"/rack\": prefix part must be non-empty"},
      {{{slice, ""}, {size, "1"}},
       ann + "[" + slice + "]: Invalid value: \"\": name part must be non-empty"},
      {{{req, "rack"}, {group, "12"}},
       ann + "[" + group + "]: Invalid value: \"12\": must not be a number"},
      {{{req, "block"}, {group, "g"}, {slice, "rack"}, {size, "2"}},
       ann + "[" + group +
           "]: Forbidden: may not be set when 'kueue.x-k8s.io/podset-slice-size' is specified"},
      {{{req, "block"}, {group, "g"}, {slice, "rack"}},
       ann + "[" + group +
           "]: Forbidden: may not be set when 'kueue.x-k8s.io/podset-slice-required-topology' is "
           "specified"},
      {{{unc, "true"}, {group, "g"}},
       ann + "[" + group +
           "]: Forbidden: may not be set when neither 'kueue.x-k8s.io/podset-preferred-topology' "
           "nor 'kueue.x-k8s.io/podset-required-topology' is specified"},
      {{{unc, "yes"}}, ann + "[" + unc + "]: Invalid value: \"yes\": must be a boolean value"},
      {{{slice, "rack"}, {size, "two"}},
       ann + "[" + size + "]: Invalid value: \"two\": must be a numeric value"},
      {{{slice, "rack"}, {size, "2147483648"}},
       ann + "[" + size + "]: Invalid value: \"2147483648\": must be a numeric value"},
      {{{slice, "rack"}, {size, "0"}},
       ann + "[" + size + "]: Invalid value: \"0\": must be greater than or equal to 1"},
      {{{slice, "rack"}, {size, "-3"}},
       ann + "[" + size + "]: Invalid value: \"-3\": must be greater than or equal to 1"},
      {{{slice, "rack"}},
       ann + "[" + size +
           "]: Required value: must be set when 'kueue.x-k8s.io/podset-slice-required-topology' "
           "is specified"},
      {{{req, "rack"}, {size, "2"}},
       ann + "[" + size +
           "]: Forbidden: may not be set when 'kueue.x-k8s.io/podset-slice-required-topology' is "
           "not specified"},
      {{{layers, R"([{"topology":"rack","size":2}])"}, {slice, "rack"}, {size, "2"}},
       ann + "[" + layers +
           "]: Forbidden: may not be set when 'kueue.x-k8s.io/podset-slice-required-topology' is "
           "specified"},
      {{{req, "block"}, {group, "g"}, {layers, R"([{"topology":"rack","size":2}])"}},
       ann + "[" + group +
           "]: Forbidden: may not be set when "
           "'kueue.x-k8s.io/podset-slice-required-topology-constraints' is specified"},
      {{{layers, "[]"}},
       ann + "[" + layers +
           "]: Invalid value: \"[]\": topology constraints must contain between 1 and 3 entries"},
      {{{layers, R"([{"topology":"a","size":8},{"topology":"b","size":4},)"
                 R"({"topology":"c","size":2},{"topology":"d","size":1}])"}},
       ann + "[" + layers +
           "]: Invalid value: \"[{\\\"topology\\\":\\\"a\\\",\\\"size\\\":8},{\\\"topology\\\":"
           "\\\"b\\\",\\\"size\\\":4},{\\\"topology\\\":\\\"c\\\",\\\"size\\\":2},{"
           "\\\"topology\\\":"
           "\\\"d\\\",\\\"size\\\":1}]\": topology constraints must contain between 1 and 3 "
           "entries"},
      {{{layers, R"([{"topology":"rack","size":0}])"}},
       ann + "[" + layers + "][0].size: Invalid value: 0: must be greater than or equal to 1"},
      {{{layers, R"([{"size":2}])"}},
       ann + "[" + layers + "][0].topology: Invalid value: \"\": name part must be non-empty"},
      {{{layers, R"([{"topology":"rack","size":4},{"topology":"rack","size":2}])"}},
       ann + "[" + layers + "][1].topology: Duplicate value: \"rack (also at index 0)\""},
      {{{layers, R"([{"topology":"block","size":6},{"topology":"rack","size":4}])"}},
       ann + "[" + layers +
           "][1].size: Invalid value: 4: must evenly divide the parent layer size 6"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(Message(ValidateTopologyAnnotations(MetaWith(cases[i].annotations), kMeta)),
              cases[i].want)
        << "case " << i << ": " << cases[i].annotations.dump();
  }
}

TEST(TopologyRequestValidate, MultiLayerJsonMustParseAsGoReadsIt) {
  const std::string layers = kPodSetSliceRequiredTopologyConstraintsAnnotation;
  const std::string prefix = std::string(kAnn) + "[" + layers + "]: Invalid value: ";
  for (const char* text :
       {"{", R"({"topology":"rack","size":2})", R"([{"topology":"rack","size":"2"}])",
        R"([{"topology":"rack","size":2.5}])", R"([{"topology":1,"size":2}])",
        R"([{"topology":"rack","size":4294967296}])"}) {
    const std::string got = Message(ValidateTopologyAnnotations(MetaWith({{layers, text}}), kMeta));
    EXPECT_EQ(got.rfind(prefix + Json(text).dump() + ": must be a valid JSON array: ", 0), 0u)
        << text << " -> " << got;
  }
  // JSON null reads as no layers.
  EXPECT_EQ(Message(ValidateTopologyAnnotations(MetaWith({{layers, "null"}}), kMeta)),
            prefix + "\"null\": topology constraints must contain between 1 and 3 entries");
}

TEST(TopologyRequestValidate, SliceSizeAtMostThePodSetCount) {
  const Json slice = MetaWith(
      {{kPodSetSliceRequiredTopologyAnnotation, "rack"}, {kPodSetSliceSizeAnnotation, "4"}});
  EXPECT_EQ(Message(ValidateSliceSizeUpperBound(slice, kMeta, 4)), "OK");
  EXPECT_EQ(Message(ValidateSliceSizeUpperBound(slice, kMeta, 3)),
            std::string(kAnn) +
                "[kueue.x-k8s.io/podset-slice-size]: Invalid value: \"4\": must not be greater "
                "than pod set count 3");
  const Json layers =
      MetaWith({{kPodSetSliceRequiredTopologyConstraintsAnnotation,
                 R"([{"topology":"block","size":8},{"topology":"rack","size":4}])"}});
  EXPECT_EQ(Message(ValidateSliceSizeUpperBound(layers, kMeta, 8)), "OK");
  EXPECT_EQ(Message(ValidateSliceSizeUpperBound(layers, kMeta, 6)),
            std::string(kAnn) +
                "[kueue.x-k8s.io/podset-slice-required-topology-constraints]: Invalid value: 8: "
                "must not be greater than pod set count 6");
  EXPECT_EQ(Message(ValidateSliceSizeUpperBound(MetaWith(Json::object()), kMeta, 0)), "OK");
}

TopologyPodSet GroupMember(const std::string& name, int64_t count, const Json& request) {
  return {name, count, request, "spec.replicatedJobs[" + name + "].annotations"};
}

TEST(TopologyRequestGroups, PairsOfOneLeaderAndItsWorkers) {
  const Json rack_g = {{"required", "rack"}, {"podSetGroupName", "g"}};
  EXPECT_EQ(Message(ValidatePodSetGroups({GroupMember("leader", 1, rack_g),
                                          GroupMember("workers", 4, rack_g),
                                          GroupMember("other", 3, Json())})),
            "OK");
  EXPECT_EQ(Message(ValidatePodSetGroups({GroupMember("a", 1, rack_g)})),
            "spec.replicatedJobs[a].annotations[kueue.x-k8s.io/podset-group-name]: Invalid "
            "value: \"g\": can only define groups of exactly 2 pod sets, got: 1 pod set(s)");
  EXPECT_EQ(Message(ValidatePodSetGroups({GroupMember("a", 1, rack_g), GroupMember("b", 1, rack_g),
                                          GroupMember("c", 1, rack_g)})),
            "spec.replicatedJobs[a].annotations[kueue.x-k8s.io/podset-group-name]: Invalid "
            "value: \"g\": can only define groups of exactly 2 pod sets, got: 3 pod set(s)");
  EXPECT_EQ(
      Message(ValidatePodSetGroups({GroupMember("a", 2, rack_g), GroupMember("b", 3, rack_g)})),
      "spec.replicatedJobs[a].annotations[kueue.x-k8s.io/podset-group-name]: Invalid "
      "value: \"g\": can only define groups where at least one pod set has only 1 "
      "replica, got: 2 replica(s) and 3 replica(s) in the group");
  const Json block_g = {{"required", "block"}, {"podSetGroupName", "g"}};
  EXPECT_EQ(
      Message(ValidatePodSetGroups({GroupMember("a", 1, rack_g), GroupMember("b", 3, block_g)})),
      "spec.replicatedJobs[a].annotations: Invalid value: must specify "
      "'kueue.x-k8s.io/podset-required-topology' or "
      "'kueue.x-k8s.io/podset-preferred-topology' topology consistent with "
      "'spec.replicatedJobs[b].annotations' in group 'g'");
  const Json preferred_rack_g = {{"preferred", "rack"}, {"podSetGroupName", "g"}};
  EXPECT_FALSE(
      ValidatePodSetGroups({GroupMember("a", 1, rack_g), GroupMember("b", 3, preferred_rack_g)})
          .ok());
}

}  // namespace
}  // namespace kuota::jobs
