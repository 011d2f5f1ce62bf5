// Decoder of Kueue's manager Configuration (config.kueue.x-k8s.io/v1beta1):
// fairSharing, waitForPodsReady, integrations.frameworks and
// manageJobsWithoutQueueName are decoded with Kueue's defaults
// (SetDefaults_Configuration); the other real top-level sections are
// accepted and ignored.
#include "api/codec/decoders.h"

namespace kuota::codec {
namespace {

using api::FairSharingStrategy;
using api::RequeuingTimestamp;

Status DecodeFairSharingConfig(MapReader& r, api::FairSharingConfig& out) {
  KUOTA_RETURN_IF_ERROR(r.Bool("enable", out.enable));
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

Status DecodeWaitForPodsReady(MapReader& r, api::WaitForPodsReady& out) {
  KUOTA_RETURN_IF_ERROR(r.Bool("enable", out.enable));
  KUOTA_RETURN_IF_ERROR(r.Duration("timeout", out.timeout));
  // Kueue: blockAdmission defaults to the value of enable.
  std::optional<bool> block;
  KUOTA_RETURN_IF_ERROR(r.OptBool("blockAdmission", block));
  out.block_admission = block.value_or(out.enable);
  KUOTA_RETURN_IF_ERROR(r.OptDuration("recoveryTimeout", out.recovery_timeout));
  return r.Object("requeuingStrategy", out.requeuing_strategy, DecodeRequeuingStrategy);
}

Status DecodeIntegrations(MapReader& r, api::Integrations& out) {
  std::vector<std::string> frameworks;
  if (r.Has("frameworks")) {
    KUOTA_RETURN_IF_ERROR(r.StringList("frameworks", frameworks));
    out.frameworks = std::move(frameworks);
  }
  // Which pods and which label keys Kueue copies: not used by Kuota.
  r.Ignore({"externalFrameworks", "podOptions", "labelKeysToCopy"});
  return Status::Ok();
}

}  // namespace

Status DecodeConfiguration(MapReader& r, api::Configuration& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("fairSharing", out.fair_sharing, DecodeFairSharingConfig));
  KUOTA_RETURN_IF_ERROR(
      r.Object("waitForPodsReady", out.wait_for_pods_ready, DecodeWaitForPodsReady));
  KUOTA_RETURN_IF_ERROR(r.Object("integrations", out.integrations, DecodeIntegrations));
  KUOTA_RETURN_IF_ERROR(r.Bool("manageJobsWithoutQueueName", out.manage_jobs_without_queue_name));
  // The rest of Kueue's Configuration, including the inlined
  // ControllerManager fields (webhook, leaderElection, metrics, health,
  // pprofBindAddress, controller).
  r.Ignore({"namespace", "managedJobsNamespaceSelector", "internalCertManagement",
            "clientConnection", "queueVisibility", "multiKueue", "resources", "featureGates",
            "objectRetentionPolicies", "admissionFairSharing", "webhook", "leaderElection",
            "metrics", "health", "pprofBindAddress", "controller"});
  return Status::Ok();
}

}  // namespace kuota::codec
