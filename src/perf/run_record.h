// RunRecord: what a benchmark run observed, as Kueue's runner records it:
// per workload its creation, each span during which it held quota (admission
// to eviction or finish) and its finish; per run its wall time and what the
// control plane cost. Filled by a runner (virtual or real time), then read by
// the statistics and the consistency checks. Times are microseconds since the
// run started. Plain data; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kuota::perf {

// Where a topology-placed workload's pods went (its pod set assignment's
// topologyAssignment): node labels highest first, and per domain one value
// per level and how many pods it takes.
struct PlacedDomain {
  std::vector<std::string> values;
  int32_t pods = 0;
};
struct Placement {
  std::vector<std::string> levels;
  std::vector<PlacedDomain> domains;
};

// One span during which a workload held quota in a ClusterQueue.
struct QuotaHold {
  int32_t queue = -1;        // Plan::queues index it was admitted in (-1: unknown)
  int64_t reserved_us = -1;  // observed: quota reserved
  int64_t admitted_us = -1;  // observed: Admitted=True
  int64_t released_us = -1;  // observed: evicted or finished; -1 while still held
  bool finished = false;     // released by finishing (else by eviction)
  // The same span on the scheduler's own clock (virtual time, or kuotad's
  // condition timestamps), used by the quota check: the order in which a
  // watcher sees writes is not the order in which the scheduler made them.
  int64_t sched_start_us = -1;
  int64_t sched_end_us = -1;           // -1 while still held
  std::optional<Placement> placement;  // with a topology: where its pods went
};

struct WorkloadRecord {
  int64_t created_us = -1;   // first seen (-1: never created)
  int64_t finished_us = -1;  // first seen Finished (-1: never)
  int32_t creations = 0;     // creation events seen (1 when all is well)
  int32_t admissions = 0;    // Admitted false -> true transitions
  int32_t evictions = 0;     // Evicted false -> true transitions
  int32_t finishes = 0;      // Finished false -> true transitions
  // Real time: after it was seen Finished, the server showed it without the
  // Finished condition (a status write that overwrote the runner's), or
  // evicted. Neither should happen; both are reported by the checks.
  bool finish_lost = false;
  int32_t evictions_after_finish = 0;
  // Real time: evictions of an admission the server never showed (it
  // published the eviction but not the admission before it). Counted in
  // `evictions` too, as Kueue's recorder counts them.
  int32_t evictions_unseen_admission = 0;
  std::vector<QuotaHold> holds;
};

// What the kuotad process cost (real time, when kuota perf started it).
struct ServerCost {
  bool measured = false;
  double user_cpu_s = 0;
  double system_cpu_s = 0;
  int64_t max_rss_kib = 0;
};

// kuotad's store writer over the run (real time: its /metrics counters
// kuota_store_*, read after setup and at the end; absent when the server
// does not export them).
struct StoreWriterCost {
  bool measured = false;
  int64_t transactions = 0;  // committed write transactions (group-commit batches)
  int64_t writes = 0;        // writes they carried
  double transaction_s = 0;  // the batch leader's wall time in them
  double commit_s = 0;       // of which COMMIT
  double cpu_s = 0;          // the leader's CPU time in them
};

struct RunRecord {
  std::string mode;               // "virtual" or "real-time"
  std::string server_url;         // real time: the kuotad used
  bool server_started = false;    // real time: kuota perf started that kuotad
  int64_t schedule_start_us = 0;  // when the creation schedule's clock started
  int64_t end_us = 0;             // last finish seen, or when the run stopped
  int64_t wall_us = 0;            // the whole run (setup included), on the run's clock
  double real_s = 0;              // seconds the runner took on this machine's clock
  int64_t setup_us = 0;           // creating flavor, ClusterQueues, namespaces, LocalQueues
  double runner_cpu_s = 0;        // CPU time of kuota perf itself
  bool completed = false;         // every workload finished
  std::string stop_reason;        // why it stopped early (timeout, stuck, ...)
  int64_t cycles = 0;             // virtual: scheduling cycles run
  int64_t watch_events = 0;       // real time: events read from the watch
  int64_t http_requests = 0;      // real time: requests sent
  int64_t finish_conflicts = 0;   // real time: Finished writes that lost a race
  int64_t max_create_lag_us = 0;  // real time: latest a create was sent after its time
  ServerCost server_cost;
  StoreWriterCost store_writer;
  std::vector<WorkloadRecord> workloads;  // Plan::workloads order
  std::vector<std::string> warnings;
};

}  // namespace kuota::perf
