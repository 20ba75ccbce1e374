#include "runtime/json/canonical_json.h"

#include <array>

#include "runtime/base/status_macros.h"
#include "runtime/json/canonical_number.h"
#include "runtime/json/intake.h"
#include "runtime/json/sha256.h"
#include "runtime/json/utf8.h"

namespace agentrt::json {
namespace {

constexpr std::array<bool, 256> MakeEscapeTable() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  t['"'] = true;
  t['\\'] = true;
  return t;
}
constexpr std::array<bool, 256> kNeedsEscape = MakeEscapeTable();

}  // namespace

void AppendCanonicalString(std::string_view text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (!kNeedsEscape[c]) continue;
    out.append(text.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default: {
        char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(u, sizeof(u));
      }
    }
  }
  out.append(text.data() + run, text.size() - run);
  out.push_back('"');
}

void AppendCanonical(Value value, std::string& out) {
  switch (value.kind()) {
    case Kind::kNull:
      out.append("null");
      return;
    case Kind::kBool:
      out.append(value.bool_value() ? "true" : "false");
      return;
    case Kind::kNumber:
      AppendCanonicalNumber(value.number_literal(), out);
      return;
    case Kind::kString:
      AppendCanonicalString(value.string_value(), out);
      return;
    case Kind::kArray: {
      out.push_back('[');
      for (std::size_t i = 0, n = value.size(); i < n; ++i) {
        if (i > 0) out.push_back(',');
        AppendCanonical(value.element(i), out);
      }
      out.push_back(']');
      return;
    }
    case Kind::kObject: {
      // Members are stored in canonical key order already (document.h).
      out.push_back('{');
      for (std::size_t i = 0, n = value.size(); i < n; ++i) {
        if (i > 0) out.push_back(',');
        AppendCanonicalString(value.key(i), out);
        out.push_back(':');
        AppendCanonical(value.member(i), out);
      }
      out.push_back('}');
      return;
    }
  }
}

std::string WriteCanonical(Value value) {
  std::string out;
  AppendCanonical(value, out);
  return out;
}

absl::StatusOr<std::string> Canonicalize(std::string_view bytes) {
  AGENTRT_ASSIGN_OR_RETURN(Document document, Parse(bytes));
  std::string out;
  out.reserve(bytes.size());
  AppendCanonical(document.root(), out);
  return out;
}

absl::StatusOr<std::string> HashCanonical(std::string_view json) {
  AGENTRT_ASSIGN_OR_RETURN(std::string canonical, Canonicalize(json));
  return Sha256Hex(canonical);
}

void AppendJsonString(std::string_view text, std::string& out) {
  if (IsValidUtf8(text)) {
    AppendCanonicalString(text, out);
  } else {
    AppendCanonicalString(ToValidUtf8(text), out);
  }
}

}  // namespace agentrt::json
