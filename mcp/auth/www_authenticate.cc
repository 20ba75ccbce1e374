#include "mcp/auth/www_authenticate.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"

namespace agentrt::mcp::auth {
namespace {

// RFC 9110 §5.6.2 tchar.
bool IsTokenChar(char c) {
  if (absl::ascii_isalnum(static_cast<unsigned char>(c))) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

// RFC 9110 §11.2 token68 adds these to letters and digits (and '=' at its end).
bool IsToken68Char(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
         c == '~' || c == '+' || c == '/';
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  absl::StatusOr<std::vector<Challenge>> Parse() {
    if (text_.size() > kMaxChallengeBytes) {
      return Error(absl::StrCat("the header is over ", kMaxChallengeBytes, " bytes"));
    }
    for (std::size_t i = 0; i < text_.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(text_[i]);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        pos_ = i;
        return Error("a control character");
      }
    }
    std::vector<Challenge> out;
    SkipListSeparators();
    while (!AtEnd()) {
      Challenge challenge;
      std::string scheme = Token();
      if (scheme.empty()) return Error("expected an authentication scheme");
      challenge.scheme = absl::AsciiStrToLower(scheme);
      std::size_t spaces = SkipSpaces();
      if (!AtEnd() && Peek() != ',') {
        if (spaces == 0) return Error("expected a space after the scheme");
        if (absl::Status s = Rest(challenge); !s.ok()) return s;
      }
      out.push_back(std::move(challenge));
      SkipListSeparators();
    }
    return out;
  }

 private:
  // After the scheme and its space: a token68, or parameters up to the next challenge.
  absl::Status Rest(Challenge& challenge) {
    std::size_t start = pos_;
    std::string first = Token();
    SkipSpaces();
    if (AtEnd() || Peek() != '=' || IsToken68Tail()) {
      // token68: token68 chars then '='s, then the end or a comma.
      pos_ = start;
      while (!AtEnd() && IsToken68Char(Peek())) ++pos_;
      while (!AtEnd() && Peek() == '=') ++pos_;
      if (pos_ == start) return Error("expected a token68 or a parameter");
      challenge.token68 = std::string(text_.substr(start, pos_ - start));
      SkipSpaces();
      if (!AtEnd() && Peek() != ',') return Error("unexpected text after a token68");
      return absl::OkStatus();
    }
    pos_ = start;
    for (;;) {
      std::size_t item = pos_;
      std::string name = Token();
      if (name.empty()) return Error("expected a parameter name");
      SkipSpaces();
      if (AtEnd() || Peek() != '=') {
        pos_ = item;  // a token that is no parameter: the next challenge's scheme
        return absl::OkStatus();
      }
      ++pos_;
      SkipSpaces();
      std::string value;
      if (!AtEnd() && Peek() == '"') {
        absl::StatusOr<std::string> quoted = Quoted();
        if (!quoted.ok()) return quoted.status();
        value = *std::move(quoted);
      } else {
        value = Token();
        if (value.empty()) return Error("expected a token or a quoted string");
      }
      name = absl::AsciiStrToLower(name);
      if (challenge.Param(name).has_value()) {
        pos_ = item;
        return Error(absl::StrCat("the parameter \"", name, "\" is given twice"));
      }
      challenge.params.emplace_back(std::move(name), std::move(value));
      SkipSpaces();
      if (AtEnd()) return absl::OkStatus();
      if (Peek() != ',') return Error("expected a comma");
      SkipListSeparators();
      if (AtEnd()) return absl::OkStatus();
    }
  }

  // At '=' after a token: is this the padding of a token68 ("abc==" then the end or a comma)?
  bool IsToken68Tail() const {
    std::size_t i = pos_;
    while (i < text_.size() && text_[i] == '=') ++i;
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
    return i == text_.size() || text_[i] == ',';
  }

  absl::StatusOr<std::string> Quoted() {
    ++pos_;  // the opening quote
    std::string value;
    while (!AtEnd()) {
      char c = text_[pos_++];
      if (c == '"') return value;
      if (c == '\\') {
        if (AtEnd()) break;
        c = text_[pos_++];
      }
      value.push_back(c);
    }
    return Error("a quoted string is not closed");
  }

  std::string Token() {
    std::size_t start = pos_;
    while (!AtEnd() && IsTokenChar(Peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  std::size_t SkipSpaces() {
    std::size_t start = pos_;
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t')) ++pos_;
    return pos_ - start;
  }
  void SkipListSeparators() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == ',')) ++pos_;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }
  absl::Status Error(std::string_view why) const {
    return absl::InvalidArgumentError(
        absl::StrCat("WWW-Authenticate: ", ToAbsl(why), " at byte ", pos_));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::optional<std::string> Challenge::Param(std::string_view name) const {
  for (const auto& [key, value] : params) {
    if (key == name) return value;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<Challenge>> ParseChallenges(std::string_view header) {
  return Parser(header).Parse();
}

BearerChallenge FindBearer(const world::HttpFields& headers) {
  BearerChallenge out;
  for (const auto& [name, value] : headers) {
    if (!absl::EqualsIgnoreCase(name, "WWW-Authenticate")) continue;
    absl::StatusOr<std::vector<Challenge>> challenges = ParseChallenges(value);
    if (!challenges.ok()) continue;
    for (const Challenge& challenge : *challenges) {
      if (challenge.scheme != "bearer") continue;
      out.present = true;
      out.resource_metadata = challenge.Param("resource_metadata").value_or("");
      out.scope = challenge.Param("scope").value_or("");
      out.error = challenge.Param("error").value_or("");
      out.error_description = challenge.Param("error_description").value_or("");
      return out;
    }
  }
  return out;
}

}  // namespace agentrt::mcp::auth
