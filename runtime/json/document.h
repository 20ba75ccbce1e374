// runtime/json/document.h
//
// An immutable JSON document produced by strict intake (intake.h). Every value is reachable
// through the small `Value` handle; nothing is converted on the way in:
//   - numbers keep their literal text exactly as it arrived (no double rounding), so
//     9007199254740993 stays distinct from 9007199254740992;
//   - strings are decoded (escapes resolved) valid UTF-8 and may contain U+0000;
//   - object members are kept sorted by the UTF-16 code units of their keys (the canonical
//     order) and are unique, so lookup is a binary search and canonical output is a walk.
//     The order the members arrived in is not kept: record the raw bytes if you need them.
//
// A Document owns its storage; a Value is valid as long as its Document lives and is not
// moved from. Reading a Document from several threads at once is safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::json {

enum class Kind : std::uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

// The name of a kind as JSON Schema spells types: "null", "boolean", "number", ...
std::string_view KindName(Kind kind);

class Document;

class Value {
 public:
  Kind kind() const;
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_number() const { return kind() == Kind::kNumber; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_object() const { return kind() == Kind::kObject; }

  // Accessors for one kind; calling one on another kind is a programming error (checked by
  // assert in debug builds, returns an empty value otherwise).
  bool bool_value() const;
  std::string_view number_literal() const;  // e.g. "1.50E+3", exactly as it arrived
  std::string_view string_value() const;    // decoded UTF-8

  // Arrays and objects: number of elements or members. Zero for scalars.
  std::size_t size() const;
  Value element(std::size_t i) const;                     // arrays
  std::string_view key(std::size_t i) const;              // objects, in canonical key order
  Value member(std::size_t i) const;                      // objects, value of key(i)
  std::optional<Value> Find(std::string_view key) const;  // objects; nullopt when absent

  // Identity: two Values are the same value of the same document iff both are equal.
  const Document* document() const { return document_; }
  std::uint32_t id() const { return index_; }

 private:
  friend class Document;
  Value(const Document* document, std::uint32_t index) : document_(document), index_(index) {}

  const Document* document_;
  std::uint32_t index_;
};

class Document {
 public:
  Document() = default;
  Document(Document&&) = default;
  Document& operator=(Document&&) = default;
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  Value root() const { return Value(this, 0); }

 private:
  friend class Value;
  friend class DocumentBuilder;

  struct Node {
    Kind kind;
    bool flag;            // bool value
    std::uint32_t begin;  // text_ offset (number, string) or elements_/members_ offset
    std::uint32_t size;   // bytes (number, string) or element/member count
  };
  struct Member {
    std::uint32_t key_begin;
    std::uint32_t key_size;
    std::uint32_t value;
  };

  std::string text_;                     // decoded strings and number literals
  std::vector<Node> nodes_;              // nodes_[0] is the root
  std::vector<std::uint32_t> elements_;  // array elements, contiguous per array
  std::vector<Member> members_;          // object members, contiguous and sorted per object
};

// CompareUtf16 orders two UTF-8 strings by their UTF-16 code units, the order RFC 8785 sorts
// object keys in. It differs from byte order only between supplementary characters (which
// UTF-16 writes as surrogates, 0xD800..0xDFFF) and U+E000..U+FFFF. Returns <0, 0 or >0.
int CompareUtf16(std::string_view a, std::string_view b);

}  // namespace agentrt::json
