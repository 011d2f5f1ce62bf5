// Kueue's Workload webhook rules (pkg/webhooks/workload_webhook.go, v0.20)
// through Validate(): pod-level and container resources (no negatives, no
// `pods`), pod set template annotations, the admission-gated-by annotation,
// and partial admission (never in an elastic job). Each rule has a refused
// row with Kueue's exact path and message and, next to it, the nearest object
// Kueue accepts.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "api/validation/validate.h"

namespace kuota::validation {
namespace workload_webhook_rules_test {
namespace {

using W = api::Workload;

api::Quantity Qty(const char* text) { return api::Quantity::Parse(text).value(); }

struct Row {
  std::string name;
  std::function<void(W&)> mutate;
  std::string want;  // "" = accepted; otherwise the exact message
};

W BaseWorkload() {
  W wl;
  wl.metadata.name = "wl";
  wl.metadata.namespace_ = "ns";
  wl.spec.queue_name = "lq";
  api::PodSet ps;
  ps.name = "main";
  ps.count = 4;
  api::Container c;
  c.name = "c";
  c.resources.requests["cpu"] = Qty("1");
  ps.template_.spec.containers.push_back(c);
  api::Container init;
  init.name = "init";
  ps.template_.spec.init_containers.push_back(init);
  wl.spec.pod_sets.push_back(ps);
  api::PodSet worker = ps;
  worker.name = "worker";
  wl.spec.pod_sets.push_back(worker);
  return wl;
}

api::PodSpec& Pod(W& wl, size_t i = 0) { return wl.spec.pod_sets[i].template_.spec; }

api::ResourceRequirements& PodLevel(W& wl) {
  if (!Pod(wl).resources.has_value()) Pod(wl).resources.emplace();
  return *Pod(wl).resources;
}

void Annotate(W& wl, const std::string& key, const std::string& value) {
  wl.metadata.annotations[key] = value;
}

std::function<void(W&)> GatedBy(std::string value) {
  return [=](W& w) { Annotate(w, "kueue.x-k8s.io/admission-gated-by", value); };
}

constexpr const char* kGatePath = "metadata.annotations[kueue.x-k8s.io/admission-gated-by]";

std::string Gate(const std::string& rest) { return std::string(kGatePath) + ": " + rest; }

TEST(WorkloadWebhookRulesTest, Table) {
  const std::string ps0 = "spec.podSets[0].template.spec";
  const std::vector<Row> rows = {
      {"base", [](W&) {}, ""},

      // 1. Pod-level resources (PodLevelResources) must not be negative.
      {"pod-level requests", [](W& w) { PodLevel(w).requests["cpu"] = Qty("2"); }, ""},
      {"pod-level zero limit", [](W& w) { PodLevel(w).limits["memory"] = Qty("0"); }, ""},
      {"negative pod-level request", [](W& w) { PodLevel(w).requests["cpu"] = Qty("-1"); },
       ps0 + ".resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0"},
      {"negative pod-level limit", [](W& w) { PodLevel(w).limits["memory"] = Qty("-2"); },
       ps0 + ".resources.limits[memory]: Invalid value: \"-2\": must be greater than or equal "
             "to 0"},
      {"negative container request",
       [](W& w) { Pod(w).containers[0].resources.requests["cpu"] = Qty("-500m"); },
       ps0 + ".containers[0].resources.requests[cpu]: Invalid value: \"-500m\": must be greater "
             "than or equal to 0"},
      {"negative container limit",
       [](W& w) { Pod(w).containers[0].resources.limits["cpu"] = Qty("-1"); },
       ps0 + ".containers[0].resources.limits[cpu]: Invalid value: \"-1\": must be greater than "
             "or equal to 0"},
      {"negative init container request",
       [](W& w) { Pod(w).init_containers[0].resources.requests["memory"] = Qty("-1"); },
       ps0 + ".initContainers[0].resources.requests[memory]: Invalid value: \"-1\": must be "
             "greater than or equal to 0"},

      // 2. `pods` is reserved for Kueue in requests and limits alike.
      {"pods in container requests",
       [](W& w) { Pod(w).containers[0].resources.requests["pods"] = Qty("1"); },
       ps0 + ".containers[0].resources.requests[pods]: Invalid value: \"pods\": the key is "
             "reserved for internal kueue use"},
      {"pods in container limits",
       [](W& w) { Pod(w).containers[0].resources.limits["pods"] = Qty("1"); },
       ps0 + ".containers[0].resources.limits[pods]: Invalid value: \"pods\": the key is "
             "reserved for internal kueue use"},
      {"pods in init container requests",
       [](W& w) { Pod(w).init_containers[0].resources.requests["pods"] = Qty("1"); },
       ps0 + ".initContainers[0].resources.requests[pods]: Invalid value: \"pods\": the key is "
             "reserved for internal kueue use"},
      {"pods in init container limits",
       [](W& w) { Pod(w).init_containers[0].resources.limits["pods"] = Qty("1"); },
       ps0 + ".initContainers[0].resources.limits[pods]: Invalid value: \"pods\": the key is "
             "reserved for internal kueue use"},
      {"pods in pod-level requests", [](W& w) { PodLevel(w).requests["pods"] = Qty("1"); },
       ps0 + ".resources.requests[pods]: Invalid value: \"pods\": the key is reserved for "
             "internal kueue use"},
      {"pods-like resource name",
       [](W& w) { Pod(w).containers[0].resources.requests["example.com/pods"] = Qty("1"); }, ""},

      // 3. admission-gated-by: distinct, non-empty, domain-prefixed gates.
      {"one gate", GatedBy("example.com/gate"), ""},
      {"two gates with spaces", GatedBy(" example.com/a , example.com/b "), ""},
      {"blank annotation", GatedBy("  "), ""},
      {"gate without a domain", GatedBy("gate"),
       Gate("Invalid value: \"gate\": must be a domain-prefixed path (such as \"acme.io/foo\")")},
      {"empty gate", GatedBy("example.com/a,"),
       Gate("Invalid value: \"example.com/a,\": cannot contain empty gate names")},
      {"duplicate gate", GatedBy("example.com/a, example.com/a"),
       Gate("Invalid value: \"example.com/a, example.com/a\": duplicate gate name: "
            "example.com/a")},
      {"gate with a bad domain", GatedBy("Example.com/a"),
       Gate("Invalid value: \"Example.com\": a lowercase RFC 1123 subdomain must consist of lower "
            "case alphanumeric characters, '-' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")},
      {"gate with a bad path", GatedBy("example.com/a b"),
       Gate("Invalid value: \"a b\": Invalid path (regex used for validation is "
            "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')")},
      {"gate of 63 bytes", GatedBy("example.com/" + std::string(51, 'g')), ""},
      {"gate of 64 bytes", GatedBy("example.com/" + std::string(52, 'g')),
       Gate("Too long: may not be more than 63 bytes")},

      // 4. Pod set template annotations: qualified-name keys (case aside).
      {"template annotation",
       [](W& w) { w.spec.pod_sets[0].template_.annotations["Example.com/Some_Key"] = "x y"; }, ""},
      {"bad template annotation key",
       [](W& w) { w.spec.pod_sets[1].template_.annotations["bad key"] = "v"; },
       "spec.podSets[1].template.metadata.annotations: Invalid value: \"bad key\": name part "
       "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
       "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
       "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
      {"template annotation key with two slashes",
       [](W& w) { w.spec.pod_sets[0].template_.annotations["a/b/c"] = "v"; },
       "spec.podSets[0].template.metadata.annotations: Invalid value: \"a/b/c\": a qualified "
       "name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
       "with an alphanumeric character, with an optional DNS subdomain prefix and '/' (e.g. "
       "'example.com/MyName')"},

      // 5. Partial admission and elastic jobs (workload slices) exclude each other.
      {"elastic job without minCount",
       [](W& w) { Annotate(w, "kueue.x-k8s.io/elastic-job", "true"); }, ""},
      {"minCount in a job not marked elastic",
       [](W& w) {
         Annotate(w, "kueue.x-k8s.io/elastic-job", "false");
         w.spec.pod_sets[0].min_count = 1;
       },
       ""},
      {"minCount in an elastic job",
       [](W& w) {
         Annotate(w, "kueue.x-k8s.io/elastic-job", "true");
         w.spec.pod_sets[0].min_count = 1;
       },
       "spec.podSets: Invalid value: 1: partial admission and elastic job cannot be used "
       "together"},
  };
  for (const Row& row : rows) {
    W wl = BaseWorkload();
    row.mutate(wl);
    for (const char* version : {"kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"}) {
      Status st = Validate(api::Object{version, "Workload", wl});
      if (row.want.empty()) {
        EXPECT_TRUE(st.ok()) << row.name << " (" << version << "): " << st.ToString();
      } else {
        EXPECT_EQ(st.code(), StatusCode::kInvalid) << row.name << " (" << version << ")";
        EXPECT_EQ(st.message(), row.want) << row.name << " (" << version << ")";
      }
    }
  }
}

}  // namespace
}  // namespace workload_webhook_rules_test
}  // namespace kuota::validation
