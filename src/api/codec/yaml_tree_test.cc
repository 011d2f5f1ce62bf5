#include "api/codec/yaml_tree.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "api/codec/scalars.h"

namespace kuota::codec {
namespace {

std::unique_ptr<YamlDocument> ParseOne(std::string_view text) {
  YamlStream stream(text);
  Result<std::unique_ptr<YamlDocument>> doc = stream.Next();
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  if (!doc.ok()) return nullptr;
  return std::move(doc).value();
}

TEST(YamlTreeTest, ScalarsKeepStyleTagAndPosition) {
  auto doc = ParseOne("a: 1\nb: \"2\"\nc: 'x'\nd: !!str 5\ne: |\n  text\n");
  ASSERT_NE(doc, nullptr);
  const YamlNode& root = *doc->root;
  ASSERT_TRUE(root.is_map());
  ASSERT_EQ(root.size(), 5u);
  const YamlNode& a = root.value(0);
  EXPECT_TRUE(a.plain);
  EXPECT_EQ(a.scalar, "1");
  EXPECT_EQ(a.line, 1);
  EXPECT_EQ(a.column, 4);
  EXPECT_EQ(a.Describe(), "a number");
  const YamlNode& b = root.value(1);
  EXPECT_FALSE(b.plain);
  EXPECT_EQ(b.line, 2);
  EXPECT_EQ(b.Describe(), "a string");
  EXPECT_FALSE(root.value(2).plain);
  const YamlNode& d = root.value(3);
  EXPECT_FALSE(d.plain);
  EXPECT_EQ(d.tag, YamlNode::Tag::kStr);
  const YamlNode& e = root.value(4);
  EXPECT_FALSE(e.plain);
  EXPECT_EQ(e.scalar, "text\n");
  EXPECT_EQ(root.key(4).scalar, "e");
  EXPECT_EQ(root.key(4).line, 5);
}

TEST(YamlTreeTest, NullsSequencesAndDuplicateKeysInOrder) {
  auto doc = ParseOne("x: ~\ny: null\nz:\nw: \"null\"\nl: [1, [2], {k: v}]\nx: again\n");
  ASSERT_NE(doc, nullptr);
  const YamlNode& root = *doc->root;
  ASSERT_EQ(root.size(), 6u);
  EXPECT_TRUE(root.value(0).is_null());
  EXPECT_TRUE(root.value(1).is_null());
  EXPECT_TRUE(root.value(2).is_null());
  EXPECT_TRUE(root.value(3).is_scalar());  // quoted "null" is a string
  const YamlNode& l = root.value(4);
  ASSERT_TRUE(l.is_sequence());
  ASSERT_EQ(l.size(), 3u);
  EXPECT_TRUE(l.item(1).is_sequence());
  EXPECT_TRUE(l.item(2).is_map());
  EXPECT_EQ(l.Describe(), "a list");
  EXPECT_EQ(l.item(2).Describe(), "a map");
  EXPECT_EQ(root.key(5).scalar, "x");  // duplicates are kept for the reader
  EXPECT_EQ(root.value(5).scalar, "again");
}

TEST(YamlTreeTest, AliasesShareTheAnchoredNode) {
  auto doc = ParseOne("a: &x {k: v}\nb: *x\nc: &s str\nd: *s\n");
  ASSERT_NE(doc, nullptr);
  const YamlNode& root = *doc->root;
  EXPECT_EQ(&root.value(0), &root.value(1));
  EXPECT_EQ(&root.value(2), &root.value(3));
}

// The next document of `stream`, which must have one.
void NextDocument(YamlStream& stream, std::unique_ptr<YamlDocument>& doc) {
  Result<std::unique_ptr<YamlDocument>> next = stream.Next();
  ASSERT_TRUE(next.ok());
  ASSERT_NE(*next, nullptr);
  doc = std::move(*next);
}

TEST(YamlTreeTest, StreamOfDocuments) {
  YamlStream stream("a: 1\n---\n---\n- x\n...\n");
  std::unique_ptr<YamlDocument> d1, d2, d3;
  ASSERT_NO_FATAL_FAILURE(NextDocument(stream, d1));
  EXPECT_TRUE(d1->root->is_map());
  EXPECT_EQ(d1->line, 1);
  ASSERT_NO_FATAL_FAILURE(NextDocument(stream, d2));
  EXPECT_TRUE(d2->root->is_null());
  ASSERT_NO_FATAL_FAILURE(NextDocument(stream, d3));
  EXPECT_TRUE(d3->root->is_sequence());
  EXPECT_EQ(d3->line, 4);
  Result<std::unique_ptr<YamlDocument>> end = stream.Next();
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, nullptr);
  Result<std::unique_ptr<YamlDocument>> again = stream.Next();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, nullptr);
}

TEST(YamlTreeTest, EmptyStreamHasNoDocuments) {
  for (const char* text : {"", "# comment only\n", "   \n\n"}) {
    YamlStream stream(text);
    Result<std::unique_ptr<YamlDocument>> d = stream.Next();
    ASSERT_TRUE(d.ok()) << text;
    EXPECT_EQ(*d, nullptr) << text;
  }
}

TEST(YamlTreeTest, SyntaxErrorsNameTheLineAndEndTheStream) {
  YamlStream stream("a: 1\n---\nb: [1, 2\n");
  Result<std::unique_ptr<YamlDocument>> d1 = stream.Next();
  ASSERT_TRUE(d1.ok());
  Result<std::unique_ptr<YamlDocument>> d2 = stream.Next();
  ASSERT_FALSE(d2.ok());
  EXPECT_EQ(d2.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(d2.status().message(),
            "invalid YAML at line 4, column 1: end of sequence flow not found");
  Result<std::unique_ptr<YamlDocument>> after = stream.Next();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, nullptr);
}

TEST(YamlTreeTest, DeepNestingIsASyntaxError) {
  YamlStream stream(std::string(10'000, '['));
  Result<std::unique_ptr<YamlDocument>> d = stream.Next();
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("nested too deeply"), std::string::npos)
      << d.status().message();
}

TEST(ScalarsTest, Booleans) {
  for (const char* t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"}) {
    EXPECT_EQ(ParseYamlBool(t), true) << t;
  }
  for (const char* f :
       {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"}) {
    EXPECT_EQ(ParseYamlBool(f), false) << f;
  }
  for (const char* x : {"", "tru", "TRUe", "1", "0", "yess", " true"}) {
    EXPECT_FALSE(ParseYamlBool(x).has_value()) << x;
  }
}

TEST(ScalarsTest, Numbers) {
  for (const char* n :
       {"0", "-1", "+2", "1.5", ".5", "5.", "2e3", "1.5E-3", ".inf", "-.inf", ".nan"}) {
    EXPECT_TRUE(LooksLikeNumber(n)) << n;
  }
  for (const char* s : {"", "-", ".", "1e", "e3", "1.2.3", "0x10", "ten", "1 "}) {
    EXPECT_FALSE(LooksLikeNumber(s)) << s;
  }
}

TEST(ScalarsTest, DecimalIntegers) {
  const std::pair<const char*, int64_t> integers[] = {{"0", 0},
                                                      {"-0", 0},
                                                      {"42", 42},
                                                      {"+42", 42},
                                                      {"-42", -42},
                                                      {"9223372036854775807", INT64_MAX},
                                                      {"-9223372036854775808", INT64_MIN}};
  for (const auto& [text, value] : integers) {
    int64_t v = -7;
    EXPECT_EQ(ParseDecimalInt(text, v), IntParse::kOk) << text;
    EXPECT_EQ(v, value) << text;
  }
  for (const char* text :
       {"9223372036854775808", "-9223372036854775809", "99999999999999999999999999"}) {
    int64_t v = -7;
    EXPECT_EQ(ParseDecimalInt(text, v), IntParse::kOutOfRange) << text;
  }
  for (const char* text :
       {"99999999999999999999999999x", "", "-", "010", "0x10", "1.0", "1e3", "1_000", " 1"}) {
    int64_t v = -7;
    EXPECT_EQ(ParseDecimalInt(text, v), IntParse::kNotInteger) << text;
  }
}

}  // namespace
}  // namespace kuota::codec
