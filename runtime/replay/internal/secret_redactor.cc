#include "runtime/replay/internal/secret_redactor.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "runtime/replay/internal/convert.h"

namespace agentrt::replay::internal {
namespace {

constexpr std::array<std::string_view, 8> kFormSecrets = {
    "client_secret",    "code",      "code_verifier", "refresh_token",
    "client_assertion", "assertion", "subject_token", "password"};
constexpr std::array<std::string_view, 5> kJsonSecrets = {
    "access_token", "refresh_token", "id_token", "client_secret", "registration_access_token"};

template <std::size_t N>
bool IsOneOf(std::string_view name, const std::array<std::string_view, N>& list) {
  for (std::string_view secret : list) {
    if (name == secret) return true;
  }
  return false;
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A form field's name as the server reads it: '+' a space, %XX its byte.
std::string FormName(std::string_view raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '+') {
      out.push_back(' ');
    } else if (raw[i] == '%' && i + 2 < raw.size() && Hex(raw[i + 1]) >= 0 &&
               Hex(raw[i + 2]) >= 0) {
      out.push_back(static_cast<char>(Hex(raw[i + 1]) * 16 + Hex(raw[i + 2])));
      i += 2;
    } else {
      out.push_back(raw[i]);
    }
  }
  return out;
}

}  // namespace

std::string RedactForm(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  std::size_t start = 0;
  while (start <= body.size()) {
    std::size_t end = body.find('&', start);
    if (end == std::string_view::npos) end = body.size();
    std::string_view pair = body.substr(start, end - start);
    std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos && IsOneOf(FormName(pair.substr(0, eq)), kFormSecrets)) {
      out.append(pair.substr(0, eq + 1));
      out.append(kRedacted);
    } else {
      out.append(pair);
    }
    if (end == body.size()) break;
    out.push_back('&');
    start = end + 1;
  }
  return out;
}

void JsonRedactor::Collect(char c) {
  if (name_.size() < kMaxName) {
    name_.push_back(c);
  } else {
    name_too_long_ = true;
  }
}

std::string JsonRedactor::Feed(std::string_view chunk) {
  std::string out;
  out.reserve(chunk.size());
  for (char c : chunk) {
    switch (state_) {
      case State::kOutside:
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
          out.push_back(c);
          break;
        }
        if (c == ':' && after_string_) {
          key_ = last_;
          secret_next_ = IsOneOf(key_, kJsonSecrets);
          after_string_ = false;
          out.push_back(c);
          break;
        }
        after_string_ = false;
        if (c == '"') {
          out.push_back(c);
          if (secret_next_) {
            out.append(kRedacted);
            state_ = State::kSecret;
          } else {
            state_ = State::kString;
            name_.clear();
            name_too_long_ = false;
          }
          secret_next_ = false;
          escape_ = false;
          unicode_.clear();
          break;
        }
        secret_next_ = false;
        out.push_back(c);
        break;
      case State::kString:
      case State::kSecret: {
        bool secret = state_ == State::kSecret;
        if (!secret) out.push_back(c);
        if (!unicode_.empty()) {  // reading \uXXXX
          unicode_.push_back(c);
          if (unicode_.size() == 5) {
            int value = 0;
            for (int i = 1; i < 5; ++i) value = value * 16 + std::max(Hex(unicode_[i]), 0);
            if (!secret) Collect(value < 0x80 ? static_cast<char>(value) : '?');
            unicode_.clear();
          }
          break;
        }
        if (escape_) {
          escape_ = false;
          if (c == 'u') {
            unicode_ = "u";
          } else if (!secret) {
            Collect(c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c);
          }
          break;
        }
        if (c == '\\') {
          escape_ = true;
          break;
        }
        if (c == '"') {
          if (secret) out.push_back(c);
          if (!secret) {
            last_ = name_too_long_ ? std::string() : name_;
            after_string_ = true;
          }
          state_ = State::kOutside;
          break;
        }
        if (!secret) Collect(c);
        break;
      }
    }
  }
  return out;
}

}  // namespace agentrt::replay::internal
