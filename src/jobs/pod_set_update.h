// The pod template metadata part of a job's placement: the labels and
// annotations admission checks' podSetUpdates ask for (Kueue's
// PodSetUpdate, e.g. the provisioning check's
// autoscaling.x-k8s.io/consume-provisioning-request), put on a pod set's
// template when its job starts and taken off when it stops, as the flavors'
// nodeSelector and tolerations are (kOriginalPlacementAnnotation keeps what
// was there). Pure functions over JSON; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "jobs/job_kind.h"

namespace kuota::jobs {

// Adds `p`'s labels and annotations to the template `tmpl` ({metadata,
// spec}); when `p` has any, records the template's labels and annotations
// as they were in `saved` ("labels", "annotations": the map, or null when
// absent) for RestoreTemplateMetadata.
void ApplyTemplateMetadata(nlohmann::json& tmpl, const PodSetPlacement& p, nlohmann::json& saved);

// Puts back the labels and annotations `saved` recorded (none recorded:
// nothing changes).
void RestoreTemplateMetadata(nlohmann::json& tmpl, const nlohmann::json& saved);

// Adds `p`'s labels and annotations to an object's own metadata (a plain
// pod being ungated).
void ApplyObjectMetadata(nlohmann::json& object, const PodSetPlacement& p);

}  // namespace kuota::jobs
