// Test builders: compact, chainable constructors for the api structs that
// tests feed the engine (ResourceFlavor, ClusterQueue, Cohort, LocalQueue,
// Workload, priority classes, Namespace, AdmissionCheck), after Kueue's
// pkg/util/testing wrappers, and ToObject() to wrap them as api::Object.
// Header-only; plain values, no shared state; thread-compatible.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object.h"
#include "base/time.h"

namespace kuota::testing {

// Parses a quantity that a test spells literally; aborts on a typo, since a
// silently wrong quantity would make a test pass or fail for the wrong reason.
inline api::Quantity Q(std::string_view text) {
  Result<api::Quantity> q = api::Quantity::Parse(text);
  if (!q.ok()) {
    std::fprintf(stderr, "bad quantity in test: %.*s\n", static_cast<int>(text.size()),
                 text.data());
    std::abort();
  }
  return q.value();
}

// 2026-01-01T00:00:00Z plus `seconds`: the time base all tests share.
inline Time At(int64_t seconds) { return Time::FromSeconds(1767225600 + seconds); }

// resource -> quantity text, e.g. {{"cpu", "1"}, {"memory", "1Gi"}}.
using Requests = std::vector<std::pair<std::string, std::string>>;
// resource -> flavor, e.g. {{"cpu", "default"}}.
using FlavorMap = std::map<std::string, std::string>;

// What every builder has: the object it builds, and Obj() for a copy of it.
template <class T>
class BuilderOf {
 public:
  T Obj() const { return obj_; }

 protected:
  T obj_;
};

class MakeResourceFlavor : public BuilderOf<api::ResourceFlavor> {
 public:
  explicit MakeResourceFlavor(std::string name) { obj_.metadata.name = std::move(name); }
  MakeResourceFlavor& NodeLabel(std::string k, std::string v) {
    obj_.node_labels[std::move(k)] = std::move(v);
    return *this;
  }
  MakeResourceFlavor& Taint(std::string key, std::string value, std::string effect) {
    obj_.node_taints.push_back({std::move(key), std::move(value), std::move(effect)});
    return *this;
  }
  MakeResourceFlavor& Toleration(std::string key, std::string op, std::string value,
                                 std::string effect) {
    obj_.tolerations.push_back(
        {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt});
    return *this;
  }
};

class MakeFlavorQuotas : public BuilderOf<api::FlavorQuotas> {
 public:
  explicit MakeFlavorQuotas(std::string flavor) { obj_.name = std::move(flavor); }
  // nominal, and optionally borrowingLimit / lendingLimit, as quantity text.
  MakeFlavorQuotas& Resource(std::string name, std::string_view nominal,
                             std::optional<std::string_view> borrowing_limit = std::nullopt,
                             std::optional<std::string_view> lending_limit = std::nullopt) {
    api::ResourceQuota r;
    r.name = std::move(name);
    r.nominal_quota = Q(nominal);
    if (borrowing_limit) r.borrowing_limit = Q(*borrowing_limit);
    if (lending_limit) r.lending_limit = Q(*lending_limit);
    obj_.resources.push_back(std::move(r));
    return *this;
  }
  operator api::FlavorQuotas() const { return obj_; }  // NOLINT: lets groups take builders
};

inline api::ResourceGroup MakeResourceGroup(std::vector<std::string> covered,
                                            std::vector<api::FlavorQuotas> flavors) {
  return api::ResourceGroup{std::move(covered), std::move(flavors)};
}

inline api::FairSharing Weight(double w) { return api::FairSharing{w, true}; }

class MakeClusterQueue : public BuilderOf<api::ClusterQueue> {
 public:
  // Like Kueue's test wrapper, the namespaceSelector defaults to {} (all).
  explicit MakeClusterQueue(std::string name) {
    obj_.metadata.name = std::move(name);
    obj_.spec.namespace_selector = api::LabelSelector{};
  }
  MakeClusterQueue& Cohort(std::string c) {
    obj_.spec.cohort = std::move(c);
    return *this;
  }
  MakeClusterQueue& ResourceGroup(std::vector<std::string> covered,
                                  std::vector<api::FlavorQuotas> flavors) {
    obj_.spec.resource_groups.push_back(MakeResourceGroup(std::move(covered), std::move(flavors)));
    return *this;
  }
  MakeClusterQueue& Preemption(
      api::WithinClusterQueuePolicy within,
      api::ReclaimWithinCohortPolicy reclaim = api::ReclaimWithinCohortPolicy::kNever,
      api::BorrowWithinCohortPolicy borrow = api::BorrowWithinCohortPolicy::kNever,
      std::optional<int32_t> max_priority_threshold = std::nullopt) {
    obj_.spec.preemption = {within, reclaim, {borrow, max_priority_threshold}};
    return *this;
  }
  MakeClusterQueue& StrictFIFO() {
    obj_.spec.queueing_strategy = api::QueueingStrategy::kStrictFIFO;
    return *this;
  }
  MakeClusterQueue& NamespaceSelector(std::optional<api::LabelSelector> s) {
    obj_.spec.namespace_selector = std::move(s);
    return *this;
  }
  MakeClusterQueue& FlavorFungibility(
      api::FungibilityAction when_can_borrow, api::FungibilityAction when_can_preempt,
      api::FungibilityPreference preference = api::FungibilityPreference::kUnset) {
    obj_.spec.flavor_fungibility = {when_can_borrow, when_can_preempt, preference};
    return *this;
  }
  MakeClusterQueue& FairWeight(double w) {
    obj_.spec.fair_sharing = Weight(w);
    return *this;
  }
  MakeClusterQueue& AdmissionChecks(std::vector<std::string> checks) {
    obj_.spec.admission_checks = std::move(checks);
    return *this;
  }
  MakeClusterQueue& StopPolicy(api::StopPolicy p) {
    obj_.spec.stop_policy = p;
    return *this;
  }
};

// A ClusterQueue of one resource group, "cpu" from flavor "default":
// `nominal` cpus (with the limits when given), in `cohort` ("" for none).
inline MakeClusterQueue CpuQueue(std::string name, std::string_view nominal,
                                 std::string cohort = "",
                                 std::optional<std::string_view> borrowing_limit = std::nullopt,
                                 std::optional<std::string_view> lending_limit = std::nullopt) {
  MakeClusterQueue cq(std::move(name));
  cq.Cohort(std::move(cohort))
      .ResourceGroup({"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", nominal, borrowing_limit,
                                                                    lending_limit)});
  return cq;
}

class MakeCohort : public BuilderOf<api::Cohort> {
 public:
  explicit MakeCohort(std::string name) { obj_.metadata.name = std::move(name); }
  MakeCohort& Parent(std::string p) {
    obj_.parent_name = std::move(p);
    return *this;
  }
  MakeCohort& ResourceGroup(std::vector<std::string> covered,
                            std::vector<api::FlavorQuotas> flavors) {
    obj_.resource_groups.push_back(MakeResourceGroup(std::move(covered), std::move(flavors)));
    return *this;
  }
  MakeCohort& FairWeight(double w) {
    obj_.fair_sharing = Weight(w);
    return *this;
  }
};

class MakeLocalQueue : public BuilderOf<api::LocalQueue> {
 public:
  MakeLocalQueue(std::string name, std::string ns) {
    obj_.metadata.name = std::move(name);
    obj_.metadata.namespace_ = std::move(ns);
  }
  MakeLocalQueue& ClusterQueue(std::string cq) {
    obj_.cluster_queue = std::move(cq);
    return *this;
  }
  MakeLocalQueue& StopPolicy(api::StopPolicy p) {
    obj_.stop_policy = p;
    return *this;
  }
};

class MakeNamespace : public BuilderOf<api::Namespace> {
 public:
  explicit MakeNamespace(std::string name) { obj_.metadata.name = std::move(name); }
  MakeNamespace& Label(std::string k, std::string v) {
    obj_.metadata.labels[std::move(k)] = std::move(v);
    return *this;
  }
};

inline api::WorkloadPriorityClass MakeWorkloadPriorityClass(std::string name, int32_t value) {
  api::WorkloadPriorityClass pc;
  pc.metadata.name = std::move(name);
  pc.value = value;
  return pc;
}

inline api::PriorityClass MakePriorityClass(std::string name, int32_t value,
                                            bool global_default = false) {
  api::PriorityClass pc;
  pc.metadata.name = std::move(name);
  pc.value = value;
  pc.global_default = global_default;
  return pc;
}

inline api::AdmissionCheck MakeAdmissionCheck(std::string name,
                                              std::string controller = "example.com/check") {
  api::AdmissionCheck ac;
  ac.metadata.name = std::move(name);
  ac.controller_name = std::move(controller);
  return ac;
}

class MakeWorkload : public BuilderOf<api::Workload> {
 public:
  // Created at At(0) unless Created() says otherwise.
  MakeWorkload(std::string name, std::string ns) {
    obj_.metadata.name = std::move(name);
    obj_.metadata.namespace_ = std::move(ns);
    obj_.metadata.uid = obj_.metadata.namespace_ + "-" + obj_.metadata.name;
    obj_.metadata.creation_timestamp = At(0);
  }
  MakeWorkload& Queue(std::string q) {
    obj_.spec.queue_name = std::move(q);
    return *this;
  }
  MakeWorkload& Priority(int32_t p) {
    obj_.spec.priority = p;
    return *this;
  }
  // priorityClassName with its source (Kueue's WorkloadPriorityClass by default).
  MakeWorkload& PriorityClass(std::string name,
                              std::string source = api::kWorkloadPriorityClassSource) {
    obj_.spec.priority_class_name = std::move(name);
    obj_.spec.priority_class_source = std::move(source);
    return *this;
  }
  MakeWorkload& Created(Time t) {
    obj_.metadata.creation_timestamp = t;
    return *this;
  }
  MakeWorkload& Active(bool a) {
    obj_.spec.active = a;
    return *this;
  }
  // Adds a pod set of `count` pods, each with one container requesting `requests`.
  MakeWorkload& PodSet(std::string name, int32_t count, const Requests& requests) {
    api::PodSet ps;
    ps.name = std::move(name);
    ps.count = count;
    api::Container c;
    c.name = "c";
    for (const auto& [res, q] : requests) c.resources.requests[res] = Q(q);
    ps.template_.spec.containers.push_back(std::move(c));
    obj_.spec.pod_sets.push_back(std::move(ps));
    return *this;
  }
  // The following apply to the last pod set added.
  MakeWorkload& MinCount(int32_t n) {
    Last().min_count = n;
    return *this;
  }
  MakeWorkload& Toleration(std::string key, std::string op, std::string value, std::string effect) {
    Last().template_.spec.tolerations.push_back(
        {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt});
    return *this;
  }
  MakeWorkload& NodeSelector(std::string k, std::string v) {
    Last().template_.spec.node_selector[std::move(k)] = std::move(v);
    return *this;
  }
  // Adds a required node affinity term with one expression (terms are ORed).
  MakeWorkload& NodeAffinityTerm(std::string key, std::string op, std::vector<std::string> values) {
    auto& terms = Last().template_.spec.node_affinity.required_terms;
    if (!terms) terms.emplace();
    api::NodeSelectorTerm term;
    term.match_expressions.push_back({std::move(key), std::move(op), std::move(values)});
    terms->push_back(std::move(term));
    return *this;
  }
  MakeWorkload& PodPriorityClassName(std::string name) {
    Last().template_.spec.priority_class_name = std::move(name);
    return *this;
  }
  // Holds quota in `cq` since `at`: every pod set at its full count on the
  // flavors in `flavors`, usage computed from its requests.
  MakeWorkload& ReserveQuota(std::string cq, const FlavorMap& flavors, Time at = At(0)) {
    api::Admission adm;
    adm.cluster_queue = cq;
    for (const auto& ps : obj_.spec.pod_sets) {
      api::PodSetAssignment psa;
      psa.name = ps.name;
      psa.count = ps.count;
      for (const auto& [res, per_pod] : api::PodRequests(ps.template_.spec)) {
        auto f = flavors.find(res);
        if (f == flavors.end()) continue;
        psa.flavors[res] = f->second;
        psa.resource_usage[res] = per_pod * ps.count;
      }
      adm.pod_set_assignments.push_back(std::move(psa));
    }
    obj_.status.admission = std::move(adm);
    SetCondition(api::kQuotaReserved, "True", "QuotaReserved",
                 "Quota reserved in ClusterQueue " + cq, at);
    return *this;
  }
  // Adds Admitted=True (with ReserveQuota: a fully admitted workload).
  MakeWorkload& Admitted(Time at = At(0)) {
    SetCondition(api::kAdmitted, "True", "Admitted", "The workload is admitted", at);
    return *this;
  }
  MakeWorkload& Condition(std::string type, std::string status, std::string reason, Time at) {
    SetCondition(std::move(type), std::move(status), std::move(reason), "", at);
    return *this;
  }
  MakeWorkload& AdmissionCheck(std::string name, std::string state) {
    api::AdmissionCheckState c;
    c.name = std::move(name);
    c.state = std::move(state);
    c.last_transition_time = At(0);
    obj_.status.admission_checks.push_back(std::move(c));
    return *this;
  }

 private:
  api::PodSet& Last() {
    if (obj_.spec.pod_sets.empty()) PodSet("main", 1, {});
    return obj_.spec.pod_sets.back();
  }
  void SetCondition(std::string type, std::string status, std::string reason, std::string message,
                    Time at) {
    api::Condition c;
    c.type = std::move(type);
    c.status = std::move(status);
    c.reason = std::move(reason);
    c.message = std::move(message);
    c.last_transition_time = at;
    obj_.status.conditions.push_back(std::move(c));
  }
};

// Wraps a kind as the api::Object that Engine::Apply takes.
inline api::Object ToObject(api::ResourceFlavor x) {
  return {api::kKueueV1beta1, "ResourceFlavor", std::move(x)};
}
inline api::Object ToObject(api::ClusterQueue x) {
  return {api::kKueueV1beta1, "ClusterQueue", std::move(x)};
}
inline api::Object ToObject(api::Cohort x) { return {api::kKueueV1beta1, "Cohort", std::move(x)}; }
inline api::Object ToObject(api::LocalQueue x) {
  return {api::kKueueV1beta1, "LocalQueue", std::move(x)};
}
inline api::Object ToObject(api::Workload x) {
  return {api::kKueueV1beta1, "Workload", std::move(x)};
}
inline api::Object ToObject(api::WorkloadPriorityClass x) {
  return {api::kKueueV1beta1, "WorkloadPriorityClass", std::move(x)};
}
inline api::Object ToObject(api::PriorityClass x) {
  return {"scheduling.k8s.io/v1", "PriorityClass", std::move(x)};
}
inline api::Object ToObject(api::AdmissionCheck x) {
  return {api::kKueueV1beta1, "AdmissionCheck", std::move(x)};
}
inline api::Object ToObject(api::Namespace x) { return {"v1", "Namespace", std::move(x)}; }
inline api::Object ToObject(api::Configuration x) {
  return {"config.kueue.x-k8s.io/v1beta1", "Configuration", std::move(x)};
}
// Builders convert through their Obj().
template <class Builder>
auto ToObject(const Builder& b) -> decltype(ToObject(b.Obj())) {
  return ToObject(b.Obj());
}

}  // namespace kuota::testing
