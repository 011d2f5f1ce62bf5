// Checks shared by several kinds: ObjectMeta (apimachinery ValidateObjectMeta),
// labels and annotations, label selectors, taints, tolerations, resource
// lists and conditions.
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <utility>

#include "api/validation/names.h"
#include "api/validation/validators.h"

namespace kuota::validation {
namespace {

constexpr size_t kTotalAnnotationSizeLimit = 256 * 1024;

void CheckName(std::string_view value, NameRule rule, std::string_view path, FieldErrors& errs) {
  std::string msg =
      rule == NameRule::kDns1123Label ? CheckDns1123Label(value) : CheckDns1123Subdomain(value);
  if (!msg.empty()) errs.Invalid(path, value, msg);
}

bool IsTaintEffect(std::string_view e) {
  return e == "NoSchedule" || e == "PreferNoSchedule" || e == "NoExecute";
}

}  // namespace

void ValidateAnnotations(const api::Labels& annotations, std::string_view path, FieldErrors& errs) {
  size_t total = 0;
  for (const auto& [k, v] : annotations) {
    std::string lower(k);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string msg = CheckQualifiedName(lower);
    if (!msg.empty()) errs.Invalid(path, k, msg);
    total += k.size() + v.size();
  }
  if (total > kTotalAnnotationSizeLimit) errs.TooLong(path, kTotalAnnotationSizeLimit);
}

void ValidateObjectMeta(const api::ObjectMeta& meta, NameRule rule, bool namespaced,
                        FieldErrors& errs) {
  if (meta.name.empty()) {
    if (meta.generate_name.empty()) {
      errs.Required("metadata.name", "name or generateName is required");
    }
  } else if (errs.check_names) {
    CheckName(meta.name, rule, "metadata.name", errs);
  }
  if (!meta.generate_name.empty()) {
    // As Kubernetes does for prefixes: a trailing '-' is allowed.
    std::string masked = meta.generate_name;
    if (masked.back() == '-') masked.back() = 'a';
    std::string msg =
        rule == NameRule::kDns1123Label ? CheckDns1123Label(masked) : CheckDns1123Subdomain(masked);
    if (!msg.empty()) errs.Invalid("metadata.generateName", meta.generate_name, msg);
  }
  if (namespaced && !meta.namespace_.empty()) {
    std::string msg = CheckDns1123Label(meta.namespace_);
    if (!msg.empty()) errs.Invalid("metadata.namespace", meta.namespace_, msg);
  }
  if (meta.generation < 0) {
    errs.InvalidNumber("metadata.generation", meta.generation,
                       "must be greater than or equal to 0");
  }
  ValidateLabels(meta.labels, "metadata.labels", errs);
  ValidateAnnotations(meta.annotations, "metadata.annotations", errs);
  std::set<std::string_view> finalizers;
  for (size_t i = 0; i < meta.finalizers.size(); ++i) {
    const std::string& f = meta.finalizers[i];
    std::string path = Index("metadata.finalizers", i);
    std::string msg = CheckQualifiedName(f);
    if (!msg.empty()) errs.Invalid(path, f, msg);
    if (!finalizers.insert(f).second) errs.Duplicate(path, f);
  }
  int controllers = 0;
  for (size_t i = 0; i < meta.owner_references.size(); ++i) {
    const api::OwnerReference& ref = meta.owner_references[i];
    std::string path = Index("metadata.ownerReferences", i);
    if (ref.api_version.empty()) {
      errs.Invalid(Child(path, "apiVersion"), "", "version must not be empty");
    }
    if (ref.kind.empty()) errs.Invalid(Child(path, "kind"), "", "kind must not be empty");
    if (ref.name.empty()) errs.Invalid(Child(path, "name"), "", "name must not be empty");
    if (ref.uid.empty()) errs.Invalid(Child(path, "uid"), "", "uid must not be empty");
    if (ref.controller) ++controllers;
  }
  if (controllers > 1) {
    errs.InvalidNumber("metadata.ownerReferences", controllers,
                       "Only one reference can have Controller set to true");
  }
}

void ValidateLabels(const api::Labels& labels, std::string_view path, FieldErrors& errs) {
  for (const auto& [k, v] : labels) {
    std::string msg = CheckQualifiedName(k);
    if (!msg.empty()) errs.Invalid(path, k, msg);
    msg = CheckLabelValue(v);
    if (!msg.empty()) errs.Invalid(path, v, msg);
  }
}

void ValidateLabelSelector(const api::LabelSelector& selector, std::string_view path,
                           FieldErrors& errs) {
  for (size_t i = 0; i < selector.match_expressions.size(); ++i) {
    const api::LabelSelectorRequirement& req = selector.match_expressions[i];
    std::string rp = Index(Child(path, "matchExpressions"), i);
    if (req.op == "In" || req.op == "NotIn") {
      if (req.values.empty()) {
        errs.Required(Child(rp, "values"), "must be specified when `operator` is 'In' or 'NotIn'");
      }
    } else if (req.op == "Exists" || req.op == "DoesNotExist") {
      if (!req.values.empty()) {
        errs.Forbidden(Child(rp, "values"),
                       "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      }
    } else {
      errs.Invalid(Child(rp, "operator"), req.op, "not a valid selector operator");
    }
    std::string msg = CheckQualifiedName(req.key);
    if (!msg.empty()) errs.Invalid(Child(rp, "key"), req.key, msg);
    for (size_t j = 0; j < req.values.size(); ++j) {
      msg = CheckLabelValue(req.values[j]);
      if (!msg.empty()) errs.Invalid(Index(Child(rp, "values"), j), req.values[j], msg);
    }
  }
  ValidateLabels(selector.match_labels, Child(path, "matchLabels"), errs);
}

void ValidateTaints(const std::vector<api::Taint>& taints, std::string_view path,
                    FieldErrors& errs) {
  std::set<std::pair<std::string_view, std::string_view>> seen;  // (effect, key)
  for (size_t i = 0; i < taints.size(); ++i) {
    const api::Taint& t = taints[i];
    std::string tp = Index(path, i);
    std::string msg = CheckQualifiedName(t.key);
    if (!msg.empty()) errs.Invalid(Child(tp, "key"), t.key, msg);
    msg = CheckLabelValue(t.value);
    if (!msg.empty()) errs.Invalid(Child(tp, "value"), t.value, msg);
    if (t.effect.empty()) {
      errs.Required(Child(tp, "effect"));
    } else if (!IsTaintEffect(t.effect)) {
      errs.NotSupported(Child(tp, "effect"), t.effect,
                        {"NoSchedule", "PreferNoSchedule", "NoExecute"});
    }
    if (!seen.emplace(t.effect, t.key).second) {
      errs.Duplicate(tp, t.key + ":" + t.effect, "taints must be unique by key and effect pair");
    }
  }
}

void ValidateTolerations(const std::vector<api::Toleration>& tolerations, std::string_view path,
                         FieldErrors& errs) {
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const api::Toleration& t = tolerations[i];
    std::string tp = Index(path, i);
    if (!t.key.empty()) {
      std::string msg = CheckQualifiedName(t.key);
      if (!msg.empty()) errs.Invalid(Child(tp, "key"), t.key, msg);
    } else if (t.op != "Exists") {
      errs.Invalid(Child(tp, "operator"), t.op,
                   "operator must be Exists when `key` is empty, which means \"match all values "
                   "and all keys\"");
    }
    if (t.toleration_seconds.has_value() && t.effect != "NoExecute") {
      errs.Invalid(Child(tp, "effect"), t.effect,
                   "effect must be 'NoExecute' when `tolerationSeconds` is set");
    }
    if (t.op == "Exists") {
      if (!t.value.empty()) {
        errs.Invalid(Child(tp, "operator"), t.value,
                     "value must be empty when `operator` is 'Exists'");
      }
    } else if (t.op.empty() || t.op == "Equal") {
      std::string msg = CheckLabelValue(t.value);
      if (!msg.empty()) errs.Invalid(Child(tp, "value"), t.value, msg);
    } else {
      errs.NotSupported(Child(tp, "operator"), t.op, {"Equal", "Exists"});
    }
    if (!t.effect.empty() && !IsTaintEffect(t.effect)) {
      errs.NotSupported(Child(tp, "effect"), t.effect,
                        {"NoSchedule", "PreferNoSchedule", "NoExecute"});
    }
  }
}

void ValidateNonNegative(api::Quantity q, std::string_view path, FieldErrors& errs) {
  if (q.milli() < 0) errs.Invalid(path, q.ToString(), "must be greater than or equal to 0");
}

void ValidateResourceList(const api::ResourceList& list, std::string_view path, FieldErrors& errs) {
  for (const auto& [name, q] : list) {
    std::string rp = Key(path, name);
    std::string msg = CheckQualifiedName(name);
    if (!msg.empty()) errs.Invalid(rp, name, msg);
    ValidateNonNegative(q, rp, errs);
  }
}

void ValidateNameReference(std::string_view name, std::string_view path, FieldErrors& errs) {
  if (name.empty() || !errs.check_names) return;
  std::string msg = CheckDns1123Subdomain(name);
  if (!msg.empty()) errs.Invalid(path, name, msg);
}

void ValidateConditions(const std::vector<api::Condition>& conditions, std::string_view path,
                        FieldErrors& errs) {
  std::set<std::string_view> types;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const api::Condition& c = conditions[i];
    std::string cp = Index(path, i);
    std::string msg = CheckQualifiedName(c.type);
    if (!msg.empty()) errs.Invalid(Child(cp, "type"), c.type, msg);
    if (!types.insert(c.type).second) errs.Duplicate(Child(cp, "type"), c.type);
    if (c.status != "True" && c.status != "False" && c.status != "Unknown") {
      errs.NotSupported(Child(cp, "status"), c.status, {"False", "True", "Unknown"});
    }
    if (c.observed_generation < 0) {
      errs.InvalidNumber(Child(cp, "observedGeneration"), c.observed_generation,
                         "must be greater than or equal to zero");
    }
  }
}

}  // namespace kuota::validation
