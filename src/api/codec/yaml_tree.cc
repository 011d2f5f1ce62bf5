#include "api/codec/yaml_tree.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <mutex>

#include <yaml-cpp/parser.h>

#include <exception>
#include <map>
#include <new>

#include "api/codec/scalars.h"

namespace kuota::codec {
namespace {

YamlNode::Tag TagOf(const std::string& tag) {
  if (tag == "?" || tag == "!") return YamlNode::Tag::kNone;  // untagged plain / quoted
  if (tag == "tag:yaml.org,2002:str") return YamlNode::Tag::kStr;
  if (tag == "tag:yaml.org,2002:int") return YamlNode::Tag::kInt;
  if (tag == "tag:yaml.org,2002:bool") return YamlNode::Tag::kBool;
  if (tag == "tag:yaml.org,2002:float") return YamlNode::Tag::kFloat;
  return YamlNode::Tag::kOther;
}

// Builds a YamlDocument from parser events with an explicit stack. Errors
// cannot be thrown through yaml-cpp safely, so the first one is recorded and
// later events are ignored.
class TreeBuilder final : public YAML::EventHandler {
 public:
  explicit TreeBuilder(YamlDocument& doc) : doc_(doc) {}

  const std::string& error() const { return error_; }
  int error_line() const { return error_line_; }

  void OnDocumentStart(const YAML::Mark& mark) override { doc_.line = mark.line + 1; }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    YamlNode* n = NewNode(YamlNode::Type::kNull, mark);
    if (n == nullptr) return;
    Anchor(anchor, n);
    Add(n);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!error_.empty()) return;
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      // yaml-cpp registers an anchor when its node starts; we register it when
      // the node is complete, so this is an alias inside its own anchor.
      Fail(mark, "an alias may not refer to a node that contains it");
      return;
    }
    Add(it->second);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    YamlNode* n = NewNode(YamlNode::Type::kScalar, mark);
    if (n == nullptr) return;
    n->plain = tag == "?";
    n->tag = TagOf(tag);
    n->scalar = value;
    Anchor(anchor, n);
    Add(n);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(YamlNode::Type::kSequence, mark, tag, anchor);
  }
  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(YamlNode::Type::kMap, mark, tag, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Open_ {
    YamlNode* node;
    YAML::anchor_t anchor;
    const YamlNode* pending_key;  // a map key waiting for its value
  };

  YamlNode* NewNode(YamlNode::Type type, const YAML::Mark& mark) {
    if (!error_.empty()) return nullptr;
    YamlNode& n = doc_.nodes.emplace_back();
    n.type = type;
    n.line = mark.line + 1;
    n.column = mark.column + 1;
    return &n;
  }

  void Open(YamlNode::Type type, const YAML::Mark& mark, const std::string& tag,
            YAML::anchor_t anchor) {
    YamlNode* n = NewNode(type, mark);
    if (n == nullptr) return;
    n->tag = TagOf(tag);
    stack_.push_back(Open_{n, anchor, nullptr});
  }

  void Close() {
    if (!error_.empty() || stack_.empty()) return;
    Open_ top = stack_.back();
    stack_.pop_back();
    if (top.pending_key != nullptr) {
      // Cannot happen with yaml-cpp (a key without a value gets a null), but
      // keep the tree well formed if it does.
      top.node->children.push_back(top.pending_key);
      top.node->children.push_back(NullNode(*top.pending_key));
    }
    Anchor(top.anchor, top.node);
    Add(top.node);
  }

  const YamlNode* NullNode(const YamlNode& near) {
    YamlNode& n = doc_.nodes.emplace_back();
    n.line = near.line;
    n.column = near.column;
    return &n;
  }

  void Anchor(YAML::anchor_t anchor, const YamlNode* n) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = n;
  }

  void Add(const YamlNode* n) {
    if (!error_.empty()) return;
    if (stack_.empty()) {
      if (doc_.root == nullptr) doc_.root = n;
      return;
    }
    Open_& parent = stack_.back();
    if (parent.node->type == YamlNode::Type::kSequence) {
      parent.node->children.push_back(n);
    } else if (parent.pending_key == nullptr) {
      parent.pending_key = n;
    } else {
      parent.node->children.push_back(parent.pending_key);
      parent.node->children.push_back(n);
      parent.pending_key = nullptr;
    }
  }

  void Fail(const YAML::Mark& mark, std::string message) {
    error_ = std::move(message);
    error_line_ = mark.line + 1;
  }

  YamlDocument& doc_;
  std::vector<Open_> stack_;
  std::map<YAML::anchor_t, const YamlNode*> anchors_;
  std::string error_;
  int error_line_ = 0;
};

Status SyntaxError(int line, int column, std::string_view what) {
  std::string m = "invalid YAML";
  if (line > 0) {
    m += " at line " + std::to_string(line);
    if (column > 0) m += ", column " + std::to_string(column);
  }
  m += ": ";
  m += what;
  return Status::Invalid(std::move(m));
}

}  // namespace

std::string YamlNode::Describe() const {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kSequence:
      return "a list";
    case Type::kMap:
      return "a map";
    case Type::kScalar:
      break;
  }
  if (plain && IsYamlBool(scalar)) return "a boolean";
  if (plain && LooksLikeNumber(scalar)) return "a number";
  return "a string";
}

YamlStream::YamlStream(std::string_view text)
    : in_(std::string(text)), max_documents_(text.size() + 1) {}

YamlStream::~YamlStream() = default;

namespace {
// yaml-cpp's parser is not safe to run on several threads at once: under
// concurrent API writes it misparsed valid JSON and crashed (kuota_api_bench,
// 32 clients). Until that is pinned down, parsing is serialized process-wide;
// this mutex guards nothing else.
std::mutex& YamlParserMutex() {
  static std::mutex mu;
  return mu;
}
}  // namespace

Result<std::unique_ptr<YamlDocument>> YamlStream::Next() {
  std::lock_guard<std::mutex> lock(YamlParserMutex());
  if (done_) return std::unique_ptr<YamlDocument>();
  auto doc = std::make_unique<YamlDocument>();
  TreeBuilder builder(*doc);
  bool more = false;
  try {
    if (parser_ == nullptr) parser_ = std::make_unique<YAML::Parser>(in_);
    more = parser_->HandleNextDocument(builder);
  } catch (const YAML::DeepRecursion& e) {
    done_ = true;
    return SyntaxError(
        e.mark.line + 1, e.mark.column + 1,
        "nested too deeply (yaml-cpp allows at most " + std::to_string(e.depth() - 1) + " levels)");
  } catch (const YAML::Exception& e) {
    done_ = true;
    // e.msg is the bare message; e.what() repeats the position.
    return SyntaxError(e.mark.is_null() ? 0 : e.mark.line + 1,
                       e.mark.is_null() ? 0 : e.mark.column + 1, e.msg);
  } catch (const std::bad_alloc&) {
    done_ = true;
    return Status::TooLarge("out of memory while parsing YAML");
  } catch (const std::exception& e) {
    done_ = true;
    return SyntaxError(0, 0, e.what());
  } catch (...) {
    done_ = true;
    return SyntaxError(0, 0, "unknown error from the YAML parser");
  }
  if (!builder.error().empty()) {
    done_ = true;
    return SyntaxError(builder.error_line(), 0, builder.error());
  }
  if (!more) {
    done_ = true;
    return std::unique_ptr<YamlDocument>();
  }
  if (++documents_ > max_documents_) {
    // Found by fuzzing (fuzz/regressions/yaml_decode): `,{"a": "b, "c":` then
    // "---" made yaml-cpp return the same empty document forever.
    done_ = true;
    return SyntaxError(0, 0,
                       "the YAML parser stopped advancing (malformed flow collection?) after " +
                           std::to_string(max_documents_) + " documents");
  }
  if (doc->root == nullptr) {
    doc->root = &doc->nodes.emplace_back();  // an empty document is null
    doc->nodes.back().line = doc->line;
  } else {
    doc->line = doc->root->line;
  }
  return doc;
}

}  // namespace kuota::codec
