#include "store/list_label_selector.h"

#include <gtest/gtest.h>

#include <string>

namespace kuota::store {
namespace {

using Json = nlohmann::json;

struct LabelMatchCase {
  std::string name;
  std::string selector;
  Json labels;
  bool matches;
};

TEST(ListLabelSelectorTest, Matches) {
  const Json app = {{"app", "web"}, {"tier", "front"}, {"gpus", "4"}};
  const LabelMatchCase cases[] = {
      {"empty selects all", "", app, true},
      {"empty selects unlabelled", "", Json(), true},
      {"equals", "app=web", app, true},
      {"double equals", "app==web", app, true},
      {"equals other value", "app=db", app, false},
      {"equals absent label", "team=a", app, false},
      {"not equals", "app!=db", app, true},
      {"not equals same", "app!=web", app, false},
      {"not equals absent label matches", "team!=a", app, true},
      {"in", "tier in (back,front)", app, true},
      {"in miss", "tier in (back)", app, false},
      {"in absent", "team in (a)", app, false},
      {"notin", "tier notin (back)", app, true},
      {"notin hit", "tier notin (front,back)", app, false},
      {"notin absent matches", "team notin (a)", app, true},
      {"exists", "app", app, true},
      {"exists absent", "team", app, false},
      {"does not exist", "!team", app, true},
      {"does not exist present", "!app", app, false},
      {"greater than", "gpus>3", app, true},
      {"greater than equal", "gpus>4", app, false},
      {"less than", "gpus<5", app, true},
      {"gt on absent", "cpus>1", app, false},
      {"all of several", "app=web,tier in (front),!team,gpus", app, true},
      {"one fails", "app=web,tier=back", app, false},
      {"spaces", "  app = web ,  tier  notin ( a , b ) ", app, true},
      {"empty value", "team=", Json{{"team", ""}}, true},
      {"empty value vs set", "team=", app, false},
      {"prefixed key", "kueue.x-k8s.io/queue-name=lq", Json{{"kueue.x-k8s.io/queue-name", "lq"}},
       true},
      {"unlabelled object", "app", Json(), false},
      {"unlabelled notin", "app notin (x)", Json(), true},
      // As kube-apiserver's parser: "()" is {""}, and empty items are "" too.
      {"in () is the empty value", "team in ()", Json{{"team", ""}}, true},
      {"in () misses a value", "team in ()", Json{{"team", "a"}}, false},
      {"in () needs the key", "team in ()", app, false},
      {"notin () keeps values", "tier notin ()", app, true},
      {"notin () drops the empty value", "team notin ()", Json{{"team", ""}}, false},
      {"leading empty item", "team in (,a)", Json{{"team", ""}}, true},
      {"trailing empty item", "team in (a,)", Json{{"team", ""}}, true},
  };
  for (const LabelMatchCase& c : cases) {
    Result<ListLabelSelector> sel = ListLabelSelector::Parse(c.selector);
    ASSERT_TRUE(sel.ok()) << c.name << ": " << sel.status().ToString();
    EXPECT_EQ(sel->Matches(c.labels), c.matches) << c.name;
  }
}

struct ErrorCase {
  std::string name;
  std::string selector;
  std::string message_part;
};

TEST(ListLabelSelectorTest, RejectsBadSyntax) {
  const ErrorCase cases[] = {
      {"operator without key", "=b", "expected a label key"},
      {"in without parens", "a in b", "expected '(' after 'in'"},
      {"unclosed set", "a in (b,c", "expected ',' or ')'"},
      {"trailing comma", "a=b,", "expected a label key, found end of input"},
      {"double comma", "a,,b", "expected a label key"},
      {"not with operator", "!a=b", "takes no operator"},
      {"gt needs integer", "a>b", "needs an integer"},
      {"two values", "a=b c", "expected ',' or end of input"},
      {"bad key", "-a=b", "label key \"-a\""},
      {"bad prefix", "Foo.com/a=b", "prefix must be a lowercase DNS subdomain"},
      {"key too long", std::string(64, 'k') + "=v", "name must be 1-63 characters"},
      {"bad value", "a=b$", "label value \"b$\""},
      {"bang alone", "!", "expected a label key after '!'"},
  };
  for (const ErrorCase& c : cases) {
    Result<ListLabelSelector> sel = ListLabelSelector::Parse(c.selector);
    ASSERT_FALSE(sel.ok()) << c.name;
    EXPECT_EQ(sel.status().code(), StatusCode::kInvalid) << c.name;
    EXPECT_NE(sel.status().message().find("invalid label selector \"" + c.selector + "\""),
              std::string::npos)
        << c.name << ": " << sel.status().message();
    EXPECT_NE(sel.status().message().find(c.message_part), std::string::npos)
        << c.name << ": " << sel.status().message();
  }
}

TEST(ListLabelSelectorTest, ParsesRequirements) {
  Result<ListLabelSelector> sel = ListLabelSelector::Parse("a in (x, y),!b,c==d");
  ASSERT_TRUE(sel.ok());
  ASSERT_EQ(sel->requirements().size(), 3u);
  EXPECT_EQ(sel->requirements()[0].key, "a");
  EXPECT_EQ(sel->requirements()[0].op, ListLabelSelector::Op::kIn);
  EXPECT_EQ(sel->requirements()[0].values, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(sel->requirements()[1].op, ListLabelSelector::Op::kDoesNotExist);
  EXPECT_EQ(sel->requirements()[2].op, ListLabelSelector::Op::kEquals);
  EXPECT_EQ(sel->requirements()[2].values, (std::vector<std::string>{"d"}));
}

}  // namespace
}  // namespace kuota::store
