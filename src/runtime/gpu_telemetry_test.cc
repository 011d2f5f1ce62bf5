#include "runtime/gpu_telemetry.h"

#include <gtest/gtest.h>

#include "runtime/gpu_allocator.h"

namespace kuota::runtime {
namespace {

TEST(GpuTelemetryTest, FakeGpusReportEveryFieldAndTheReadingsMove) {
  FakeGpuTelemetry fake(3);
  Result<std::vector<GpuSample>> first = fake.Sample();
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 3u);
  EXPECT_EQ((*first)[2].index, 2);
  EXPECT_EQ((*first)[2].uuid, "GPU-fake-2");
  EXPECT_EQ((*first)[2].model, "Kuota Fake GPU");
  for (const GpuSample& s : *first) {
    EXPECT_GE(s.utilization_percent, 0);
    EXPECT_LE(s.utilization_percent, 100);
    EXPECT_GT(s.memory_free_mib, 0);
    EXPECT_TRUE(s.tensor_active.has_value());
    EXPECT_TRUE(s.sm_active.has_value());
  }
  Result<std::vector<GpuSample>> second = fake.Sample();
  ASSERT_TRUE(second.ok());
  EXPECT_NE((*first)[0].utilization_percent, (*second)[0].utilization_percent);
}

TEST(GpuTelemetryTest, NvmlMissingIsAClearError) {
  auto nvml = NvmlTelemetry::Load("libkuota-no-such-nvml.so.1");
  ASSERT_FALSE(nvml.ok());
  EXPECT_EQ(nvml.status().message(), "NVML not found (libkuota-no-such-nvml.so.1)");
  auto wrong = NvmlTelemetry::Load("libc.so.6");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "NVML library libc.so.6 lacks nvmlInit_v2");
}

TEST(GpuTelemetryTest, AllocatorReportsWhoHoldsWhichGpu) {
  GpuAllocator gpus({0, 1, 2, 3});
  ASSERT_TRUE(gpus.Allocate("pod-a", 2).ok());
  ASSERT_TRUE(gpus.Allocate("pod-b", 1).ok());
  const std::map<int, std::string> want = {{0, "pod-a"}, {1, "pod-a"}, {2, "pod-b"}};
  EXPECT_EQ(gpus.Holders(), want);
  gpus.Release("pod-a");
  EXPECT_EQ(gpus.Holders(), (std::map<int, std::string>{{2, "pod-b"}}));
}

}  // namespace
}  // namespace kuota::runtime
