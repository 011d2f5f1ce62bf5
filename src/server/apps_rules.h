// AppsRules: what kube-apiserver does to an apps/v1 Deployment, StatefulSet
// or ReplicaSet on create and update before storing it: its defaults
// (replicas 1, the update strategy, revisionHistoryLimit, a Deployment's
// progressDeadlineSeconds, a StatefulSet's podManagementPolicy and PVC
// retention policy, the template's restartPolicy Always) and its validation
// with kube's field paths: a selector that is required, non-empty and matches
// the template's labels, replicas >= 0, a template with containers and
// restartPolicy Always, the selector immutable, and a StatefulSet's spec
// changing only where kube lets it. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/resource_info.h"

namespace kuota::server {

// True for the apps/v1 kinds PrepareAppsObject handles.
bool IsAppsWorkloadKind(const ResourceInfo& resource);

// Defaults and validates `object`; `old_object` is the stored object on
// update, nullptr on create. Invalid errors name the field
// ("spec.template.metadata.labels: Invalid value: ...: `selector` does not
// match template `labels`").
Status PrepareAppsObject(const ResourceInfo& resource, const nlohmann::json* old_object,
                         nlohmann::json& object);

}  // namespace kuota::server
