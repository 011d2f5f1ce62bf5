#include "api/validation/names.h"

#include <gtest/gtest.h>

#include <string>

#include "api/validation/field_errors.h"
#include "api/validation/validate.h"

namespace kuota::validation {
namespace {

TEST(NamesTest, Dns1123Label) {
  for (const char* ok : {"a", "abc", "a-b", "0", "123-abc", "a1"}) {
    EXPECT_EQ(CheckDns1123Label(ok), "") << ok;
  }
  EXPECT_EQ(CheckDns1123Label(std::string(63, 'a')), "");
  for (const char* bad : {"", "-a", "a-", "A", "a.b", "a_b", "a b", "é"}) {
    EXPECT_NE(CheckDns1123Label(bad), "") << bad;
  }
  EXPECT_EQ(CheckDns1123Label(std::string(64, 'a')), "must be no more than 63 characters");
}

TEST(NamesTest, Dns1123Subdomain) {
  for (const char* ok : {"a", "a.b", "example.com", "a-1.b-2", "0.0"}) {
    EXPECT_EQ(CheckDns1123Subdomain(ok), "") << ok;
  }
  std::string long_ok;
  while (long_ok.size() < 250) long_ok += "abcdefghi.";
  long_ok += "abc";  // 253
  ASSERT_EQ(long_ok.size(), 253u);
  EXPECT_EQ(CheckDns1123Subdomain(long_ok), "");
  EXPECT_EQ(CheckDns1123Subdomain(long_ok + "d"), "must be no more than 253 characters");
  for (const char* bad : {"", ".", "a.", ".a", "a..b", "A.b", "a_b", "-a.b", "a.-b"}) {
    EXPECT_NE(CheckDns1123Subdomain(bad), "") << bad;
  }
  EXPECT_EQ(CheckDns1123Subdomain("Bad"),
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

TEST(NamesTest, QualifiedName) {
  for (const char* ok : {"cpu", "memory", "nvidia.com/gpu", "MyName", "my.name", "a_b",
                         "kubernetes.io/metadata.name", "example.com/A-b_c.d"}) {
    EXPECT_EQ(CheckQualifiedName(ok), "") << ok;
  }
  EXPECT_EQ(CheckQualifiedName(""), "name part must be non-empty");
  EXPECT_EQ(CheckQualifiedName("example.com/"), "name part must be non-empty");
  EXPECT_EQ(CheckQualifiedName("/gpu"), "prefix part must be non-empty");
  EXPECT_EQ(CheckQualifiedName(std::string(64, 'a')),
            "name part must be no more than 63 characters");
  EXPECT_NE(CheckQualifiedName("Example.com/gpu").find("prefix part a lowercase RFC 1123"),
            std::string::npos);
  EXPECT_NE(CheckQualifiedName("a/b/c"), "");
  for (const char* bad : {"-a", "a-", "a b", "a!", "_a"}) {
    EXPECT_NE(CheckQualifiedName(bad), "") << bad;
  }
}

TEST(NamesTest, LabelValue) {
  for (const char* ok : {"", "a", "A-b_c.D", "123", "true"}) {
    EXPECT_EQ(CheckLabelValue(ok), "") << ok;
  }
  for (const char* bad : {"-a", "a-", "a b", "a/b", "ü"}) {
    EXPECT_NE(CheckLabelValue(bad), "") << bad;
  }
  EXPECT_EQ(CheckLabelValue(std::string(64, 'a')), "must be no more than 63 characters");
}

TEST(FieldErrorsTest, KubernetesWording) {
  FieldErrors errs;
  EXPECT_TRUE(errs.empty());
  EXPECT_TRUE(errs.ToStatus().ok());
  errs.Invalid("spec.a", "v", "is bad");
  errs.InvalidNumber("spec.b", -1, "must be greater than or equal to 0");
  errs.Required("spec.c");
  errs.Required("metadata.name", "name or generateName is required");
  errs.Duplicate("spec.d[1]", "x");
  errs.NotSupported("spec.e", "Z", {"A", "B"});
  errs.NotFound("spec.f", "g");
  errs.Forbidden("spec.g", "not allowed");
  errs.TooMany("spec.h", 17, 16);
  errs.TooLong("metadata.annotations", 262144);
  Status st = errs.ToStatus();
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(),
            "spec.a: Invalid value: \"v\": is bad; "
            "spec.b: Invalid value: -1: must be greater than or equal to 0; "
            "spec.c: Required value; "
            "metadata.name: Required value: name or generateName is required; "
            "spec.d[1]: Duplicate value: \"x\"; "
            "spec.e: Unsupported value: \"Z\": supported values: \"A\", \"B\"; "
            "spec.f: Not found: \"g\"; "
            "spec.g: Forbidden: not allowed; "
            "spec.h: Too many: 17: must have at most 16 items; "
            "metadata.annotations: Too long: may not be more than 262144 bytes");
  EXPECT_EQ(errs.errors().size(), 10u);
}

TEST(FieldErrorsTest, QuoteValue) {
  EXPECT_EQ(QuoteValue(""), "\"\"");
  EXPECT_EQ(QuoteValue("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\x01\"");
  EXPECT_EQ(QuoteValue("héllo"), "\"héllo\"");
  std::string q = QuoteValue(std::string(1000, 'x'));
  EXPECT_LT(q.size(), 120u);
  EXPECT_EQ(q.substr(q.size() - 4), "...\"");
}

TEST(FieldErrorsTest, Paths) {
  EXPECT_EQ(Child("", "spec"), "spec");
  EXPECT_EQ(Child("spec", "cohort"), "spec.cohort");
  EXPECT_EQ(Index("spec.podSets", 3), "spec.podSets[3]");
  EXPECT_EQ(Key("resources.requests", "nvidia.com/gpu"), "resources.requests[nvidia.com/gpu]");
  std::string huge(100'000, 'k');
  EXPECT_EQ(Key("m", huge), "m[" + std::string(320, 'k') + "...]");
  EXPECT_EQ(Child("spec", huge), "spec." + std::string(320, 'k') + "...");
  std::string longest_valid = std::string(253, 'a') + "/" + std::string(63, 'b');
  EXPECT_EQ(Key("m", longest_valid), "m[" + longest_valid + "]");
}

TEST(ValidateNameTest, PublicHelpers) {
  EXPECT_TRUE(ValidateDns1123Subdomain("a.b", "metadata.name").ok());
  EXPECT_TRUE(ValidateDns1123Label("a-b", "metadata.name").ok());
  EXPECT_EQ(ValidateDns1123Subdomain("", "spec.cohort").message(), "spec.cohort: Required value");
  Status st = ValidateDns1123Label("a.b", "metadata.name");
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(
      st.message().rfind("metadata.name: Invalid value: \"a.b\": a lowercase RFC 1123 label", 0),
      0u)
      << st.message();
  EXPECT_EQ(ValidateDns1123Label(std::string(64, 'a'), "metadata.namespace").message(),
            "metadata.namespace: Invalid value: \"" + std::string(64, 'a') +
                "\": must be no more than 63 characters");
}

}  // namespace
}  // namespace kuota::validation
