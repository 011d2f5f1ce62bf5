// WatchEncoder: turns store events into watch stream lines
// ({"type":"ADDED","object":{...}}\n), applying label/field selectors as kube
// does (stops matching: DELETED; starts matching: ADDED) and printing one-row
// Tables for Table watches. Not thread-safe: one encoder per watch.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "server/crd_webhook_conversion.h"
#include "server/resource_info.h"
#include "server/status_errors.h"
#include "server/table_printer.h"
#include "store/list_field_selector.h"
#include "store/list_label_selector.h"
#include "store/object_store.h"

namespace kuota::server {

struct WatchEncoderOptions {
  store::ListLabelSelector labels;                   // empty: everything
  store::ListFieldSelector fields;                   // empty: everything
  bool table = false;                                // objects as meta.k8s.io/v1 Tables
  IncludeObject include = IncludeObject::kMetadata;  // for Table rows
  // Conversion webhooks of applied CRDs (kuotad --serve-only); null: none.
  // An object the webhook cannot convert becomes an ERROR event (500).
  const CrdWebhookConversion* webhooks = nullptr;
};

class WatchEncoder {
 public:
  // `resource` and `clock` must outlive the encoder.
  WatchEncoder(const ResourceInfo& resource, const Clock& clock, WatchEncoderOptions options);

  // True when `object` passes the selectors.
  bool Matches(const nlohmann::json& object) const;
  // Records that `object` matched when the watch began (a resumed watch's
  // starting state), so a later change that stops matching is sent as DELETED.
  void Seed(const nlohmann::json& object);
  // The ADDED line for an object of the initial state (the caller sends
  // only objects that match).
  std::string Added(const nlohmann::json& object);
  // True when this watch sends objects as the store keeps them (no
  // selectors, no Table, no storage version), so AppendTextLine may be used
  // instead of Added and Translate sends an event's stored text.
  bool CopiesStoredText() const {
    return !filtered_ && !options_.table && resource_.storage_version.empty();
  }
  // Appends the line Line(type, object) writes for an object given as its
  // stored JSON text (the output of nlohmann::json::dump) to `out`, without
  // parsing it. Only when CopiesStoredText().
  static void AppendTextLine(std::string_view type, std::string_view object_json, std::string* out);
  // The line for a store event, or "" when this watch does not see it.
  std::string Translate(const store::WatchEvent& event);
  // A BOOKMARK line at `resource_version`; `initial_events_end` adds the
  // k8s.io/initial-events-end annotation (after sendInitialEvents).
  std::string Bookmark(int64_t resource_version, bool initial_events_end) const;
  // An ERROR line carrying `error` as a Status (e.g. 410 Expired).
  static std::string Error(const ApiError& error);
  // An ERROR line carrying `status`, a meta/v1 Status object.
  static std::string ErrorStatus(const nlohmann::json& status);

 private:
  std::string Line(const char* type, const nlohmann::json& object);
  static std::string Key(const nlohmann::json& object);

  const ResourceInfo& resource_;
  const Clock& clock_;
  WatchEncoderOptions options_;
  bool filtered_;
  std::set<std::string> matching_;  // namespace/name of objects the client holds
  bool sent_columns_ = false;
};

}  // namespace kuota::server
