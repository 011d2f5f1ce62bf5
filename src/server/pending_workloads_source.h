// PendingWorkloadsSource: where Kueue's visibility API (visibility.h) reads
// the pending workloads of a ClusterQueue or LocalQueue, in the order the
// scheduler will consider them. kuotad's controller implements it from the
// engine's queues; the server only formats and pages what it returns.
// Implementations must be thread-safe: the API server calls them from many
// request threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace kuota::server {

// One pending workload as the visibility API reports it.
struct PendingWorkloadInfo {
  std::string ns;                  // the Workload's namespace
  std::string name;                // the Workload's name
  std::string local_queue;         // spec.queueName
  std::string creation_timestamp;  // metadata.creationTimestamp, RFC 3339
  int32_t priority = 0;
  int64_t position_in_cluster_queue = 0;  // from 0, over the whole ClusterQueue
  int64_t position_in_local_queue = 0;    // from 0, over the workload's LocalQueue
  // When it holds its ClusterQueue's backfill reservation with a known start:
  // that instant, RFC 3339 (served as the annotation kuota.dev/expected-start
  // on its metadata, so Kueue's schema is kept); empty otherwise.
  std::string expected_start{};
};

class PendingWorkloadsSource {
 public:
  virtual ~PendingWorkloadsSource() = default;

  // Every pending workload of ClusterQueue `cq`, ordered by position.
  // NotFound when the ClusterQueue is unknown.
  virtual Result<std::vector<PendingWorkloadInfo>> ForClusterQueue(const std::string& cq) = 0;
  // Every pending workload of LocalQueue `ns`/`lq`, ordered by position.
  // NotFound when the LocalQueue is unknown (or points at no ClusterQueue).
  virtual Result<std::vector<PendingWorkloadInfo>> ForLocalQueue(const std::string& ns,
                                                                 const std::string& lq) = 0;
};

}  // namespace kuota::server
