// sim/testkit/internal/tree.h
//
// A small mutable JSON value, for building and editing argument documents (json::Document is
// immutable). Json() writes it back as text with members in insertion order; callers
// canonicalize. Test-only.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/json/document.h"

namespace agentrt::testkit::internal {

struct Tree {
  json::Kind kind = json::Kind::kNull;
  bool flag = false;  // kBool
  std::string text;   // kNumber: the literal; kString: the decoded text
  std::vector<Tree> items;
  std::vector<std::pair<std::string, Tree>> members;  // unique keys

  static Tree Null() { return Tree{}; }
  static Tree Bool(bool b) { return Tree{json::Kind::kBool, b, "", {}, {}}; }
  static Tree Number(std::string literal) {
    return Tree{json::Kind::kNumber, false, std::move(literal), {}, {}};
  }
  static Tree String(std::string s) {
    return Tree{json::Kind::kString, false, std::move(s), {}, {}};
  }
  static Tree Array() { return Tree{json::Kind::kArray, false, "", {}, {}}; }
  static Tree Object() { return Tree{json::Kind::kObject, false, "", {}, {}}; }
  static Tree From(json::Value value);

  Tree* Find(std::string_view key);
  bool Erase(std::string_view key);
  void Set(std::string key, Tree value);  // replaces an existing member

  std::string Json() const;
};

}  // namespace agentrt::testkit::internal
