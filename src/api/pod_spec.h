// The part of a Kubernetes PodSpec that Kuota reads: containers with their
// requests and limits, init containers, overhead, pod-level resources,
// nodeSelector, required node affinity and tolerations (what decides quota and
// flavors), plus what the local runtime needs to start a process. Plain structs; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/object_meta.h"

namespace kuota::api {

struct EnvVar {
  std::string name;
  std::string value;
};

struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<EnvVar> env;
  std::string working_dir;
  ResourceRequirements resources;
  std::string restart_policy;  // "Always" marks a sidecar init container
};

struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
};

struct NodeAffinity {
  // requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms (ORed)
  std::optional<std::vector<NodeSelectorTerm>> required_terms;
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

struct Toleration {
  std::string key;
  std::string op;  // Equal (default) or Exists
  std::string value;
  std::string effect;  // empty matches all effects
  std::optional<int64_t> toleration_seconds;

  bool Tolerates(const Taint& taint) const;
};

struct PodSpec {
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  ResourceList overhead;
  // Pod-level requests and limits (Kubernetes' PodLevelResources), when set.
  // Validated only: PodRequests() still sums the containers.
  std::optional<ResourceRequirements> resources;
  Labels node_selector;
  NodeAffinity node_affinity;
  std::vector<Toleration> tolerations;
  std::string restart_policy;
  std::string priority_class_name;
  std::optional<int32_t> priority;
  std::optional<int64_t> termination_grace_period_seconds;
  std::optional<int64_t> active_deadline_seconds;
};

struct PodTemplateSpec {
  Labels labels;
  Labels annotations;
  PodSpec spec;
};

// Per-pod requests: max(sum of containers, each init container) + overhead;
// a container's limit stands in for a missing request, as Kubernetes defaults.
ResourceList PodRequests(const PodSpec& spec);

}  // namespace kuota::api
