// Canonical form is a fixed point, and the hash depends only on meaning: re-serializing an
// accepted document with its members reversed and whitespace inserted hashes the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"

namespace {

using agentrt::json::Kind;
using agentrt::json::Value;

// Writes `value` with members in reverse canonical order, padded with whitespace, numbers
// as their original literals and strings escaped as \u sequences where possible: different
// bytes, same document.
void WriteScrambled(Value value, std::string& out) {
  switch (value.kind()) {
    case Kind::kNull:
      out += " null ";
      return;
    case Kind::kBool:
      out += value.bool_value() ? "true" : "false";
      return;
    case Kind::kNumber:
      out += value.number_literal();
      return;
    case Kind::kString: {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += '"';
      for (unsigned char c : value.string_value()) {
        if (c < 0x80) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
      }
      out += '"';
      return;
    }
    case Kind::kArray:
      out += "[ ";
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out += " ,\n";
        WriteScrambled(value.element(i), out);
      }
      out += "\t]";
      return;
    case Kind::kObject:
      out += "{\r\n";
      for (std::size_t i = value.size(); i-- > 0;) {
        std::string key;
        agentrt::json::AppendCanonicalString(value.key(i), key);
        out += key;
        out += " : ";
        WriteScrambled(value.member(i), out);
        if (i > 0) out += ",";
      }
      out += "}";
      return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<agentrt::json::Document> doc = agentrt::json::Parse(bytes);
  if (!doc.ok()) return 0;
  std::string canonical = agentrt::json::WriteCanonical(doc->root());
  absl::StatusOr<std::string> twice = agentrt::json::Canonicalize(canonical);
  if (!twice.ok() || *twice != canonical) std::abort();

  std::string scrambled;
  WriteScrambled(doc->root(), scrambled);
  absl::StatusOr<std::string> hash_a = agentrt::json::HashCanonical(bytes);
  absl::StatusOr<std::string> hash_b = agentrt::json::HashCanonical(scrambled);
  if (!hash_a.ok() || !hash_b.ok() || *hash_a != *hash_b) std::abort();
  return 0;
}
