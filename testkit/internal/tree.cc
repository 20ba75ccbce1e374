#include "testkit/internal/tree.h"

#include "runtime/json/canonical_json.h"

namespace agentrt::testkit::internal {

Tree Tree::From(json::Value value) {
  switch (value.kind()) {
    case json::Kind::kNull:
      return Null();
    case json::Kind::kBool:
      return Bool(value.bool_value());
    case json::Kind::kNumber:
      return Number(std::string(value.number_literal()));
    case json::Kind::kString:
      return String(std::string(value.string_value()));
    case json::Kind::kArray: {
      Tree t = Array();
      for (std::size_t i = 0; i < value.size(); ++i) t.items.push_back(From(value.element(i)));
      return t;
    }
    case json::Kind::kObject: {
      Tree t = Object();
      for (std::size_t i = 0; i < value.size(); ++i) {
        t.members.push_back(Member{std::string(value.key(i)), From(value.member(i))});
      }
      return t;
    }
  }
  return Null();
}

Tree* Tree::Find(std::string_view key) {
  for (auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool Tree::Erase(std::string_view key) {
  for (auto it = members.begin(); it != members.end(); ++it) {
    if (it->first == key) {
      members.erase(it);
      return true;
    }
  }
  return false;
}

void Tree::Set(std::string key, Tree value) {
  if (Tree* existing = Find(key)) {
    *existing = std::move(value);
    return;
  }
  members.push_back(Member{std::move(key), std::move(value)});
}

std::string Tree::Json() const {
  switch (kind) {
    case json::Kind::kNull:
      return "null";
    case json::Kind::kBool:
      return flag ? "true" : "false";
    case json::Kind::kNumber:
      return text;
    case json::Kind::kString: {
      std::string out;
      json::AppendCanonicalString(text, out);
      return out;
    }
    case json::Kind::kArray: {
      std::string out = "[";
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ",";
        out += items[i].Json();
      }
      return out + "]";
    }
    case json::Kind::kObject: {
      std::string out = "{";
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (i > 0) out += ",";
        json::AppendCanonicalString(members[i].first, out);
        out += ":";
        out += members[i].second.Json();
      }
      return out + "}";
    }
  }
  return "null";
}

}  // namespace agentrt::testkit::internal
