#include "api/codec/json_tree.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kuota::codec {
namespace {

class Builder {
 public:
  Builder(JsonTree& tree, int max_depth) : tree_(tree), max_depth_(max_depth) {}

  Result<const YamlNode*> Node(const nlohmann::json& v, int depth) {
    if (depth > max_depth_) {
      return Status::Invalid("JSON nested deeper than " + std::to_string(max_depth_) + " levels");
    }
    YamlNode& n = tree_.doc.nodes.emplace_back();
    n.line = 1;
    n.column = 1;
    tree_.approx_bytes += 2;
    switch (v.type()) {
      case nlohmann::json::value_t::null:
      case nlohmann::json::value_t::discarded:
        n.type = YamlNode::Type::kNull;
        tree_.approx_bytes += 4;
        break;
      case nlohmann::json::value_t::string:
        n.type = YamlNode::Type::kScalar;
        n.scalar = v.get_ref<const std::string&>();
        tree_.approx_bytes += n.scalar.size();
        break;
      case nlohmann::json::value_t::boolean:
        n.type = YamlNode::Type::kScalar;
        n.plain = true;
        n.scalar = v.get<bool>() ? "true" : "false";
        tree_.approx_bytes += n.scalar.size();
        break;
      case nlohmann::json::value_t::number_integer:
      case nlohmann::json::value_t::number_unsigned:
      case nlohmann::json::value_t::number_float:
        n.type = YamlNode::Type::kScalar;
        n.plain = true;
        n.scalar = v.dump();  // the text the YAML parser would have read
        tree_.approx_bytes += n.scalar.size();
        break;
      case nlohmann::json::value_t::binary:
        return Status::Invalid("binary values are not JSON");
      case nlohmann::json::value_t::array: {
        n.type = YamlNode::Type::kSequence;
        n.children.reserve(v.size());
        for (const nlohmann::json& item : v) {
          KUOTA_ASSIGN_OR_RETURN(const YamlNode* child, Node(item, depth + 1));
          n.children.push_back(child);
        }
        break;
      }
      case nlohmann::json::value_t::object: {
        n.type = YamlNode::Type::kMap;
        n.children.reserve(2 * v.size());
        for (auto it = v.begin(); it != v.end(); ++it) {
          YamlNode& key = tree_.doc.nodes.emplace_back();
          key.line = 1;
          key.column = 1;
          key.type = YamlNode::Type::kScalar;
          key.scalar = it.key();
          tree_.approx_bytes += key.scalar.size() + 3;
          n.children.push_back(&key);
          KUOTA_ASSIGN_OR_RETURN(const YamlNode* child, Node(it.value(), depth + 1));
          n.children.push_back(child);
        }
        break;
      }
    }
    return &n;
  }

 private:
  JsonTree& tree_;
  const int max_depth_;
};

}  // namespace

Result<std::unique_ptr<JsonTree>> JsonToTree(const nlohmann::json& value, int max_depth) {
  auto tree = std::make_unique<JsonTree>();
  Builder builder(*tree, max_depth);
  KUOTA_ASSIGN_OR_RETURN(const YamlNode* root, builder.Node(value, 0));
  tree->doc.root = root;
  tree->doc.line = 1;
  return tree;
}

}  // namespace kuota::codec
