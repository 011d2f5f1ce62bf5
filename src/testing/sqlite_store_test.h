// SqliteStoreTest: a gtest fixture holding a real SQLite object store in a
// fresh temporary directory (removed after the test), for tests of code that
// reads and writes the store: controllers, ungaters, recorders. SetUp opens
// it; a test that needs the store on its own clock opens it with OpenStore.
// Test-only; header-only.
#pragma once

#include <memory>
#include <utility>

#include <gtest/gtest.h>

#include "base/clock.h"
#include "store/sqlite_object_store.h"
#include "testing/temp_dir.h"

namespace kuota::testing {

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { OpenStore(nullptr); }
  void TearDown() override { store_.reset(); }

  // Opens store_ at <dir>/kuota.db, with `clock` when not null.
  void OpenStore(const Clock* clock) {
    ASSERT_TRUE(dir_.ok());
    store::StoreOptions options;
    options.path = dir_.File("kuota.db");
    if (clock != nullptr) options.clock = clock;
    auto opened = store::SqliteObjectStore::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
  }

  TempDir dir_{"kuota-store-test"};
  std::unique_ptr<store::SqliteObjectStore> store_;
};

}  // namespace kuota::testing
