// KindInfo: how the API serves a job kind (group, version, kind, plural,
// short names) and the columns `kubectl get` prints for it, as the real
// operator's CustomResourceDefinition declares them (additionalPrinterColumns).
// Plain data; immutable once built.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kuota::jobs {

// One printer column. `type` is the OpenAPI type kubectl formats by
// ("string", "integer", "date", ...); a "date" cell holds an RFC 3339 time
// that the server prints as an age. `value` returns the cell for a stored
// object: a string, a number, or null when the field is absent.
struct PrinterColumn {
  std::string name;
  std::string type;
  std::string description;
  int priority = 0;  // 0: shown by `kubectl get`; 1: only with -o wide
  std::function<nlohmann::json(const nlohmann::json& job)> value;
};

// A CRD's scale subresource (subresources.scale): dotted JSON paths.
struct ScaleInfo {
  std::string spec_replicas;    // ".spec.replicas"
  std::string status_replicas;  // ".status.replicas"
  std::string label_selector;   // ".status.hpaPodSelector"; "" for none
};

struct KindInfo {
  std::string framework;  // Kueue's integration name: "kubeflow.org/pytorchjob"
  std::string group;      // "kubeflow.org"
  std::string version;    // "v1"
  std::string kind;       // "PyTorchJob"
  std::string plural;     // "pytorchjobs"
  std::string singular;   // "pytorchjob"
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  // Workloads are named "<prefix>-<job name>-<hash>" ("pytorchjob").
  std::string workload_prefix;
  // After NAME (and NAMESPACE); an AGE column is the kind's own to declare.
  std::vector<PrinterColumn> columns;
  // Set when the CRD serves /scale (kubectl scale, HorizontalPodAutoscalers).
  std::optional<ScaleInfo> scale{};
};

// What a kind's CRD declares besides its group, version and kind.
struct KindExtras {
  std::vector<std::string> short_names{};
  std::vector<std::string> categories{};
  std::vector<PrinterColumn> columns{};
  std::optional<ScaleInfo> scale{};
};

// The KindInfo of `kind` served at group/version as its CRD names it: the
// singular is the lower-cased kind, the plural the singular + "s", and
// Kueue's framework name "<group>/<singular>" ("kubeflow.org/pytorchjob").
KindInfo CrdKindInfo(const std::string& group, const std::string& version, const std::string& kind,
                     const std::string& workload_prefix, KindExtras extras = {});

}  // namespace kuota::jobs
