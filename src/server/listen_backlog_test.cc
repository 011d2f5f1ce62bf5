// The server's accept queue must take a burst of clients connecting at once
// (issue 3: with httplib's backlog of 5, 32 clients sometimes lost a request).
#include <array>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/test_server.h"

namespace kuota::server::testing {
namespace {

class ListenBacklogTest : public ServerTest {};

// The listening socket's backlog as the kernel reports it (ss's Send-Q).
int ListenBacklog(int port) {
  const std::string cmd = "ss -ltnH 'sport = :" + std::to_string(port) + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  if (!p) return -1;
  std::array<char, 512> line{};
  if (fgets(line.data(), line.size(), p.get()) == nullptr) return -1;
  char state[32] = {};
  int recv_q = 0, send_q = -1;
  if (std::sscanf(line.data(), "%31s %d %d", state, &recv_q, &send_q) != 3) return -1;
  return send_q;
}

TEST_F(ListenBacklogTest, BacklogIsRaisedPastHttplibsFive) {
  EXPECT_GE(ListenBacklog(port()), 128);
}

TEST_F(ListenBacklogTest, BurstOfClientsAllAnswered) {
  constexpr int kClients = 96;
  std::atomic<int> ok{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&] {
      httplib::Client cli("127.0.0.1", port());
      cli.set_keep_alive(true);
      while (!go) std::this_thread::yield();
      for (int r = 0; r < 3; ++r) {
        auto res = cli.Get("/version");
        if (res && res->status == 200) ++ok;
      }
    });
  }
  go = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kClients * 3);
}

}  // namespace
}  // namespace kuota::server::testing
