// SetDefaultThreadStackSize: threads started afterwards get the stack asked for.
#include "base/thread_stack.h"

#include <pthread.h>

#include <thread>

#include <gtest/gtest.h>

namespace kuota {
namespace {

size_t CurrentThreadStack() {
  pthread_attr_t attr;
  size_t bytes = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstacksize(&attr, &bytes);
    pthread_attr_destroy(&attr);
  }
  return bytes;
}

TEST(ThreadStackTest, LaterThreadsGetTheStackAskedFor) {
  const size_t before = DefaultThreadStackSize();
  ASSERT_TRUE(SetDefaultThreadStackSize(48u << 20).ok());
  EXPECT_EQ(DefaultThreadStackSize(), 48u << 20);
  size_t seen = 0;
  std::thread([&] { seen = CurrentThreadStack(); }).join();
  EXPECT_GE(seen, 48u << 20);
  ASSERT_TRUE(SetDefaultThreadStackSize(before).ok());
}

TEST(ThreadStackTest, ATooSmallStackIsRefusedWithTheReason) {
  Status st = SetDefaultThreadStackSize(1);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("a thread stack of 1 bytes"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace kuota
