#include "store/list_field_selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kuota::store {
namespace {

using Json = nlohmann::json;

struct MatchCase {
  std::string name;
  std::string selector;
  bool matches;
};

TEST(ListFieldSelectorTest, Matches) {
  const Json pod = {
      {"metadata", {{"name", "p1"}, {"namespace", "team-a"}}},
      {"spec", {{"nodeName", ""}, {"priority", 100}, {"hostNetwork", false}}},
      {"status", {{"phase", "Running"}, {"reason", "late "}}},
      {"involvedObject", {{"name", "job,1=x"}}},
  };
  const std::vector<MatchCase> cases = {
      {"empty", "", true},
      {"name", "metadata.name=p1", true},
      {"name double equals", "metadata.name==p1", true},
      {"name differs", "metadata.name=p2", false},
      {"namespace", "metadata.namespace=team-a", true},
      {"not equals", "status.phase!=Pending", true},
      {"not equals same", "status.phase!=Running", false},
      {"and", "metadata.name=p1,status.phase=Running", true},
      {"and fails", "metadata.name=p1,status.phase=Pending", false},
      {"absent reads empty", "status.message=", true},
      {"absent not equals", "status.message!=x", true},
      {"empty string field", "spec.nodeName=", true},
      {"number", "spec.priority=100", true},
      {"bool", "spec.hostNetwork=false", true},
      {"escaped comma and equals", "involvedObject.name=job\\,1\\=x", true},
      {"path through a scalar", "status.phase.x=", true},
      {"a space before the value is part of it", "metadata.name= p1", false},
      {"spaces around key only", " metadata.name =p1", true},
      {"a space after the value is part of it", "metadata.name=p1 ", false},
      {"a trailing space matches a trailing space", "status.reason=late ", true},
  };
  for (const MatchCase& c : cases) {
    Result<ListFieldSelector> sel = ListFieldSelector::Parse(c.selector);
    ASSERT_TRUE(sel.ok()) << c.name << ": " << sel.status().ToString();
    EXPECT_EQ(sel->Matches(pod), c.matches) << c.name;
  }
}

TEST(ListFieldSelectorTest, RejectsBadSyntax) {
  const std::pair<std::string, std::string> cases[] = {
      {"metadata.name", "has no operator"},
      {"=x", "has no field name"},
      {"metadata..name=x", "field path \"metadata..name\" is not valid"},
      {"a=b\\q", "invalid escape"},
      {"a=b,c", "\"c\" has no operator"},
  };
  for (const auto& [text, part] : cases) {
    Result<ListFieldSelector> sel = ListFieldSelector::Parse(text);
    ASSERT_FALSE(sel.ok()) << text;
    EXPECT_EQ(sel.status().code(), StatusCode::kInvalid);
    EXPECT_NE(sel.status().message().find("invalid field selector"), std::string::npos);
    EXPECT_NE(sel.status().message().find(part), std::string::npos)
        << text << ": " << sel.status().message();
  }
}

}  // namespace
}  // namespace kuota::store
