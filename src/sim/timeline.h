// Timeline: the parts of a what-if file that go beyond Kueue's objects: the
// cluster's Nodes (`v1` Node: labels, taints, allocatable), on which admitted
// workloads' pods are placed, and the time steps (`conformance/v1` Step) that
// change the world at given instants (pods ready, admission check states,
// stopPolicy, workloads finishing). See docs/scenario-format.md.
// Stateless decoding; the values are plain structs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_queue.h"
#include "api/object_meta.h"
#include "api/pod_spec.h"
#include "base/result.h"
#include "base/time.h"

namespace kuota::sim {

// A Node, as far as pod placement needs it.
struct SimNode {
  std::string name;
  api::Labels labels;
  std::vector<api::Taint> taints;
  api::ResourceList allocatable;  // status.allocatable
};

// One time step. Workloads are named "namespace/name".
struct Step {
  Time at;
  // Scheduling cycles to run after the step; 0 (the default) runs until a
  // cycle changes nothing.
  int cycles = 0;
  std::vector<std::string> pods_ready;  // PodsReady=True
  std::vector<std::string> finished;    // Finished: quota released
  // workload -> check name -> Pending | Ready | Retry | Rejected, applied in
  // the order written.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>
      admission_checks;
  std::map<std::string, api::StopPolicy> cluster_queue_stop_policy;  // by name
  std::map<std::string, api::StopPolicy> local_queue_stop_policy;    // "ns/name"
  // Where the step was written, for error messages: "document 9 (Step, line 40)".
  std::string where;
};

struct Timeline {
  std::vector<SimNode> nodes;
  std::vector<Step> steps;  // in the order written, which is time order
};

// The apiVersion/kind keys of the documents DecodeTimeline reads, for
// codec::DecodeOptions::skip_kinds.
inline constexpr std::string_view kNodeKind = "v1/Node";
inline constexpr std::string_view kStepKind = "conformance/v1/Step";

// Reads the Node and Step documents of a multi-document stream (other
// documents are left to the codec). Errors name the document, its line and
// the field, e.g. `document 9 (Step, line 40): at: ...`. Steps must be
// written in time order; a step's `expect` block is for checkers and ignored.
Result<Timeline> DecodeTimeline(std::string_view text);

}  // namespace kuota::sim
