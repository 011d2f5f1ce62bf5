// kill -9 in the middle of a burst of writes loses no acknowledged write.
#include "store/object_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "store/store_test_env.h"

namespace kuota::store {
namespace {

// Child process: writes from several threads until killed, reporting every
// acknowledged write on `fd` as "C|U <name> <rv>\n" (one write(2) each, so
// lines from different threads never interleave).
[[noreturn]] void WriteUntilKilled(const std::string& path, int round, int fd) {
  StoreOptions options;
  options.path = path;
  options.sync = true;
  auto opened = ObjectStore::Open(options);
  if (!opened.ok()) {
    std::fprintf(stderr, "child: %s\n", opened.status().ToString().c_str());
    _exit(2);
  }
  std::unique_ptr<ObjectStore> store = std::move(opened).value();
  auto report = [fd](char kind, const std::string& name, int64_t rv) {
    char line[128];
    int n = std::snprintf(line, sizeof line, "%c %s %lld\n", kind, name.c_str(),
                          static_cast<long long>(rv));
    if (write(fd, line, static_cast<size_t>(n)) != n) _exit(3);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0;; ++i) {
        std::string name =
            "r" + std::to_string(round) + "-t" + std::to_string(t) + "-" + std::to_string(i);
        auto created = store->Create(kConfigMaps, ConfigMap("crash", name, {{"v", "0"}}));
        if (!created.ok()) _exit(4);
        report('C', name, Rv(*created));
        if (i % 2 == 0) {
          Json cm = *created;
          cm["data"]["v"] = "1";
          auto updated = store->Update(kConfigMaps, cm);
          if (!updated.ok()) _exit(5);
          report('U', name, Rv(*updated));
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  _exit(0);
}

class CrashTest : public testing::StoreTest {};

TEST_F(CrashTest, AcknowledgedWritesSurviveKill9) {
  int64_t max_acked_overall = 0;
  size_t acked_overall = 0;
  for (int round = 0; round < 3; ++round) {
    // Let it get going, then kill it in the middle of the burst. Whatever it
    // acknowledged before it died is still in the pipe.
    const size_t kill_after = 150 + 100 * static_cast<size_t>(round);
    std::string data;
    ASSERT_NO_FATAL_FAILURE(testing::KillWriterAfter(
        kill_after, [&](int fd) { WriteUntilKilled(Path(), round, fd); }, data));

    std::map<std::string, std::pair<int64_t, bool>> acked;  // name -> (rv, updated)
    int64_t max_acked = 0;
    std::istringstream in(data);
    std::string line;
    while (std::getline(in, line)) {
      char kind;
      std::string name;
      int64_t rv;
      std::istringstream fields(line);
      ASSERT_TRUE(fields >> kind >> name >> rv) << "torn line: " << line;
      auto& entry = acked[name];
      entry.first = std::max(entry.first, rv);
      entry.second = entry.second || kind == 'U';
      max_acked = std::max(max_acked, rv);
    }
    ASSERT_GE(acked.size(), kill_after / 2);

    OpenStore();
    for (const auto& [name, entry] : acked) {
      Result<Json> got = store_->Get(kConfigMaps, "crash", name);
      ASSERT_TRUE(got.ok()) << "round " << round << ": lost acknowledged " << name << ": "
                            << got.status().ToString();
      EXPECT_GE(Rv(*got), entry.first) << name;
      if (entry.second) {
        EXPECT_EQ((*got)["data"]["v"], "1") << "lost the update of " << name;
      }
    }
    EXPECT_GE(store_->CurrentResourceVersion(), max_acked);
    EXPECT_GT(max_acked, max_acked_overall);
    Json next = MustCreate(kConfigMaps, ConfigMap("crash", "after-round-" + std::to_string(round)));
    EXPECT_GT(Rv(next), max_acked);
    // The log and the objects agree: every stored object's version has its event.
    auto w = store_->Watch(kConfigMaps, "crash", max_acked_overall);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    max_acked_overall = max_acked;
    acked_overall += acked.size();
    store_.reset();
  }
  OpenStore();
  Result<ListResult> all = store_->List(kConfigMaps, {});
  ASSERT_TRUE(all.ok());
  EXPECT_GE(all->items.size(), acked_overall + 3);
}

}  // namespace
}  // namespace kuota::store
