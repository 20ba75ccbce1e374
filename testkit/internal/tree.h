// testkit/internal/tree.h
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
  // An object member. Defined after Tree: a member holding a Tree by value needs it complete
  // (std::pair<std::string, Tree> does not compile with every standard library here).
  struct Member;

  json::Kind kind = json::Kind::kNull;
  bool flag = false;  // kBool
  std::string text;   // kNumber: the literal; kString: the decoded text
  std::vector<Tree> items;
  std::vector<Member> members;  // unique keys

  static Tree Null();
  static Tree Bool(bool b);
  static Tree Number(std::string literal);
  static Tree String(std::string s);
  static Tree Array();
  static Tree Object();
  static Tree From(json::Value value);

  Tree* Find(std::string_view key);
  bool Erase(std::string_view key);
  void Set(std::string key, Tree value);  // replaces an existing member

  std::string Json() const;
};

struct Tree::Member {
  std::string first;  // the key
  Tree second;        // the value
};

inline Tree Tree::Null() { return Tree{}; }
inline Tree Tree::Bool(bool b) { return Tree{json::Kind::kBool, b, "", {}, {}}; }
inline Tree Tree::Number(std::string literal) {
  return Tree{json::Kind::kNumber, false, std::move(literal), {}, {}};
}
inline Tree Tree::String(std::string s) {
  return Tree{json::Kind::kString, false, std::move(s), {}, {}};
}
inline Tree Tree::Array() { return Tree{json::Kind::kArray, false, "", {}, {}}; }
inline Tree Tree::Object() { return Tree{json::Kind::kObject, false, "", {}, {}}; }

}  // namespace agentrt::testkit::internal
