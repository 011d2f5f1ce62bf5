// The Kubernetes metadata rules the store applies on write, as kube-apiserver
// does: reading an object's key fields, uids and generateName suffixes,
// when metadata.generation is bumped, and the API error messages
// (AlreadyExists, NotFound, Conflict). Pure functions; thread-safe, except
// that a random engine passed in must not be shared between threads.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/time.h"

namespace kuota::store {

// The metadata fields the store reads from a written object.
struct ObjectMetaFields {
  std::string ns;
  std::string name;
  std::string generate_name;
  std::string resource_version;  // empty: unconditional
  std::string uid;
};

// Checks that `object` is a JSON object whose metadata (when present) is an
// object and whose key fields are strings; Invalid names the field path.
Result<ObjectMetaFields> ReadMetaFields(const nlohmann::json& object);

// Removes metadata key fields that are JSON null (as if absent), so the
// stored object reads the way ReadMetaFields read it.
void DropNullMetaFields(nlohmann::json& object);

// A random RFC 4122 version 4 UUID in its 36-character text form.
std::string NewUid(std::mt19937_64& rng);
// Five characters from "bcdfghjklmnpqrstvwxz2456789", as generateName uses.
std::string GenerateNameSuffix(std::mt19937_64& rng);

// A timestamp as Kubernetes writes metadata times: RFC 3339, whole seconds.
std::string MetadataTimestamp(Time t);

// True when an update from `stored` to `next` bumps metadata.generation:
// .spec changed or, for kinds without one, anything but metadata and status.
bool GenerationChanges(const nlohmann::json& stored, const nlohmann::json& next);

// metadata.finalizers as strings (empty when absent).
std::vector<std::string> Finalizers(const nlohmann::json& object);

// Serializes for storage; Invalid when a string is not valid UTF-8.
Result<std::string> DumpObject(const nlohmann::json& object);

// Parses a resourceVersion string; Invalid when it is not a number.
Result<int64_t> ParseResourceVersion(std::string_view text, std::string_view field);

// kube-apiserver's messages, e.g. `clusterqueues.kueue.x-k8s.io "cq" not found`.
Status AlreadyExistsError(std::string_view resource, std::string_view name);
Status NotFoundError(std::string_view resource, std::string_view name);
Status ModifiedConflictError(std::string_view resource, std::string_view name);
// `what` is "UID" or "ResourceVersion".
Status PreconditionConflictError(std::string_view resource, std::string_view name,
                                 std::string_view what, std::string_view wanted,
                                 std::string_view actual);

}  // namespace kuota::store
