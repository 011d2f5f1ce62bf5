#include "cli/output.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

// kubectl's tabwriter: cells padded by 3, columns at least 6 wide.
constexpr size_t kPadding = 3;
constexpr size_t kMinWidth = 6;

std::string CellText(const Json& cell) {
  if (cell.is_null()) return "";
  if (cell.is_string()) return cell.get<std::string>();
  if (cell.is_boolean()) return cell.get<bool>() ? "true" : "false";
  return cell.dump();
}

// True when a plain scalar `s` would read back as something other than this
// string (a bool, number or null in YAML 1.1 or 1.2). Errs on the side of
// quoting: a quoted string always reads back as itself.
bool ReadsAsOtherType(const std::string& s) {
  static const std::set<std::string> kWords = {
      "true",  "True",  "TRUE",  "false", "False", "FALSE", "yes",  "Yes",  "YES",  "no",
      "No",    "NO",    "on",    "On",    "ON",    "off",   "Off",  "OFF",  "y",    "Y",
      "n",     "N",     "null",  "Null",  "NULL",  "~",     ".inf", ".Inf", ".INF", "-.inf",
      "-.Inf", "-.INF", "+.inf", "+.Inf", "+.INF", ".nan",  ".NaN", ".NAN"};
  if (s.empty() || kWords.count(s) > 0) return true;
  // YAML 1.1 timestamps: 2026-01-01, 2026-01-01T00:00:00Z.
  if (s.size() >= 10 && std::isdigit(static_cast<unsigned char>(s[0])) &&
      std::isdigit(static_cast<unsigned char>(s[3])) && s[4] == '-' && s[7] == '-') {
    return true;
  }
  // Number-like: an optional sign, then a digit or '.', then only characters
  // that appear in YAML numbers (decimal, exponent, 0x/0o, '_' and ':').
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i >= s.size() || !(std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
    return false;
  }
  bool digit = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (!std::isxdigit(static_cast<unsigned char>(c)) &&
               std::string_view("._:+-xXoO").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return digit;
}

void Emit(YAML::Emitter& out, const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      if (v.empty()) out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& [key, value] : v.items()) {
        out << YAML::Key;
        if (ReadsAsOtherType(key)) out << YAML::DoubleQuoted;
        out << key << YAML::Value;
        Emit(out, value);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      if (v.empty()) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const Json& item : v) Emit(out, item);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.find('\n') != std::string::npos) {
        out << YAML::Literal;
      } else if (ReadsAsOtherType(s)) {
        out << YAML::DoubleQuoted;
      }
      out << s;
      break;
    }
    case Json::value_t::boolean:
      out << (v.get<bool>() ? "true" : "false");
      break;
    case Json::value_t::null:
    case Json::value_t::discarded:
      out << YAML::Null;
      break;
    default:  // numbers, exactly as JSON writes them
      out << v.dump();
      break;
  }
}

}  // namespace

std::string AlignColumns(const std::vector<std::vector<std::string>>& rows,
                         const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (row.size() > widths.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i + 1 < row.size(); ++i) {
      widths[i] = std::max(widths[i], std::max(kMinWidth, row[i].size() + kPadding));
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - row[i].size(), ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string FormatTable(const Json& table, const TableFormat& format) {
  std::vector<size_t> shown;
  std::vector<std::string> header;
  if (format.with_namespace) header.push_back("NAMESPACE");
  const Json columns = table.value("columnDefinitions", Json::array());
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!format.wide && columns[i].value("priority", 0) != 0) continue;
    shown.push_back(i);
    std::string name = columns[i].value("name", "");
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    header.push_back(name);
  }
  std::vector<std::vector<std::string>> rows;
  if (format.headers) rows.push_back(header);
  for (const Json& row : table.value("rows", Json::array())) {
    std::vector<std::string> cells;
    if (format.with_namespace) {
      const Json* meta =
          row.contains("object") && row["object"].is_object() && row["object"].contains("metadata")
              ? &row["object"]["metadata"]
              : nullptr;
      cells.push_back(meta != nullptr ? meta->value("namespace", "") : "");
    }
    const Json row_cells = row.value("cells", Json::array());
    for (size_t i : shown) cells.push_back(i < row_cells.size() ? CellText(row_cells[i]) : "");
    rows.push_back(std::move(cells));
  }
  return AlignColumns(rows);
}

std::string ToYaml(const Json& value) {
  YAML::Emitter out;
  Emit(out, value);
  return std::string(out.c_str()) + "\n";
}

std::string AgeSince(const std::string& then, Time now) {
  Result<Time> t = ParseRfc3339(then);
  if (!t.ok()) return "<unknown>";
  Duration d = now - *t;
  if (d.ms < 0) d.ms = 0;
  return FormatAge(d);
}

}  // namespace kuota::cli
