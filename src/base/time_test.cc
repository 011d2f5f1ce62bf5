#include "base/time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "base/clock.h"

namespace kuota {
namespace {

struct TimeCase {
  std::string name;
  std::string text;
  int64_t unix_ms;  // expected when ok
  bool ok;
};

TEST(ParseRfc3339Test, Table) {
  const TimeCase cases[] = {
      {"epoch", "1970-01-01T00:00:00Z", 0, true},
      {"plain utc", "2026-01-01T00:00:00Z", 1767225600000, true},
      {"lower case z and t", "2026-01-01t00:00:00z", 1767225600000, true},
      {"millis", "2026-01-01T00:00:00.123Z", 1767225600123, true},
      {"one fraction digit", "2026-01-01T00:00:00.5Z", 1767225600500, true},
      {"nanos are truncated", "2026-01-01T00:00:00.123456789Z", 1767225600123, true},
      {"positive offset", "2026-01-01T09:00:00+09:00", 1767225600000, true},
      {"negative offset", "2025-12-31T19:00:00-05:00", 1767225600000, true},
      {"leap day", "2024-02-29T00:00:00Z", 1709164800000, true},
      {"before epoch", "1969-12-31T23:59:59Z", -1000, true},
      {"end of day", "2026-01-01T23:59:59Z", 1767311999000, true},
      {"empty", "", 0, false},
      {"date only", "2026-01-01", 0, false},
      {"no zone", "2026-01-01T00:00:00", 0, false},
      {"bad month", "2026-13-01T00:00:00Z", 0, false},
      {"month zero", "2026-00-01T00:00:00Z", 0, false},
      {"day zero", "2026-01-00T00:00:00Z", 0, false},
      {"april 31", "2026-04-31T00:00:00Z", 0, false},
      {"february 30", "2024-02-30T00:00:00Z", 0, false},
      {"february 29 not leap", "2026-02-29T00:00:00Z", 0, false},
      {"february 29 1900", "1900-02-29T00:00:00Z", 0, false},
      {"february 29 2000", "2000-02-29T00:00:00Z", 951782400000, true},
      {"hour 24", "2026-01-01T24:00:00Z", 0, false},
      {"minute 60", "2026-01-01T00:60:00Z", 0, false},
      {"leap second", "2026-01-01T23:59:60Z", 0, false},
      {"offset hour 24", "2026-01-01T00:00:00+24:00", 0, false},
      {"offset minute 60", "2026-01-01T00:00:00+01:60", 0, false},
      {"offset without colon", "2026-01-01T00:00:00+0100", 0, false},
      {"offset truncated", "2026-01-01T00:00:00+01", 0, false},
      {"dot without digits", "2026-01-01T00:00:00.Z", 0, false},
      {"trailing junk", "2026-01-01T00:00:00Zjunk", 0, false},
      {"letters in year", "20x6-01-01T00:00:00Z", 0, false},
      {"wrong separators", "2026/01/01T00:00:00Z", 0, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name + ": " + c.text);
    Result<Time> t = ParseRfc3339(c.text);
    ASSERT_EQ(t.ok(), c.ok) << t.status().ToString();
    if (c.ok) {
      EXPECT_EQ(t->unix_ms, c.unix_ms);
    } else {
      EXPECT_EQ(t.status().code(), StatusCode::kInvalid);
      EXPECT_NE(t.status().message().find("invalid timestamp"), std::string::npos);
    }
  }
}

TEST(ParseRfc3339Test, ErrorTruncatesHugeInput) {
  std::string huge(1 << 20, '9');
  Result<Time> t = ParseRfc3339(huge);
  ASSERT_FALSE(t.ok());
  EXPECT_LT(t.status().message().size(), 200u);
}

TEST(FormatRfc3339Test, Table) {
  const std::pair<int64_t, std::string> cases[] = {
      {0, "1970-01-01T00:00:00Z"},
      {1767225600000, "2026-01-01T00:00:00Z"},
      {1767225600123, "2026-01-01T00:00:00.123Z"},
      {1767225600005, "2026-01-01T00:00:00.005Z"},
      {-1, "1969-12-31T23:59:59.999Z"},
      {-1000, "1969-12-31T23:59:59Z"},
      {-86400000, "1969-12-31T00:00:00Z"},
      {951782400000, "2000-02-29T00:00:00Z"},
  };
  for (const auto& [ms, want] : cases) {
    EXPECT_EQ(FormatRfc3339(Time{ms}), want) << ms;
  }
}

TEST(FormatRfc3339Test, ExtremesDoNotOverflow) {
  // Only checks that formatting is defined (UBSan would flag an overflow).
  EXPECT_FALSE(FormatRfc3339(Time{INT64_MIN}).empty());
  EXPECT_FALSE(FormatRfc3339(Time{INT64_MAX}).empty());
}

TEST(Rfc3339Test, RoundTrip) {
  for (int64_t ms : {int64_t{0}, int64_t{1767225600123}, int64_t{-123456789},
                     int64_t{253402300799000} /* 9999-12-31T23:59:59Z */}) {
    Result<Time> back = ParseRfc3339(FormatRfc3339(Time{ms}));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->unix_ms, ms);
  }
}

TEST(ParseDurationTest, Table) {
  struct DurationCase {
    std::string text;
    int64_t ms;
    bool ok;
  };
  const DurationCase cases[] = {
      {"0", 0, true},
      {"-0", 0, true},
      {"5m", 300'000, true},
      {"1h30m", 5'400'000, true},
      {"10s", 10'000, true},
      {"250ms", 250, true},
      {"1.5h", 5'400'000, true},
      {".5s", 500, true},
      {"2h45m30s", 9'930'000, true},
      {"-5m", -300'000, true},
      {"+5s", 5'000, true},
      {"1000us", 1, true},
      {"1000\u00b5s", 1, true},  // micro sign, as Go writes it
      {"1000\u03bcs", 1, true},  // Greek mu, which Go also accepts
      {"2000000ns", 2, true},
      {"", 0, false},
      {"-", 0, false},
      {"+", 0, false},
      {"5", 0, false},
      {"m", 0, false},
      {"5d", 0, false},
      {"5 m", 0, false},
      {"5m3", 0, false},
      {"1..5s", 0, false},
      {"101y", 0, false},
      {"9999999999999h", 0, false},            // would overflow int64 milliseconds
      {"99999999999999999999999h", 0, false},  // longer still
      {"900000h", 0, false},                   // over the 100-year sanity limit
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    Result<Duration> d = ParseDuration(c.text);
    ASSERT_EQ(d.ok(), c.ok) << (d.ok() ? std::to_string(d->ms) : d.status().ToString());
    if (c.ok) {
      EXPECT_EQ(d->ms, c.ms);
    } else {
      EXPECT_NE(d.status().message().find("invalid duration"), std::string::npos);
    }
  }
}

TEST(FormatAgeTest, Table) {
  const std::pair<int64_t, std::string> cases[] = {
      {-5000, "0s"},        {0, "0s"},           {5'000, "5s"},
      {119'000, "119s"},    {120'000, "2m"},     {3'600'000, "60m"},
      {10'800'000, "3h"},   {86'400'000, "24h"}, {172'800'000, "2d"},
      {864'000'000, "10d"},
  };
  for (const auto& [ms, want] : cases) EXPECT_EQ(FormatAge(Duration{ms}), want) << ms;
}

TEST(ClockTest, ManualClockMovesOnlyWhenTold) {
  ManualClock clock(Time::FromSeconds(100));
  EXPECT_EQ(clock.Now().unix_ms, 100'000);
  clock.Advance(Duration{1'500});
  EXPECT_EQ(clock.Now().unix_ms, 101'500);
  clock.Set(Time::FromMillis(7));
  EXPECT_EQ(clock.Now(), Time{7});
  EXPECT_EQ(Time{10} - Time{3}, Duration{7});
}

TEST(ClockTest, RealClockIsAfter2020) {
  RealClock clock;
  EXPECT_GT(clock.Now().unix_ms, 1577836800000);
}

}  // namespace
}  // namespace kuota
