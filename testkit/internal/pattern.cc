#include "testkit/internal/pattern.h"

#include <memory>
#include <utility>
#include <vector>

#include "runtime/json/utf8.h"

namespace agentrt::testkit::internal {
namespace {

struct Alt;

struct Atom {
  enum class Kind { kLiteral, kClass, kGroup } kind = Kind::kLiteral;
  char32_t literal = 0;
  std::vector<std::pair<char32_t, char32_t>> ranges;  // kClass
  bool negated = false;                               // kClass
  std::shared_ptr<Alt> group;                         // kGroup
};

struct Item {
  Atom atom;
  int min = 1;
  int max = 1;
};

struct Alt {
  std::vector<std::vector<Item>> branches;
};

// What negated classes and `.` draw from.
constexpr std::u32string_view kPool =
    U"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-./:@#%+=,;!?~()[]{}<>'\"\\"
    U"\t\néü日";

// The pattern's code points; `ok` is false when it is not valid UTF-8.
std::vector<char32_t> CodePoints(std::string_view s, bool& ok) {
  std::vector<char32_t> out;
  ok = true;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp;
    int n = json::DecodeUtf8(s, i, &cp);
    if (n <= 0) {
      ok = false;
      return out;
    }
    out.push_back(cp);
    i += static_cast<std::size_t>(n);
  }
  return out;
}

class Parser {
 public:
  Parser(std::vector<char32_t> p, int max_repeat) : p_(std::move(p)), max_repeat_(max_repeat) {}

  std::optional<Alt> Parse() {
    std::optional<Alt> alt = ParseAlt();
    if (!alt || pos_ != p_.size()) return std::nullopt;
    return alt;
  }

 private:
  bool AtEnd() const { return pos_ >= p_.size(); }
  char32_t Peek() const { return p_[pos_]; }

  std::optional<Alt> ParseAlt() {
    Alt alt;
    alt.branches.emplace_back();
    while (!AtEnd() && Peek() != U')') {
      if (Peek() == U'|') {
        ++pos_;
        alt.branches.emplace_back();
        continue;
      }
      std::optional<Item> item = ParseItem();
      if (!item) {
        if (failed_) return std::nullopt;
        continue;  // an anchor: matches the empty string
      }
      alt.branches.back().push_back(*std::move(item));
    }
    return alt;
  }

  static Atom Class(std::vector<std::pair<char32_t, char32_t>> ranges, bool negated) {
    Atom a;
    a.kind = Atom::Kind::kClass;
    a.ranges = std::move(ranges);
    a.negated = negated;
    return a;
  }
  static Atom Literal(char32_t c) {
    Atom a;
    a.literal = c;
    return a;
  }

  // A shorthand class (\d \w \s, upper case negated), or nullopt.
  static std::optional<Atom> Shorthand(char32_t c) {
    switch (c) {
      case U'd':
      case U'D':
        return Class({{U'0', U'9'}}, c == U'D');
      case U'w':
      case U'W':
        return Class({{U'a', U'z'}, {U'A', U'Z'}, {U'0', U'9'}, {U'_', U'_'}}, c == U'W');
      case U's':
      case U'S':
        return Class({{U' ', U' '}, {U'\t', U'\r'}}, c == U'S');
      default:
        return std::nullopt;
    }
  }

  // An escaped literal after the backslash, or nullopt (failed_ set) for what is unsupported.
  std::optional<char32_t> EscapedLiteral() {
    if (AtEnd()) return Fail();
    char32_t c = p_[pos_++];
    switch (c) {
      case U'n':
        return U'\n';
      case U't':
        return U'\t';
      case U'r':
        return U'\r';
      case U'f':
        return U'\f';
      case U'v':
        return U'\v';
      case U'0':
        return U'\0';
      case U'x':
        return Hex(2);
      case U'u':
        return Hex(4);
      default:
        break;
    }
    if ((c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') || (c >= U'0' && c <= U'9')) {
      return Fail();  // \b, back references, \p{..}: not drawn
    }
    return c;
  }

  std::optional<char32_t> Hex(int digits) {
    char32_t v = 0;
    for (int i = 0; i < digits; ++i) {
      if (AtEnd()) return Fail();
      char32_t c = p_[pos_++];
      int d = (c >= U'0' && c <= U'9')   ? static_cast<int>(c - U'0')
              : (c >= U'a' && c <= U'f') ? static_cast<int>(c - U'a' + 10)
              : (c >= U'A' && c <= U'F') ? static_cast<int>(c - U'A' + 10)
                                         : -1;
      if (d < 0) return Fail();
      v = v * 16 + static_cast<char32_t>(d);
    }
    return v;
  }

  std::nullopt_t Fail() {
    failed_ = true;
    return std::nullopt;
  }

  std::optional<Atom> ParseClass() {
    bool negated = false;
    if (!AtEnd() && Peek() == U'^') {
      negated = true;
      ++pos_;
    }
    std::vector<std::pair<char32_t, char32_t>> ranges;
    bool first = true;
    while (!AtEnd() && (Peek() != U']' || first)) {
      first = false;
      char32_t lo = p_[pos_++];
      if (lo == U'\\') {
        if (AtEnd()) return Fail();
        if (std::optional<Atom> s = Shorthand(Peek())) {
          if (s->negated) return Fail();
          ++pos_;
          ranges.insert(ranges.end(), s->ranges.begin(), s->ranges.end());
          continue;
        }
        std::optional<char32_t> e = EscapedLiteral();
        if (!e) return std::nullopt;
        lo = *e;
      } else if (lo == U'[') {
        return Fail();  // POSIX classes
      }
      char32_t hi = lo;
      if (pos_ + 1 < p_.size() && Peek() == U'-' && p_[pos_ + 1] != U']') {
        ++pos_;
        hi = p_[pos_++];
        if (hi == U'\\') {
          std::optional<char32_t> e = EscapedLiteral();
          if (!e) return std::nullopt;
          hi = *e;
        }
        if (hi < lo) return Fail();
      }
      ranges.emplace_back(lo, hi);
    }
    if (AtEnd()) return Fail();
    ++pos_;  // ]
    return Class(std::move(ranges), negated);
  }

  std::optional<Item> ParseItem() {
    char32_t c = p_[pos_++];
    Item item;
    switch (c) {
      case U'^':
      case U'$':
        return std::nullopt;
      case U'.':
        item.atom = Class({{U'\n', U'\n'}, {U'\r', U'\r'}}, true);
        break;
      case U'[': {
        std::optional<Atom> a = ParseClass();
        if (!a) return std::nullopt;
        item.atom = *std::move(a);
        break;
      }
      case U'(': {
        if (!AtEnd() && Peek() == U'?') {
          ++pos_;
          if (AtEnd()) return Fail();
          if (Peek() == U':') {
            ++pos_;
          } else if (Peek() == U'<' || Peek() == U'P') {
            if (Peek() == U'P') ++pos_;
            if (AtEnd() || Peek() != U'<') return Fail();
            ++pos_;
            if (!AtEnd() && (Peek() == U'=' || Peek() == U'!')) return Fail();  // lookbehind
            while (!AtEnd() && Peek() != U'>') ++pos_;
            if (AtEnd()) return Fail();
            ++pos_;
          } else {
            return Fail();  // lookahead, flags
          }
        }
        std::optional<Alt> inner = ParseAlt();
        if (!inner || AtEnd() || Peek() != U')') return Fail();
        ++pos_;
        item.atom.kind = Atom::Kind::kGroup;
        item.atom.group = std::make_shared<Alt>(*std::move(inner));
        break;
      }
      case U'\\': {
        if (AtEnd()) return Fail();
        if (std::optional<Atom> s = Shorthand(Peek())) {
          ++pos_;
          item.atom = *std::move(s);
          break;
        }
        std::optional<char32_t> e = EscapedLiteral();
        if (!e) return std::nullopt;
        item.atom = Literal(*e);
        break;
      }
      case U')':
      case U'*':
      case U'+':
      case U'?':
        return Fail();
      default:
        item.atom = Literal(c);
        break;
    }
    if (!ParseQuantifier(item)) return Fail();
    return item;
  }

  bool ParseQuantifier(Item& item) {
    if (AtEnd()) return true;
    char32_t c = Peek();
    if (c == U'?') {
      item.min = 0, item.max = 1;
    } else if (c == U'*') {
      item.min = 0, item.max = max_repeat_;
    } else if (c == U'+') {
      item.min = 1, item.max = 1 + max_repeat_;
    } else if (c == U'{') {
      std::size_t save = pos_++;
      std::optional<int> lo = Number();
      if (!lo) {
        pos_ = save;  // a literal brace
        return true;
      }
      int hi = *lo;
      if (!AtEnd() && Peek() == U',') {
        ++pos_;
        std::optional<int> m = Number();
        hi = m ? *m : *lo + max_repeat_;
      }
      if (AtEnd() || Peek() != U'}' || hi < *lo) return false;
      item.min = *lo;
      item.max = std::min(hi, *lo + 8);
    } else {
      return true;
    }
    ++pos_;
    if (!AtEnd() && (Peek() == U'?' || Peek() == U'+')) ++pos_;  // lazy, possessive
    return true;
  }

  std::optional<int> Number() {
    int v = 0;
    std::size_t start = pos_;
    while (!AtEnd() && Peek() >= U'0' && Peek() <= U'9' && v < 100000) {
      v = v * 10 + static_cast<int>(Peek() - U'0');
      ++pos_;
    }
    if (pos_ == start) return std::nullopt;
    return v;
  }

  std::vector<char32_t> p_;
  std::size_t pos_ = 0;
  int max_repeat_;
  bool failed_ = false;
};

bool InClass(const Atom& a, char32_t c) {
  for (auto [lo, hi] : a.ranges) {
    if (c >= lo && c <= hi) return true;
  }
  return false;
}

bool Draw(const Alt& alt, Rng& rng, std::string& out, int depth);

bool DrawAtom(const Atom& a, Rng& rng, std::string& out, int depth) {
  switch (a.kind) {
    case Atom::Kind::kLiteral:
      json::AppendUtf8(a.literal, out);
      return true;
    case Atom::Kind::kGroup:
      return Draw(*a.group, rng, out, depth + 1);
    case Atom::Kind::kClass: {
      if (a.negated) {
        for (int tries = 0; tries < 64; ++tries) {
          char32_t c = kPool[rng.Below(kPool.size())];
          if (!InClass(a, c)) {
            json::AppendUtf8(c, out);
            return true;
          }
        }
        return false;
      }
      if (a.ranges.empty()) return false;
      auto [lo, hi] = a.ranges[rng.Below(a.ranges.size())];
      json::AppendUtf8(
          lo + static_cast<char32_t>(rng.Below(static_cast<std::uint64_t>(hi - lo) + 1)), out);
      return true;
    }
  }
  return false;
}

bool Draw(const Alt& alt, Rng& rng, std::string& out, int depth) {
  if (depth > 32 || alt.branches.empty()) return false;
  const std::vector<Item>& branch = alt.branches[rng.Below(alt.branches.size())];
  for (const Item& item : branch) {
    int n = static_cast<int>(rng.Between(item.min, item.max));
    for (int i = 0; i < n; ++i) {
      if (!DrawAtom(item.atom, rng, out, depth)) return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> FromPattern(std::string_view pattern, Rng& rng, int max_repeat) {
  bool ok = false;
  std::vector<char32_t> cps = CodePoints(pattern, ok);
  if (!ok) return std::nullopt;
  std::optional<Alt> alt = Parser(std::move(cps), max_repeat).Parse();
  if (!alt) return std::nullopt;
  std::string out;
  if (!Draw(*alt, rng, out, 0)) return std::nullopt;
  return out;
}

}  // namespace agentrt::testkit::internal
