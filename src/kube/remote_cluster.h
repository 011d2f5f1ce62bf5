// OpenRemoteCluster: the RemoteClusterFactory both drivers give the
// MultiKueue controller (control/multikueue_remote.h): a worker reached
// through a kubeconfig's current context, with Kueue's rules for the
// kubeconfigs MultiKueue accepts (the CA inline, no insecure TLS, no file
// paths: a kubeconfig from a Secret must not read the manager's files).
// The worker's store is a KubeObjectStore over its own KubeClient; the probe
// is a SelfSubjectReview, which any authenticated identity may make.
// Thread-safe as KubeClient is.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "control/multikueue_remote.h"

namespace kuota::kube {

Result<std::unique_ptr<control::RemoteCluster>> OpenRemoteCluster(const std::string& kubeconfig);

}  // namespace kuota::kube
