#include "kube/subject_access_review.h"

namespace kuota::kube {
namespace {

constexpr auto kReviewTtl = std::chrono::seconds(10);
constexpr size_t kMaxCachedReviews = 4096;

}  // namespace

Result<bool> SubjectAccessReviewer::Allowed(const auth::UserInfo& user,
                                            const nlohmann::json& resource_attributes) {
  if (user.IsAdmin()) return true;
  nlohmann::json spec = {
      {"user", user.name}, {"groups", user.groups}, {"resourceAttributes", resource_attributes}};
  const std::string key = spec.dump();
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end() && it->second.until > now) return it->second.allowed;
  }
  nlohmann::json review = {
      {"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
  KUOTA_ASSIGN_OR_RETURN(
      nlohmann::json answer,
      client_.Request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", &review));
  const nlohmann::json status = answer.value("status", nlohmann::json::object());
  const bool allowed = status.is_object() && status.value("allowed", false) == true;
  std::lock_guard lock(mu_);
  if (cache_.size() >= kMaxCachedReviews) cache_.clear();
  cache_[key] = Entry{allowed, now + kReviewTtl};
  return allowed;
}

}  // namespace kuota::kube
