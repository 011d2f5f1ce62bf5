#include "server/transport_error.h"

namespace kuota::server {

std::string TransportError(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection:
      return "connection refused";
    case httplib::Error::ConnectionTimeout:
      return "connection timed out";
    case httplib::Error::Read:
      return "the connection closed before an answer";
    case httplib::Error::Write:
      return "cannot send the request";
    default:
      return httplib::to_string(e);
  }
}

}  // namespace kuota::server
