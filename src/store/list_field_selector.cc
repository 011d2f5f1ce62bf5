#include "store/list_field_selector.h"

#include <utility>

namespace kuota::store {
namespace {

Status Bad(std::string_view text, const std::string& why) {
  return Status::Invalid("invalid field selector \"" + std::string(text) + "\": " + why);
}

// Splits on commas not escaped by a backslash; the terms keep their escapes.
std::vector<std::string> SplitTerms(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      cur += s[i];
      cur += s[++i];
    } else if (s[i] == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += s[i];
    }
  }
  out.push_back(std::move(cur));
  return out;
}

std::string_view TrimFront(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::string_view Trim(std::string_view s) {
  s = TrimFront(s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<ListFieldSelector> ListFieldSelector::Parse(std::string_view text) {
  ListFieldSelector sel;
  if (Trim(text).empty()) return sel;
  for (const std::string& raw : SplitTerms(text)) {
    // Blanks around the field name are ignored; the value is taken as
    // written, trailing blanks included, as Kubernetes takes it.
    std::string_view term = TrimFront(raw);
    if (Trim(term).empty()) continue;
    // The first unescaped operator splits the term: "!=", "==" or "=".
    size_t op_pos = std::string_view::npos;
    size_t op_len = 0;
    bool equals = true;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term[i] == '\\') {
        ++i;
        continue;
      }
      if (term.substr(i, 2) == "!=") {
        op_pos = i, op_len = 2, equals = false;
      } else if (term.substr(i, 2) == "==") {
        op_pos = i, op_len = 2;
      } else if (term[i] == '=') {
        op_pos = i, op_len = 1;
      } else {
        continue;
      }
      break;
    }
    if (op_pos == std::string_view::npos) {
      return Bad(text, "\"" + std::string(term) + "\" has no operator (want =, == or !=)");
    }
    std::string_view key = Trim(term.substr(0, op_pos));
    std::string_view raw_value = term.substr(op_pos + op_len);
    Term t;
    t.equals = equals;
    if (key.empty()) return Bad(text, "\"" + std::string(term) + "\" has no field name");
    size_t start = 0;
    while (true) {
      size_t dot = key.find('.', start);
      std::string_view part = key.substr(start, dot == std::string_view::npos ? dot : dot - start);
      if (part.empty()) return Bad(text, "field path \"" + std::string(key) + "\" is not valid");
      for (char c : part) {
        if (c == ' ' || c == '\\' || c == '=' || c == '!') {
          return Bad(text, "field path \"" + std::string(key) + "\" is not valid");
        }
      }
      t.path.emplace_back(part);
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    for (size_t i = 0; i < raw_value.size(); ++i) {
      char c = raw_value[i];
      if (c != '\\') {
        t.value += c;
        continue;
      }
      if (i + 1 >= raw_value.size() ||
          (raw_value[i + 1] != '\\' && raw_value[i + 1] != ',' && raw_value[i + 1] != '=')) {
        return Bad(text, "invalid escape in the value of \"" + std::string(key) +
                             "\" (only \\\\, \\, and \\= are allowed)");
      }
      t.value += raw_value[++i];
    }
    sel.terms_.push_back(std::move(t));
  }
  return sel;
}

std::string FieldValueText(const nlohmann::json& object, const std::vector<std::string>& path) {
  const nlohmann::json* cur = &object;
  for (const std::string& part : path) {
    if (!cur->is_object()) return "";
    auto it = cur->find(part);
    if (it == cur->end()) return "";
    cur = &*it;
  }
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_null()) return "";
  return cur->dump();
}

bool ListFieldSelector::Matches(const nlohmann::json& object) const {
  for (const Term& t : terms_) {
    if ((FieldValueText(object, t.path) == t.value) != t.equals) return false;
  }
  return true;
}

}  // namespace kuota::store
