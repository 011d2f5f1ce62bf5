#include "store/list_label_selector.h"

#include <cctype>
#include <charconv>
#include <string_view>
#include <utility>

namespace kuota::store {
namespace {

using Op = ListLabelSelector::Op;

enum class Tok {
  kEnd,
  kIdent,
  kNot,           // !
  kEquals,        // =
  kDoubleEquals,  // ==
  kNotEquals,     // !=
  kGreater,       // >
  kLess,          // <
  kComma,
  kOpen,
  kClose,
  kIn,
  kNotIn,
};

bool IsSpecial(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Token Next() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
    if (pos_ >= s_.size()) return {Tok::kEnd, ""};
    // The operators, the two-character ones first.
    static constexpr std::pair<std::string_view, Tok> kOperators[] = {
        {"!=", Tok::kNotEquals}, {"==", Tok::kDoubleEquals}, {",", Tok::kComma},
        {"(", Tok::kOpen},       {")", Tok::kClose},         {">", Tok::kGreater},
        {"<", Tok::kLess},       {"!", Tok::kNot},           {"=", Tok::kEquals}};
    for (const auto& [op, tok] : kOperators) {
      if (s_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        return {tok, std::string(op)};
      }
    }
    size_t start = pos_;
    while (pos_ < s_.size() && !IsSpace(s_[pos_]) && !IsSpecial(s_[pos_])) ++pos_;
    std::string word(s_.substr(start, pos_ - start));
    if (word == "in") return {Tok::kIn, word};
    if (word == "notin") return {Tok::kNotIn, word};
    return {Tok::kIdent, word};
  }

  Token Peek() {
    size_t saved = pos_;
    Token t = Next();
    pos_ = saved;
    return t;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

std::string Describe(const Token& t) {
  if (t.kind == Tok::kEnd) return "end of input";
  return "\"" + t.text + "\"";
}

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A label name or value: at most 63 of [A-Za-z0-9-_.], alphanumeric at both ends.
bool IsLabelToken(std::string_view s, bool allow_empty) {
  if (s.empty()) return allow_empty;
  if (s.size() > 63 || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// A DNS-1123 subdomain: the optional prefix of a label key.
bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s) {
    if (!lower_alnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

std::string CheckKey(std::string_view key) {
  size_t slash = key.find('/');
  std::string_view name = key;
  if (slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (!IsDnsSubdomain(prefix)) {
      return "label key \"" + std::string(key) +
             "\": prefix must be a lowercase DNS subdomain (e.g. example.com)";
    }
  }
  if (!IsLabelToken(name, false)) {
    return "label key \"" + std::string(key) +
           "\": name must be 1-63 characters of [A-Za-z0-9-_.], beginning and ending "
           "with a letter or digit";
  }
  return "";
}

std::string CheckValue(std::string_view value) {
  if (IsLabelToken(value, true)) return "";
  return "label value \"" + std::string(value) +
         "\": must be at most 63 characters of [A-Za-z0-9-_.], beginning and ending with "
         "a letter or digit";
}

bool ParseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), lex_(text) {}

  Result<std::vector<ListLabelSelector::Requirement>> Run() {
    std::vector<ListLabelSelector::Requirement> out;
    if (lex_.Peek().kind == Tok::kEnd) return out;
    while (true) {
      ListLabelSelector::Requirement req;
      std::string err = ParseRequirement(&req);
      if (!err.empty()) return Error(err);
      out.push_back(std::move(req));
      Token t = lex_.Next();
      if (t.kind == Tok::kEnd) return out;
      if (t.kind != Tok::kComma) {
        return Error("expected ',' or end of input after a requirement, found " + Describe(t));
      }
    }
  }

 private:
  Status Error(const std::string& why) const {
    return Status::Invalid("invalid label selector \"" + std::string(text_) + "\": " + why);
  }

  std::string ParseRequirement(ListLabelSelector::Requirement* req) {
    Token t = lex_.Next();
    if (t.kind == Tok::kNot) {
      Token key = lex_.Next();
      if (key.kind != Tok::kIdent) return "expected a label key after '!', found " + Describe(key);
      req->key = key.text;
      req->op = Op::kDoesNotExist;
      Token after = lex_.Peek();
      if (after.kind != Tok::kEnd && after.kind != Tok::kComma) {
        return "'!" + key.text + "' takes no operator, found " + Describe(after);
      }
      return CheckKey(req->key);
    }
    if (t.kind != Tok::kIdent) return "expected a label key, found " + Describe(t);
    req->key = t.text;
    if (std::string err = CheckKey(req->key); !err.empty()) return err;
    Token op = lex_.Peek();
    if (op.kind == Tok::kEnd || op.kind == Tok::kComma) {
      req->op = Op::kExists;  // a bare key; the separator is read by the caller
      return "";
    }
    lex_.Next();
    switch (op.kind) {
      case Tok::kEquals:
      case Tok::kDoubleEquals:
      case Tok::kNotEquals: {
        req->op = op.kind == Tok::kNotEquals ? Op::kNotEquals : Op::kEquals;
        Token v = lex_.Peek();
        if (v.kind == Tok::kEnd || v.kind == Tok::kComma) {
          req->values.push_back("");  // "a=" selects an empty value
          return "";
        }
        v = lex_.Next();
        if (v.kind != Tok::kIdent && v.kind != Tok::kIn && v.kind != Tok::kNotIn) {
          return "expected a value after '" + op.text + "', found " + Describe(v);
        }
        req->values.push_back(v.text);
        return CheckValue(v.text);
      }
      case Tok::kGreater:
      case Tok::kLess: {
        req->op = op.kind == Tok::kGreater ? Op::kGreaterThan : Op::kLessThan;
        Token v = lex_.Next();
        int64_t n;
        if (v.kind != Tok::kIdent || !ParseInt(v.text, &n)) {
          return "'" + op.text + "' needs an integer value, found " + Describe(v);
        }
        req->values.push_back(v.text);
        return "";
      }
      case Tok::kIn:
      case Tok::kNotIn:
        req->op = op.kind == Tok::kIn ? Op::kIn : Op::kNotIn;
        return ParseSet(op.text, &req->values);
      default:
        return "expected an operator (=, ==, !=, in, notin, >, <) after \"" + req->key +
               "\", found " + Describe(op);
    }
  }

  std::string ParseSet(const std::string& op, std::vector<std::string>* values) {
    Token open = lex_.Next();
    if (open.kind != Tok::kOpen) return "expected '(' after '" + op + "', found " + Describe(open);
    while (true) {
      Token t = lex_.Next();
      if (t.kind == Tok::kClose && values->empty()) {
        values->push_back("");  // "()" is the set of the empty value, as kube-apiserver reads it
        return "";
      }
      std::string value;
      if (t.kind == Tok::kIdent || t.kind == Tok::kIn || t.kind == Tok::kNotIn) {
        value = t.text;
        t = lex_.Next();
      }
      if (std::string err = CheckValue(value); !err.empty()) return err;
      values->push_back(std::move(value));
      if (t.kind == Tok::kClose) return "";
      if (t.kind != Tok::kComma) {
        return "expected ',' or ')' in the values of '" + op + "', found " + Describe(t);
      }
    }
  }

  std::string_view text_;
  Lexer lex_;
};

}  // namespace

Result<ListLabelSelector> ListLabelSelector::Parse(std::string_view text) {
  ListLabelSelector sel;
  KUOTA_ASSIGN_OR_RETURN(sel.requirements_, Parser(text).Run());
  return sel;
}

bool ListLabelSelector::Matches(const nlohmann::json& labels) const {
  for (const Requirement& r : requirements_) {
    const std::string* value = nullptr;
    if (labels.is_object()) {
      auto it = labels.find(r.key);
      if (it != labels.end() && it->is_string()) value = it->get_ptr<const std::string*>();
    }
    bool ok = false;
    switch (r.op) {
      case Op::kExists:
        ok = value != nullptr;
        break;
      case Op::kDoesNotExist:
        ok = value == nullptr;
        break;
      case Op::kEquals:
        ok = value != nullptr && *value == r.values[0];
        break;
      case Op::kNotEquals:
        ok = value == nullptr || *value != r.values[0];
        break;
      case Op::kIn:
      case Op::kNotIn: {
        bool in = false;
        if (value != nullptr) {
          for (const std::string& v : r.values) in = in || *value == v;
        }
        ok = r.op == Op::kIn ? in : !in;
        break;
      }
      case Op::kGreaterThan:
      case Op::kLessThan: {
        int64_t have, want;
        if (value == nullptr || !ParseInt(*value, &have) || !ParseInt(r.values[0], &want)) {
          ok = false;
        } else {
          ok = r.op == Op::kGreaterThan ? have > want : have < want;
        }
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace kuota::store
