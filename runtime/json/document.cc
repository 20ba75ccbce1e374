#include "runtime/json/document.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace agentrt::json {

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "boolean";
    case Kind::kNumber:
      return "number";
    case Kind::kString:
      return "string";
    case Kind::kArray:
      return "array";
    case Kind::kObject:
      return "object";
  }
  return "unknown";
}

Kind Value::kind() const { return document_->nodes_[index_].kind; }

bool Value::bool_value() const {
  assert(is_bool());
  return document_->nodes_[index_].flag;
}

std::string_view Value::number_literal() const {
  const Document::Node& node = document_->nodes_[index_];
  assert(node.kind == Kind::kNumber);
  if (node.kind != Kind::kNumber) return {};
  return std::string_view(document_->text_).substr(node.begin, node.size);
}

std::string_view Value::string_value() const {
  const Document::Node& node = document_->nodes_[index_];
  assert(node.kind == Kind::kString);
  if (node.kind != Kind::kString) return {};
  return std::string_view(document_->text_).substr(node.begin, node.size);
}

std::size_t Value::size() const {
  const Document::Node& node = document_->nodes_[index_];
  return (node.kind == Kind::kArray || node.kind == Kind::kObject) ? node.size : 0;
}

Value Value::element(std::size_t i) const {
  const Document::Node& node = document_->nodes_[index_];
  assert(node.kind == Kind::kArray && i < node.size);
  return Value(document_, document_->elements_[node.begin + i]);
}

std::string_view Value::key(std::size_t i) const {
  const Document::Node& node = document_->nodes_[index_];
  assert(node.kind == Kind::kObject && i < node.size);
  const Document::Member& m = document_->members_[node.begin + i];
  return std::string_view(document_->text_).substr(m.key_begin, m.key_size);
}

Value Value::member(std::size_t i) const {
  const Document::Node& node = document_->nodes_[index_];
  assert(node.kind == Kind::kObject && i < node.size);
  return Value(document_, document_->members_[node.begin + i].value);
}

std::optional<Value> Value::Find(std::string_view key) const {
  const Document::Node& node = document_->nodes_[index_];
  if (node.kind != Kind::kObject) return std::nullopt;
  std::size_t lo = 0, hi = node.size;
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    int c = CompareUtf16(this->key(mid), key);
    if (c == 0) return member(mid);
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return std::nullopt;
}

int CompareUtf16(std::string_view a, std::string_view b) {
  std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  // Most keys are ASCII and short: find the first differing byte.
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c == 0) {
    if (a.size() == b.size()) return 0;
    return a.size() < b.size() ? -1 : 1;
  }
  while (a[i] == b[i]) ++i;
  auto x = static_cast<unsigned char>(a[i]);
  auto y = static_cast<unsigned char>(b[i]);
  // Differing lead bytes decide the order of two code points. A supplementary character
  // (lead 0xF0..0xF4) is a surrogate pair in UTF-16 and sorts before U+E000..U+FFFF
  // (leads 0xEE, 0xEF), although its UTF-8 bytes are larger. A difference in continuation
  // bytes means equal lead bytes, where byte order and UTF-16 order agree.
  bool x_supplementary = x >= 0xF0, y_supplementary = y >= 0xF0;
  bool x_high_bmp = x == 0xEE || x == 0xEF, y_high_bmp = y == 0xEE || y == 0xEF;
  if (x_supplementary && y_high_bmp) return -1;
  if (y_supplementary && x_high_bmp) return 1;
  return x < y ? -1 : 1;
}

}  // namespace agentrt::json
