#include "api/codec/map_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace kuota::codec {
namespace {

// Parses `text` and keeps the document alive for the test.
class MapReaderTest : public ::testing::Test {
 protected:
  const YamlNode& Parse(std::string_view text) {
    stream_ = std::make_unique<YamlStream>(text);
    Result<std::unique_ptr<YamlDocument>> doc = stream_->Next();
    EXPECT_TRUE(doc.ok()) << doc.status().ToString();
    doc_ = std::move(doc).value();
    return *doc_->root;
  }

  DecodeBudget budget_{1'000'000, 1'000'000};
  DecodeContext ctx_{budget_};

 private:
  std::unique_ptr<YamlStream> stream_;
  std::unique_ptr<YamlDocument> doc_;
};

TEST_F(MapReaderTest, TypedFields) {
  const YamlNode& root = Parse(
      "s: hello\nb: yes\ni32: -7\ni64: 9000000000\nq: 1.5Gi\nt: 2026-01-01T00:00:00Z\n"
      "d: 90s\nl: [a, b]\nm: {k: v}\nr: {cpu: 2}\nopt: 3\n");
  MapReader r(ctx_, root, "spec");
  ASSERT_TRUE(r.status().ok());
  std::string s;
  bool b = false;
  int32_t i32 = 0;
  int64_t i64 = 0;
  api::Quantity q;
  std::optional<Time> t;
  Duration d;
  std::vector<std::string> l;
  api::Labels m;
  api::ResourceList res;
  std::optional<int32_t> opt, missing;
  // Read in this order, each read fine.
  for (const Status& st :
       {r.String("s", s), r.Bool("b", b), r.Int32("i32", i32), r.Int64("i64", i64),
        r.Quantity("q", q), r.Time("t", t), r.Duration("d", d), r.StringList("l", l),
        r.StringMap("m", m), r.ResourceList("r", res), r.OptInt32("opt", opt),
        r.OptInt32("missing", missing), r.Finish()}) {
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_EQ(s, "hello");
  EXPECT_TRUE(b);
  EXPECT_EQ(i32, -7);
  EXPECT_EQ(i64, 9'000'000'000);
  EXPECT_EQ(q.milli(), (int64_t{3} << 29) * 1000);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->unix_ms, 1767225600000);
  EXPECT_EQ(d.ms, 90'000);
  EXPECT_EQ(l, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.at("k"), "v");
  EXPECT_EQ(res.at("cpu").milli(), 2000);
  EXPECT_EQ(opt, 3);
  EXPECT_FALSE(missing.has_value());
  EXPECT_EQ(ctx_.LineOf("spec.q"), 5);
  EXPECT_EQ(ctx_.LineOf("spec.r[cpu]"), 10);
  EXPECT_EQ(ctx_.LineOf("spec.l[1]"), 8);
  EXPECT_EQ(ctx_.LineOf("spec.l[7].deeper"), 8);  // falls back to the nearest ancestor
  EXPECT_EQ(ctx_.LineOf("other"), 0);
}

TEST_F(MapReaderTest, UnknownFieldsComeBeforeMissingRequiredOnes) {
  const YamlNode& root = Parse("nam: x\nextra: 1\n");
  MapReader r(ctx_, root, "spec.item");
  std::string name;
  EXPECT_TRUE(r.Require("name").ok());
  EXPECT_TRUE(r.String("name", name).ok());
  r.Ignore({"extra"});
  Status st = r.Finish();
  EXPECT_EQ(st.message(), "spec.item.nam: unknown field");
  EXPECT_EQ(ctx_.error_line(), 1);
}

TEST_F(MapReaderTest, MissingRequired) {
  const YamlNode& root = Parse("other: 1\n");
  MapReader r(ctx_, root, "x");
  EXPECT_TRUE(r.Require("name").ok());
  r.Ignore({"other"});
  EXPECT_EQ(r.Finish().message(), "x.name: Required value");
}

TEST_F(MapReaderTest, NullReadsAsEmptyObject) {
  const YamlNode& root = Parse("~\n");
  MapReader r(ctx_, root, "spec");
  EXPECT_TRUE(r.status().ok());
  std::string s = "unchanged";
  EXPECT_TRUE(r.String("anything", s).ok());
  EXPECT_EQ(s, "unchanged");
  EXPECT_TRUE(r.Finish().ok());
}

TEST_F(MapReaderTest, HasDoesNotMarkKnown) {
  const YamlNode& root = Parse("a: 1\nb: null\n");
  MapReader r(ctx_, root, "");
  EXPECT_TRUE(r.Has("a"));
  EXPECT_FALSE(r.Has("b"));  // null is unset
  EXPECT_FALSE(r.Has("c"));
  EXPECT_EQ(r.Finish().message(), "a: unknown field");
}

Status DecodeNested(MapReader& r, int& depth) {
  ++depth;
  return r.Object("x", depth, DecodeNested);
}

TEST_F(MapReaderTest, DepthGuard) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "{x: ";
  text += "{}";
  for (int i = 0; i < 100; ++i) text += "}";
  const YamlNode& root = Parse(text);
  int depth = 0;
  Status st = ReadObject(ctx_, root, "root", depth, DecodeNested);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(depth, DecodeContext::kMaxDepth);
  EXPECT_NE(st.message().find("nested deeper than 64 levels"), std::string::npos) << st.message();
}

TEST_F(MapReaderTest, BudgetExhaustion) {
  budget_ = DecodeBudget{3, 1000};
  const YamlNode& root = Parse("a: 1\nb: 2\nc: 3\nd: 4\n");
  MapReader r(ctx_, root, "spec");
  std::string v;
  for (const char* within : {"a", "b", "c"}) EXPECT_TRUE(r.String(within, v).ok()) << within;
  Status st = r.String("d", v);
  EXPECT_EQ(st.code(), StatusCode::kTooLarge);
  EXPECT_EQ(st.message(),
            "spec.d: document expands to too much data (aliases repeating large nodes?)");
  EXPECT_EQ(r.Finish().code(), StatusCode::kTooLarge);  // sticky
}

TEST_F(MapReaderTest, ByteBudget) {
  budget_ = DecodeBudget{100, 10};
  const YamlNode& root = Parse("a: 12345678\nb: 12345\n");
  MapReader r(ctx_, root, "");
  std::string v;
  EXPECT_TRUE(r.String("a", v).ok());
  EXPECT_EQ(r.String("b", v).code(), StatusCode::kTooLarge);
}

TEST_F(MapReaderTest, NotAMap) {
  const YamlNode& root = Parse("[1, 2]\n");
  MapReader r(ctx_, root, "spec.x");
  EXPECT_EQ(r.status().message(), "spec.x: expected an object, got a list");
  std::string s;
  EXPECT_FALSE(r.String("a", s).ok());
  EXPECT_FALSE(r.Finish().ok());
}

TEST_F(MapReaderTest, EnumAndEnumList) {
  enum class Color { kRed, kBlue };
  const YamlNode& root = Parse("one: Blue\nmany: [Red, Blue, Red]\nbad: Green\n");
  MapReader r(ctx_, root, "c");
  Color one = Color::kRed;
  std::vector<Color> many;
  EXPECT_TRUE(r.Enum<Color>("one", one, {{"Red", Color::kRed}, {"Blue", Color::kBlue}}).ok());
  EXPECT_EQ(one, Color::kBlue);
  EXPECT_TRUE(r.EnumList<Color>("many", many, {{"Red", Color::kRed}, {"Blue", Color::kBlue}}).ok());
  EXPECT_EQ(many, (std::vector<Color>{Color::kRed, Color::kBlue, Color::kRed}));
  Status st = r.Enum<Color>("bad", one, {{"Red", Color::kRed}, {"Blue", Color::kBlue}});
  EXPECT_EQ(st.message(),
            "c.bad: unsupported value; supported values: \"Red\", \"Blue\" (value \"Green\")");
  EXPECT_EQ(one, Color::kBlue);  // unchanged on error
}

TEST_F(MapReaderTest, OptObjectDistinguishesAbsentFromEmpty) {
  struct Empty {};
  auto decode = [](MapReader&, Empty&) { return Status::Ok(); };
  const YamlNode& root = Parse("present: {}\nnulled: null\n");
  MapReader r(ctx_, root, "");
  std::optional<Empty> present, nulled, absent;
  EXPECT_TRUE(r.OptObject("present", present, decode).ok());
  EXPECT_TRUE(r.OptObject("nulled", nulled, decode).ok());
  EXPECT_TRUE(r.OptObject("absent", absent, decode).ok());
  EXPECT_TRUE(present.has_value());
  EXPECT_FALSE(nulled.has_value());
  EXPECT_FALSE(absent.has_value());
  EXPECT_TRUE(r.Finish().ok());
}

}  // namespace
}  // namespace kuota::codec
