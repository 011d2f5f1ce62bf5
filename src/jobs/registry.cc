#include "jobs/registry.h"

#include "jobs/app_wrapper.h"
#include "jobs/batch_job.h"
#include "jobs/jax_job.h"
#include "jobs/jobset.h"
#include "jobs/leader_worker_set.h"
#include "jobs/mpi_job.h"
#include "jobs/paddle_job.h"
#include "jobs/pytorch_job.h"
#include "jobs/ray_cluster.h"
#include "jobs/ray_job.h"
#include "jobs/ray_service.h"
#include "jobs/spark_application.h"
#include "jobs/tf_job.h"
#include "jobs/train_job.h"
#include "jobs/volcano_job.h"
#include "jobs/xgboost_job.h"

namespace kuota::jobs {

const std::vector<std::unique_ptr<JobKind>>& JobKinds() {
  // Immutable after first use: the explicit list of integrations.
  static const std::vector<std::unique_ptr<JobKind>> kinds = [] {
    std::vector<std::unique_ptr<JobKind>> v;
    v.push_back(std::make_unique<BatchJob>());
    v.push_back(std::make_unique<KubeflowJobKind>(PyTorchJobSpec()));
    v.push_back(std::make_unique<KubeflowJobKind>(TFJobSpec()));
    v.push_back(std::make_unique<KubeflowJobKind>(MPIJobSpec()));
    v.push_back(std::make_unique<KubeflowJobKind>(JAXJobSpec()));
    v.push_back(std::make_unique<KubeflowJobKind>(PaddleJobSpec()));
    v.push_back(std::make_unique<KubeflowJobKind>(XGBoostJobSpec()));
    v.push_back(std::make_unique<RayJobKind>());
    v.push_back(std::make_unique<RayClusterKind>());
    v.push_back(std::make_unique<RayServiceKind>());
    v.push_back(std::make_unique<JobSetKind>());
    v.push_back(std::make_unique<VolcanoJobKind>());
    v.push_back(std::make_unique<TrainJobKind>());
    v.push_back(std::make_unique<LeaderWorkerSetKind>());
    v.push_back(std::make_unique<AppWrapperKind>());
    v.push_back(std::make_unique<SparkApplicationKind>());
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

const GroupJobKind* FindGroupJobKind(const std::string& resource) {
  return dynamic_cast<const GroupJobKind*>(FindJobKind(resource));
}

const JobKind* FindFramework(const std::string& framework) {
  for (const auto& k : JobKinds()) {
    if (k->Framework() == framework) return k.get();
  }
  return nullptr;
}

}  // namespace kuota::jobs
