#include "jobs/registry.h"

#include "jobs/batch_job.h"

namespace kuota::jobs {

const std::vector<std::unique_ptr<JobKind>>& JobKinds() {
  // Immutable after first use: the explicit list of integrations.
  static const std::vector<std::unique_ptr<JobKind>> kinds = [] {
    std::vector<std::unique_ptr<JobKind>> v;
    v.push_back(std::make_unique<BatchJob>());
    return v;
  }();
  return kinds;
}

const JobKind* FindJobKind(const std::string& resource) {
  for (const auto& k : JobKinds()) {
    if (k->Resource() == resource) return k.get();
  }
  return nullptr;
}

}  // namespace kuota::jobs
