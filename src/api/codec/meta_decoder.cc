// Decoders of the shared Kubernetes types: ObjectMeta, OwnerReference,
// Condition, LabelSelector, Taint and Toleration.
#include "api/codec/decoders.h"

namespace kuota::codec {
namespace {

Status DecodeOwnerReference(MapReader& r, api::OwnerReference& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"apiVersion", "kind", "name", "uid"}));
  KUOTA_RETURN_IF_ERROR(r.String("apiVersion", out.api_version));
  KUOTA_RETURN_IF_ERROR(r.String("kind", out.kind));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.String("uid", out.uid));
  KUOTA_RETURN_IF_ERROR(r.Bool("controller", out.controller));
  return r.Bool("blockOwnerDeletion", out.block_owner_deletion);
}

Status DecodeLabelSelectorRequirement(MapReader& r, api::LabelSelectorRequirement& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"key", "operator"}));
  KUOTA_RETURN_IF_ERROR(r.String("key", out.key));
  KUOTA_RETURN_IF_ERROR(r.String("operator", out.op));
  return r.StringList("values", out.values);
}

}  // namespace

Status DecodeObjectMeta(MapReader& r, api::ObjectMeta& out) {
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.String("generateName", out.generate_name));
  KUOTA_RETURN_IF_ERROR(r.String("namespace", out.namespace_));
  KUOTA_RETURN_IF_ERROR(r.String("uid", out.uid));
  KUOTA_RETURN_IF_ERROR(r.String("resourceVersion", out.resource_version));
  KUOTA_RETURN_IF_ERROR(r.Int64("generation", out.generation));
  KUOTA_RETURN_IF_ERROR(r.Time("creationTimestamp", out.creation_timestamp));
  KUOTA_RETURN_IF_ERROR(r.Time("deletionTimestamp", out.deletion_timestamp));
  KUOTA_RETURN_IF_ERROR(r.StringMap("labels", out.labels));
  KUOTA_RETURN_IF_ERROR(r.StringMap("annotations", out.annotations));
  KUOTA_RETURN_IF_ERROR(r.StringList("finalizers", out.finalizers));
  KUOTA_RETURN_IF_ERROR(
      r.ObjectList("ownerReferences", out.owner_references, DecodeOwnerReference));
  r.Ignore({"managedFields", "selfLink", "deletionGracePeriodSeconds"});
  return Status::Ok();
}

Status DecodeCondition(MapReader& r, api::Condition& out) {
  // metav1.Condition requires every field but observedGeneration; status
  // written by hand (scenario files) usually carries only type and status.
  KUOTA_RETURN_IF_ERROR(r.Require({"type", "status"}));
  KUOTA_RETURN_IF_ERROR(r.String("type", out.type));
  KUOTA_RETURN_IF_ERROR(r.String("status", out.status));
  KUOTA_RETURN_IF_ERROR(r.String("reason", out.reason));
  KUOTA_RETURN_IF_ERROR(r.String("message", out.message));
  KUOTA_RETURN_IF_ERROR(r.Time("lastTransitionTime", out.last_transition_time));
  return r.Int64("observedGeneration", out.observed_generation);
}

Status DecodeLabelSelector(MapReader& r, api::LabelSelector& out) {
  KUOTA_RETURN_IF_ERROR(r.StringMap("matchLabels", out.match_labels));
  return r.ObjectList("matchExpressions", out.match_expressions, DecodeLabelSelectorRequirement);
}

Status DecodeTaint(MapReader& r, api::Taint& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"key", "effect"}));
  KUOTA_RETURN_IF_ERROR(r.String("key", out.key));
  KUOTA_RETURN_IF_ERROR(r.String("value", out.value));
  KUOTA_RETURN_IF_ERROR(r.String("effect", out.effect));
  r.Ignore({"timeAdded"});
  return Status::Ok();
}

Status DecodeToleration(MapReader& r, api::Toleration& out) {
  KUOTA_RETURN_IF_ERROR(r.String("key", out.key));
  KUOTA_RETURN_IF_ERROR(r.String("operator", out.op));
  KUOTA_RETURN_IF_ERROR(r.String("value", out.value));
  KUOTA_RETURN_IF_ERROR(r.String("effect", out.effect));
  return r.OptInt64("tolerationSeconds", out.toleration_seconds);
}

}  // namespace kuota::codec
