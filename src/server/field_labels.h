// Field labels: which fields each kind may be selected by (fieldSelector on
// list, watch and deletecollection), as kube-apiserver allows them —
// metadata.name and metadata.namespace for every kind, plus each built-in
// kind's own (a Pod's status.phase, an Event's involvedObject.*, a Secret's
// type, ...). Any other field is refused with 400 "field label not
// supported", as kube does.
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/resource_info.h"

namespace kuota::server {

// A message naming the first field of `selector` (fieldSelector syntax) that
// `resource` cannot be selected by, or the term that cannot be read; nullopt
// when every field is supported.
std::optional<std::string> CheckFieldSelector(const ResourceInfo& resource,
                                              std::string_view selector);

}  // namespace kuota::server
