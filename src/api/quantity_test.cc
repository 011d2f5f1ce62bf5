#include "api/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace kuota::api {
namespace {

struct ParseCase {
  std::string text;
  int64_t milli;  // expected when ok
  bool ok;
};

TEST(QuantityParseTest, Table) {
  const ParseCase cases[] = {
      // Plain numbers.
      {"0", 0, true},
      {"1", 1000, true},
      {"10", 10'000, true},
      {"+3", 3000, true},
      {"-3", -3000, true},
      {"-0", 0, true},
      {"0.5", 500, true},
      {".5", 500, true},
      {"5.", 5000, true},
      {"1.0", 1000, true},
      {"000001", 1000, true},
      // Decimal suffixes.
      {"500m", 500, true},
      {"1m", 1, true},
      {"1k", 1'000'000, true},
      {"2M", 2'000'000'000, true},
      {"1G", 1'000'000'000'000, true},
      {"1T", 1'000'000'000'000'000, true},
      {"1P", 1'000'000'000'000'000'000, true},
      {"1500u", 2, true},  // 1.5m rounds up
      {"1000u", 1, true},
      {"1n", 1, true},  // sub-milli rounds up
      {"0.1m", 1, true},
      {"-0.1m", -1, true},  // rounds away from zero, as Kubernetes does
      // Binary suffixes.
      {"1Ki", 1024'000, true},
      {"1Mi", 1'048'576'000, true},
      {"10Gi", 10'737'418'240'000, true},
      {"1.5Gi", 1'610'612'736'000, true},
      {"1Ti", 1'099'511'627'776'000, true},
      {"1Pi", 1'125'899'906'842'624'000, true},
      {"-1Gi", -1'073'741'824'000, true},
      // Exponents.
      {"2e3", 2'000'000, true},
      {"2E3", 2'000'000, true},
      {"1e-3", 1, true},
      {"1.5e+2", 150'000, true},
      {"1e-1000", 1, true},
      {"0e1000", 0, true},
      // Up to INT64_MAX - 1 milli-units exactly; beyond, Kubernetes still
      // accepts the quantity and it saturates to INT64_MAX ("Inf").
      {"4611686018427387905m", (int64_t{1} << 62) + 1, true},
      {"9223372036854775806m", INT64_MAX - 1, true},
      {"9223372036854775807m", INT64_MAX, true},
      {"9223372036854775808m", INT64_MAX, true},
      {"1E", INT64_MAX, true},  // 10^18 units = 10^21 milli-units
      {"1Ei", INT64_MAX, true},
      {"8Ei", INT64_MAX, true},
      {"-8Ei", -INT64_MAX, true},
      {"5e15", 5'000'000'000'000'000'000, true},
      {"1e30", INT64_MAX, true},
      {"1e1000", INT64_MAX, true},
      {"99999999999999999999999999999999999999999999", INT64_MAX, true},
      // More digits than are kept: a dropped non-zero digit still rounds up.
      {"1." + std::string(35, '0') + "1", 1001, true},
      {"1." + std::string(35, '0'), 1000, true},
      {"0." + std::string(40, '0') + "5", 1, true},
      // Malformed.
      {"", 0, false},
      {"+", 0, false},
      {"-", 0, false},
      {".", 0, false},
      {"10x", 0, false},
      {"1K", 0, false},
      {"1ki", 0, false},
      {"1.5.5", 0, false},
      {"1e", 0, false},
      {"1e+", 0, false},
      {"1e3m", 0, false},
      {"1e1001", 0, false},
      {" 1", 0, false},
      {"1 ", 0, false},
      {"Gi", 0, false},
      {"0x10", 0, false},
      {"1,5", 0, false},
      {"--1", 0, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("\"" + c.text + "\"");
    Result<Quantity> q = Quantity::Parse(c.text);
    ASSERT_EQ(q.ok(), c.ok) << (q.ok() ? std::to_string(q->milli()) : q.status().ToString());
    if (c.ok) {
      EXPECT_EQ(q->milli(), c.milli);
    } else {
      EXPECT_EQ(q.status().code(), StatusCode::kInvalid);
      EXPECT_EQ(q.status().message().rfind("invalid quantity \"", 0), 0u) << q.status().message();
    }
  }
}

TEST(QuantityParseTest, SaturatedValues) {
  EXPECT_TRUE(Quantity::Parse("1E")->saturated());
  EXPECT_TRUE(Quantity::Parse("-1E")->saturated());
  EXPECT_FALSE(Quantity::Parse("9223372036854775806m")->saturated());
  EXPECT_EQ(Quantity::Parse("8Ei")->ToString(true), "Inf");
  EXPECT_TRUE((Quantity::FromMilli(Quantity::kMaxMilli) + Quantity::FromMilli(1)).saturated());
}

TEST(QuantityParseTest, LongInputIsRefusedAndTruncatedInMessage) {
  std::string long_text(100'000, '1');
  Result<Quantity> q = Quantity::Parse(long_text);
  ASSERT_FALSE(q.ok());
  EXPECT_LT(q.status().message().size(), 200u);
  EXPECT_NE(q.status().message().find("too long"), std::string::npos);
}

TEST(QuantityParseTest, MessageNamesTheSuffix) {
  Result<Quantity> q = Quantity::Parse("10x");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().message().rfind("invalid quantity \"10x\": unknown suffix \"x\"", 0), 0u)
      << q.status().message();
}

TEST(QuantityFormatTest, Table) {
  struct Case {
    int64_t milli;
    bool binary;
    std::string want;
  };
  const Case cases[] = {
      {0, false, "0"},
      {500, false, "500m"},
      {1500, false, "1500m"},
      {2000, false, "2"},
      {-2000, false, "-2"},
      {-1500, false, "-1500m"},
      {1024'000, false, "1024"},
      {1024'000, true, "1Ki"},
      {1'048'576'000, true, "1Mi"},
      {1'610'612'736'000, true, "1536Mi"},
      {10'737'418'240'000, true, "10Gi"},
      {-1'073'741'824'000, true, "-1Gi"},
      {1000, true, "1"},
      {1500, true, "1500m"},
      {INT64_MAX, false, "Inf"},
      {INT64_MAX, true, "Inf"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Quantity::FromMilli(c.milli).ToString(c.binary), c.want) << c.milli;
  }
}

TEST(QuantityFormatTest, RoundTrip) {
  for (const char* text : {"0", "500m", "2", "1Ki", "10Gi", "1536Mi", "-3"}) {
    Result<Quantity> q = Quantity::Parse(text);
    ASSERT_TRUE(q.ok()) << text;
    bool binary = std::string(text).find('i') != std::string::npos;
    EXPECT_EQ(q->ToString(binary), text);
  }
}

TEST(QuantityTest, UnitsCeil) {
  const std::pair<int64_t, int64_t> cases[] = {
      {0, 0}, {1, 1}, {999, 1}, {1000, 1}, {1001, 2}, {-1, 0}, {-1000, -1}, {-1500, -1},
  };
  for (const auto& [milli, want] : cases) {
    EXPECT_EQ(Quantity::FromMilli(milli).units_ceil(), want) << milli;
  }
}

TEST(QuantityTest, ArithmeticSaturates) {
  const Quantity max = Quantity::FromMilli(INT64_MAX);
  const Quantity min = Quantity::FromMilli(INT64_MIN);
  const Quantity one = Quantity::FromMilli(1);
  EXPECT_EQ((max + one).milli(), INT64_MAX);
  EXPECT_EQ((min - one).milli(), INT64_MIN);
  EXPECT_EQ((min + min).milli(), INT64_MIN);
  EXPECT_EQ((max - min).milli(), INT64_MAX);  // negating min would overflow
  EXPECT_EQ((Quantity() - min).milli(), INT64_MAX);
  EXPECT_EQ((min - min).milli(), 0);
  EXPECT_EQ((max * 2).milli(), INT64_MAX);
  EXPECT_EQ((max * -2).milli(), INT64_MIN);
  EXPECT_EQ((min * -1).milli(), INT64_MAX);
  EXPECT_EQ((min * 2).milli(), INT64_MIN);
  EXPECT_EQ((Quantity::FromMilli(3) * 4).milli(), 12);

  Quantity q = Quantity::FromMilli(5);
  q -= min;
  EXPECT_EQ(q.milli(), INT64_MAX);
  q += one;
  EXPECT_EQ(q.milli(), INT64_MAX);
  q = Quantity::FromMilli(-5);
  q -= max;
  EXPECT_EQ(q.milli(), INT64_MIN);
  q = Quantity::FromMilli(7);
  q -= Quantity::FromMilli(2);
  q += Quantity::FromMilli(10);
  EXPECT_EQ(q.milli(), 15);

  EXPECT_EQ(Quantity::FromUnits(INT64_MAX / 10).milli(), INT64_MAX);
  EXPECT_EQ(Quantity::FromUnits(-INT64_MAX / 10).milli(), INT64_MIN);
  EXPECT_EQ(Quantity::FromUnits(4).milli(), 4000);
}

TEST(QuantityTest, ComparisonAndZero) {
  EXPECT_LT(Quantity::FromMilli(1), Quantity::FromMilli(2));
  EXPECT_EQ(Quantity::FromUnits(1), Quantity::FromMilli(1000));
  EXPECT_TRUE(Quantity().is_zero());
  EXPECT_FALSE(Quantity::FromMilli(-1).is_zero());
}

TEST(QuantityTest, IsBinaryResource) {
  EXPECT_TRUE(IsBinaryResource("memory"));
  EXPECT_TRUE(IsBinaryResource("ephemeral-storage"));
  EXPECT_TRUE(IsBinaryResource("storage"));
  EXPECT_TRUE(IsBinaryResource("hugepages-2Mi"));
  EXPECT_FALSE(IsBinaryResource("cpu"));
  EXPECT_FALSE(IsBinaryResource("nvidia.com/gpu"));
  EXPECT_FALSE(IsBinaryResource(""));
}

}  // namespace
}  // namespace kuota::api
