#include "mcp/auth/form.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace agentrt::mcp::auth {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

absl::StatusOr<std::string> Unescape(std::string_view text, std::size_t offset) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%') {
      int hi = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
      int lo = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return absl::InvalidArgumentError(absl::StrCat("a malformed escape at byte ", offset + i));
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string FormEscape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (absl::ascii_isalnum(u) || c == '-' || c == '.' || c == '_' || c == '*') {
      out.push_back(c);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xF]);
    }
  }
  return out;
}

std::string FormEncode(const world::HttpFields& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out.push_back('&');
    absl::StrAppend(&out, FormEscape(name), "=", FormEscape(value));
  }
  return out;
}

absl::StatusOr<world::HttpFields> FormDecode(std::string_view text) {
  world::HttpFields out;
  std::size_t offset = 0;
  while (offset <= text.size()) {
    std::size_t amp = text.find('&', offset);
    if (amp == std::string_view::npos) amp = text.size();
    std::string_view pair = text.substr(offset, amp - offset);
    if (!pair.empty()) {
      std::size_t eq = pair.find('=');
      std::string_view name = pair.substr(0, eq);
      std::string_view value = eq == std::string_view::npos ? "" : pair.substr(eq + 1);
      absl::StatusOr<std::string> n = Unescape(name, offset);
      if (!n.ok()) return n.status();
      absl::StatusOr<std::string> v = Unescape(value, offset + name.size() + 1);
      if (!v.ok()) return v.status();
      out.emplace_back(*std::move(n), *std::move(v));
    }
    offset = amp + 1;
  }
  return out;
}

std::string WithQuery(std::string_view url, const world::HttpFields& fields) {
  std::string_view fragment;
  if (std::size_t hash = url.find('#'); hash != std::string_view::npos) {
    fragment = url.substr(hash);
    url = url.substr(0, hash);
  }
  std::string out(url);
  if (!fields.empty()) {
    char joiner = url.find('?') == std::string_view::npos ? '?' : (url.back() == '?' ? '\0' : '&');
    if (joiner != '\0') out.push_back(joiner);
    out += FormEncode(fields);
  }
  out += fragment;
  return out;
}

}  // namespace agentrt::mcp::auth
