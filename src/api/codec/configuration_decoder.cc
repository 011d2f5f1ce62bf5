// Decoder of Kueue's manager Configuration (config.kueue.x-k8s.io/v1beta1
// and v1beta2): fairSharing, waitForPodsReady, integrations.frameworks and
// manageJobsWithoutQueueName are decoded with Kueue's defaults
// (SetDefaults_Configuration); the other real top-level sections are
// accepted and ignored. v1beta2 has no `enable` in fairSharing and
// waitForPodsReady: a present section is on, and blockAdmission defaults to
// false (as api/conversion's ConfigurationDown maps it); it also drops
// queueVisibility and integrations.podOptions.
#include "api/codec/decoders.h"

namespace kuota::codec {
namespace {

using api::FairSharingStrategy;
using api::RequeuingTimestamp;

template <bool kV1beta2>
Status DecodeFairSharingConfig(MapReader& r, api::FairSharingConfig& out) {
  if constexpr (kV1beta2) {
    KUOTA_RETURN_IF_ERROR(r.Removed(
        "enable", "config.kueue.x-k8s.io/v1beta2 turns fair sharing on by the section's presence"));
    out.enable = true;
  } else {
    KUOTA_RETURN_IF_ERROR(r.Bool("enable", out.enable));
  }
  return r.EnumList<FairSharingStrategy>(
      "preemptionStrategies", out.preemption_strategies,
      {{"LessThanOrEqualToFinalShare", FairSharingStrategy::kLessThanOrEqualToFinalShare},
       {"LessThanInitialShare", FairSharingStrategy::kLessThanInitialShare}});
}

Status DecodeRequeuingStrategy(MapReader& r, api::RequeuingStrategy& out) {
  KUOTA_RETURN_IF_ERROR(r.Enum<RequeuingTimestamp>(
      "timestamp", out.timestamp,
      {{"Eviction", RequeuingTimestamp::kEviction}, {"Creation", RequeuingTimestamp::kCreation}}));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("backoffLimitCount", out.backoff_limit_count));
  KUOTA_RETURN_IF_ERROR(r.Int32("backoffBaseSeconds", out.backoff_base_seconds));
  return r.Int32("backoffMaxSeconds", out.backoff_max_seconds);
}

template <bool kV1beta2>
Status DecodeWaitForPodsReady(MapReader& r, api::WaitForPodsReady& out) {
  if constexpr (kV1beta2) {
    KUOTA_RETURN_IF_ERROR(r.Removed("enable",
                                    "config.kueue.x-k8s.io/v1beta2 turns waitForPodsReady on by "
                                    "the section's presence"));
    out.enable = true;
  } else {
    KUOTA_RETURN_IF_ERROR(r.Bool("enable", out.enable));
  }
  KUOTA_RETURN_IF_ERROR(r.Duration("timeout", out.timeout));
  // Kueue: blockAdmission defaults to the value of enable in v1beta1, to
  // false in v1beta2.
  std::optional<bool> block;
  KUOTA_RETURN_IF_ERROR(r.OptBool("blockAdmission", block));
  out.block_admission = block.value_or(kV1beta2 ? false : out.enable);
  KUOTA_RETURN_IF_ERROR(r.OptDuration("recoveryTimeout", out.recovery_timeout));
  return r.Object("requeuingStrategy", out.requeuing_strategy, DecodeRequeuingStrategy);
}

template <bool kV1beta2>
Status DecodeIntegrations(MapReader& r, api::Integrations& out) {
  std::vector<std::string> frameworks;
  if (r.Has("frameworks")) {
    KUOTA_RETURN_IF_ERROR(r.StringList("frameworks", frameworks));
    out.frameworks = std::move(frameworks);
  }
  // Which pods and which label keys Kueue copies: not used by Kuota.
  if constexpr (!kV1beta2) r.Ignore({"podOptions"});
  r.Ignore({"externalFrameworks", "labelKeysToCopy"});
  return Status::Ok();
}

template <bool kV1beta2>
Status DecodeConfigurationAs(MapReader& r, api::Configuration& out) {
  KUOTA_RETURN_IF_ERROR(
      r.Object("fairSharing", out.fair_sharing, DecodeFairSharingConfig<kV1beta2>));
  KUOTA_RETURN_IF_ERROR(
      r.Object("waitForPodsReady", out.wait_for_pods_ready, DecodeWaitForPodsReady<kV1beta2>));
  KUOTA_RETURN_IF_ERROR(r.Object("integrations", out.integrations, DecodeIntegrations<kV1beta2>));
  KUOTA_RETURN_IF_ERROR(r.Bool("manageJobsWithoutQueueName", out.manage_jobs_without_queue_name));
  // The rest of Kueue's Configuration, including the inlined
  // ControllerManager fields (webhook, leaderElection, metrics, health,
  // pprofBindAddress, controller).
  if constexpr (kV1beta2) {
    r.Ignore({"visibilityServer"});
  } else {
    r.Ignore({"queueVisibility"});
  }
  r.Ignore({"namespace", "managedJobsNamespaceSelector", "internalCertManagement",
            "clientConnection", "multiKueue", "resources", "featureGates",
            "objectRetentionPolicies", "admissionFairSharing", "webhook", "leaderElection",
            "metrics", "health", "pprofBindAddress", "controller"});
  return Status::Ok();
}

}  // namespace

Status DecodeConfiguration(MapReader& r, api::Configuration& out) {
  return DecodeConfigurationAs<false>(r, out);
}

Status DecodeConfigurationV1beta2(MapReader& r, api::Configuration& out) {
  return DecodeConfigurationAs<true>(r, out);
}

}  // namespace kuota::codec
