// TransportError: the common failures get plain words; any other httplib
// error keeps httplib's own description.
#include "server/transport_error.h"

#include <gtest/gtest.h>

namespace kuota::server {
namespace {

TEST(TransportErrorTest, CommonFailuresInWords) {
  EXPECT_EQ(TransportError(httplib::Error::Connection), "connection refused");
  EXPECT_EQ(TransportError(httplib::Error::ConnectionTimeout), "connection timed out");
  EXPECT_EQ(TransportError(httplib::Error::Read), "the connection closed before an answer");
  EXPECT_EQ(TransportError(httplib::Error::Write), "cannot send the request");
}

TEST(TransportErrorTest, OthersKeepHttplibsText) {
  EXPECT_EQ(TransportError(httplib::Error::SSLConnection),
            httplib::to_string(httplib::Error::SSLConnection));
  EXPECT_FALSE(TransportError(httplib::Error::SSLConnection).empty());
}

}  // namespace
}  // namespace kuota::server
