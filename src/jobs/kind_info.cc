#include "jobs/kind_info.h"

#include <cctype>
#include <utility>

namespace kuota::jobs {

KindInfo CrdKindInfo(const std::string& group, const std::string& version, const std::string& kind,
                     const std::string& workload_prefix, KindExtras extras) {
  KindInfo i;
  i.group = group;
  i.version = version;
  i.kind = kind;
  for (char c : kind) i.singular += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  i.plural = i.singular + "s";
  i.framework = group + "/" + i.singular;
  i.short_names = std::move(extras.short_names);
  i.categories = std::move(extras.categories);
  i.workload_prefix = workload_prefix;
  i.columns = std::move(extras.columns);
  i.scale = std::move(extras.scale);
  return i;
}

}  // namespace kuota::jobs
