#include "runtime/json/intake.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"

namespace agentrt::json {
namespace {

// Byte classes for the string scanner: 0 = copy as is, 1 = needs attention.
constexpr std::array<bool, 256> MakeSpecialTable() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  t['"'] = true;
  t['\\'] = true;
  for (int c = 0x80; c < 0x100; ++c) t[c] = true;
  return t;
}
constexpr std::array<bool, 256> kSpecial = MakeSpecialTable();

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

// Builds a Document by recursive descent. Depth is bounded by limits.max_depth, so the
// recursion is too. Children are gathered on scratch stacks and copied out contiguously when
// their container closes; object members are sorted there, which also finds duplicates.
class DocumentBuilder {
 public:
  DocumentBuilder(std::string_view in, const IntakeLimits& limits) : in_(in), limits_(limits) {}

  absl::StatusOr<Document> Build() {
    if (in_.size() > limits_.max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "json: input of ", in_.size(), " bytes is larger than the limit of ", limits_.max_bytes));
    }
    if (in_.size() >= 3 && in_.substr(0, 3) == "\xEF\xBB\xBF") {
      return Error(0, "byte order mark before the value (JSON text must not start with one)");
    }
    // Room for a typical document at once, so it is built without regrowing: the decoded
    // strings and number literals never take more bytes than the input, a member takes at least
    // 6 input bytes and a node 1 (still linear in the input).
    doc_.text_.reserve(in_.size());
    doc_.nodes_.reserve(in_.size() / 8 + 1);
    doc_.members_.reserve(in_.size() / 16 + 1);
    member_stack_.reserve(in_.size() / 16 + 1);
    SkipWhitespace();
    if (pos_ == in_.size()) return Error(pos_, "empty input, expected a value");
    if (absl::Status s = ParseValue(0); !s.ok()) return s;
    SkipWhitespace();
    if (pos_ != in_.size()) return Error(pos_, "data after the JSON value");
    return std::move(doc_);
  }

 private:
  using Node = Document::Node;
  struct PendingMember {
    std::uint32_t key_begin;
    std::uint32_t key_size;
    std::uint32_t value;
    std::uint32_t key_offset;  // where the key began in the input, for errors
  };

  absl::Status Error(std::size_t offset, std::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("json: ", ToAbsl(what), " at byte ", offset));
  }

  absl::Status Unexpected(std::string_view expected) const {
    if (pos_ >= in_.size()) {
      return Error(pos_, absl::StrCat("unexpected end of input, expected ", ToAbsl(expected)));
    }
    auto c = static_cast<unsigned char>(in_[pos_]);
    std::string shown = (c >= 0x21 && c < 0x7F)
                            ? absl::StrCat("'", absl::string_view(&in_[pos_], 1), "'")
                            : absl::StrCat("byte 0x", absl::Hex(c, absl::kZeroPad2));
    return Error(pos_, absl::StrCat("unexpected ", shown, ", expected ", ToAbsl(expected)));
  }

  void SkipWhitespace() {
    while (pos_ < in_.size()) {
      char c = in_[pos_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
      ++pos_;
    }
  }

  std::uint32_t NewNode(Kind kind) {
    doc_.nodes_.push_back(Node{kind, false, 0, 0});
    return static_cast<std::uint32_t>(doc_.nodes_.size() - 1);
  }

  absl::Status ParseValue(int depth) {
    if (pos_ >= in_.size()) return Unexpected("a value");
    switch (in_[pos_]) {
      case '{':
        return ParseObject(depth + 1);
      case '[':
        return ParseArray(depth + 1);
      case '"': {
        std::uint32_t node = NewNode(Kind::kString);
        std::uint32_t begin, size;
        if (absl::Status s = ParseString(begin, size); !s.ok()) return s;
        doc_.nodes_[node].begin = begin;
        doc_.nodes_[node].size = size;
        return absl::OkStatus();
      }
      case 't':
        return ParseLiteral("true", Kind::kBool, true);
      case 'f':
        return ParseLiteral("false", Kind::kBool, false);
      case 'n':
        return ParseLiteral("null", Kind::kNull, false);
      default:
        if (in_[pos_] == '-' || IsDigit(in_[pos_])) return ParseNumber();
        return Unexpected("a value");
    }
  }

  absl::Status ParseLiteral(std::string_view word, Kind kind, bool flag) {
    if (in_.substr(pos_, word.size()) != word) return Unexpected("a value");
    pos_ += word.size();
    std::uint32_t node = NewNode(kind);
    doc_.nodes_[node].flag = flag;
    return absl::OkStatus();
  }

  // Scans a run of digits, counting them and noting the index of the first nonzero one among
  // all the literal's digits so far.
  void ScanDigits(std::int64_t& count, std::int64_t& first_nonzero) {
    while (pos_ < in_.size() && IsDigit(in_[pos_])) {
      if (first_nonzero < 0 && in_[pos_] != '0') first_nonzero = count;
      ++count;
      ++pos_;
    }
  }

  absl::Status ParseNumber() {
    std::size_t start = pos_;
    if (in_[pos_] == '-') ++pos_;
    if (pos_ >= in_.size() || !IsDigit(in_[pos_])) return Unexpected("a digit");
    if (in_[pos_] == '0' && pos_ + 1 < in_.size() && IsDigit(in_[pos_ + 1])) {
      return Error(pos_ + 1, "number with a leading zero");
    }
    std::int64_t digits = 0, first_nonzero = -1;
    ScanDigits(digits, first_nonzero);
    std::int64_t integer_digits = digits;
    if (pos_ < in_.size() && in_[pos_] == '.') {
      ++pos_;
      if (pos_ >= in_.size() || !IsDigit(in_[pos_])) return Unexpected("a digit after '.'");
      ScanDigits(digits, first_nonzero);
    }
    std::int64_t exponent = 0;
    if (pos_ < in_.size() && (in_[pos_] == 'e' || in_[pos_] == 'E')) {
      ++pos_;
      bool negative = false;
      if (pos_ < in_.size() && (in_[pos_] == '+' || in_[pos_] == '-')) {
        negative = in_[pos_] == '-';
        ++pos_;
      }
      if (pos_ >= in_.size() || !IsDigit(in_[pos_])) return Unexpected("a digit in the exponent");
      std::size_t exponent_start = pos_;
      while (pos_ < in_.size() && in_[pos_] == '0') ++pos_;
      while (pos_ < in_.size() && IsDigit(in_[pos_])) {
        if (exponent <= limits_.max_exponent) exponent = exponent * 10 + (in_[pos_] - '0');
        ++pos_;
      }
      if (exponent > limits_.max_exponent) {
        return Error(exponent_start,
                     absl::StrCat("number exponent beyond ±", limits_.max_exponent));
      }
      if (negative) exponent = -exponent;
    }
    // The bound applies to the value's magnitude too (the exponent of its first significant
    // digit, which canonical form writes), so that 123e10000 or 0.000…1e-10000 cannot carry
    // an exponent past the limit in through their digits, and canonical output is always
    // accepted again.
    if (first_nonzero >= 0) {
      std::int64_t magnitude = integer_digits - 1 - first_nonzero + exponent;
      if (magnitude > limits_.max_exponent || magnitude < -limits_.max_exponent) {
        return Error(start, absl::StrCat("number magnitude beyond 1e±", limits_.max_exponent));
      }
    }
    std::size_t length = pos_ - start;
    if (length > limits_.max_number_chars) {
      return Error(start, absl::StrCat("number literal of ", length,
                                       " characters is longer than the limit of ",
                                       limits_.max_number_chars));
    }
    std::uint32_t node = NewNode(Kind::kNumber);
    doc_.nodes_[node].begin = static_cast<std::uint32_t>(doc_.text_.size());
    doc_.nodes_[node].size = static_cast<std::uint32_t>(length);
    doc_.text_.append(in_.data() + start, length);
    return absl::OkStatus();
  }

  // Reads "\uXXXX" at pos_ (the backslash already consumed and 'u' at pos_).
  absl::Status ReadHex4(std::uint32_t& out) {
    if (pos_ + 5 > in_.size()) return Error(pos_ - 1, "truncated \\u escape");
    out = 0;
    for (std::size_t k = 1; k <= 4; ++k) {
      int h = HexValue(in_[pos_ + k]);
      if (h < 0) return Error(pos_ - 1, "\\u escape without four hex digits");
      out = out * 16 + static_cast<std::uint32_t>(h);
    }
    pos_ += 5;
    return absl::OkStatus();
  }

  absl::Status ParseString(std::uint32_t& begin, std::uint32_t& size) {
    std::size_t open = pos_;
    ++pos_;  // opening quote
    std::string& text = doc_.text_;
    begin = static_cast<std::uint32_t>(text.size());
    for (;;) {
      std::size_t run = pos_;
      while (pos_ < in_.size() && !kSpecial[static_cast<unsigned char>(in_[pos_])]) ++pos_;
      text.append(in_.data() + run, pos_ - run);
      if (pos_ >= in_.size()) return Error(open, "unterminated string");
      auto c = static_cast<unsigned char>(in_[pos_]);
      if (c == '"') {
        ++pos_;
        break;
      }
      if (c >= 0x80) {
        char32_t cp;
        auto n = static_cast<std::size_t>(DecodeUtf8(in_, pos_, &cp));
        if (n == 0) return Error(pos_, "invalid UTF-8 in string");
        text.append(in_.data() + pos_, n);
        pos_ += n;
        continue;
      }
      if (c < 0x20) {
        return Error(pos_, absl::StrCat("unescaped control character 0x",
                                        absl::Hex(c, absl::kZeroPad2), " in string"));
      }
      // Backslash.
      std::size_t escape = pos_;
      ++pos_;
      if (pos_ >= in_.size()) return Error(open, "unterminated string");
      char e = in_[pos_];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          text.push_back(e);
          ++pos_;
          continue;
        case 'b':
          text.push_back('\b');
          ++pos_;
          continue;
        case 'f':
          text.push_back('\f');
          ++pos_;
          continue;
        case 'n':
          text.push_back('\n');
          ++pos_;
          continue;
        case 'r':
          text.push_back('\r');
          ++pos_;
          continue;
        case 't':
          text.push_back('\t');
          ++pos_;
          continue;
        case 'u':
          break;
        default:
          return Error(escape, "invalid escape in string");
      }
      std::uint32_t cp = 0;
      if (absl::Status s = ReadHex4(cp); !s.ok()) return s;
      if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return Error(escape, "lone low surrogate escape in string");
      }
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (pos_ + 1 >= in_.size() || in_[pos_] != '\\' || in_[pos_ + 1] != 'u') {
          return Error(escape, "high surrogate escape not followed by a low surrogate");
        }
        ++pos_;
        std::uint32_t low = 0;
        if (absl::Status s = ReadHex4(low); !s.ok()) return s;
        if (low < 0xDC00 || low > 0xDFFF) {
          return Error(escape, "high surrogate escape not followed by a low surrogate");
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      }
      AppendUtf8(cp, text);
    }
    size = static_cast<std::uint32_t>(text.size() - begin);
    return absl::OkStatus();
  }

  absl::Status CheckDepth(int depth) const {
    if (depth > limits_.max_depth) {
      return Error(pos_, absl::StrCat("nesting deeper than ", limits_.max_depth, " levels"));
    }
    return absl::OkStatus();
  }

  absl::Status ParseArray(int depth) {
    if (absl::Status s = CheckDepth(depth); !s.ok()) return s;
    std::uint32_t node = NewNode(Kind::kArray);
    ++pos_;
    std::size_t mark = element_stack_.size();
    SkipWhitespace();
    if (pos_ < in_.size() && in_[pos_] == ']') {
      ++pos_;
    } else {
      for (;;) {
        SkipWhitespace();
        element_stack_.push_back(static_cast<std::uint32_t>(doc_.nodes_.size()));
        if (absl::Status s = ParseValue(depth); !s.ok()) return s;
        SkipWhitespace();
        if (pos_ < in_.size() && in_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < in_.size() && in_[pos_] == ']') {
          ++pos_;
          break;
        }
        return Unexpected("',' or ']'");
      }
    }
    Node& n = doc_.nodes_[node];
    n.begin = static_cast<std::uint32_t>(doc_.elements_.size());
    n.size = static_cast<std::uint32_t>(element_stack_.size() - mark);
    doc_.elements_.insert(doc_.elements_.end(), element_stack_.begin() + mark,
                          element_stack_.end());
    element_stack_.resize(mark);
    return absl::OkStatus();
  }

  absl::Status ParseObject(int depth) {
    if (absl::Status s = CheckDepth(depth); !s.ok()) return s;
    std::uint32_t node = NewNode(Kind::kObject);
    ++pos_;
    std::size_t mark = member_stack_.size();
    SkipWhitespace();
    if (pos_ < in_.size() && in_[pos_] == '}') {
      ++pos_;
    } else {
      for (;;) {
        SkipWhitespace();
        if (pos_ >= in_.size() || in_[pos_] != '"') return Unexpected("a string key");
        PendingMember m;
        m.key_offset = static_cast<std::uint32_t>(pos_);
        if (absl::Status s = ParseString(m.key_begin, m.key_size); !s.ok()) return s;
        SkipWhitespace();
        if (pos_ >= in_.size() || in_[pos_] != ':') return Unexpected("':'");
        ++pos_;
        SkipWhitespace();
        m.value = static_cast<std::uint32_t>(doc_.nodes_.size());
        if (absl::Status s = ParseValue(depth); !s.ok()) return s;
        member_stack_.push_back(m);
        SkipWhitespace();
        if (pos_ < in_.size() && in_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < in_.size() && in_[pos_] == '}') {
          ++pos_;
          break;
        }
        return Unexpected("',' or '}'");
      }
    }
    auto first = member_stack_.begin() + static_cast<std::ptrdiff_t>(mark);
    auto last = member_stack_.end();
    std::string_view text = doc_.text_;
    auto key = [&](const PendingMember& m) { return text.substr(m.key_begin, m.key_size); };
    if (last - first > 1) {
      std::sort(first, last, [&](const PendingMember& a, const PendingMember& b) {
        int c = CompareUtf16(key(a), key(b));
        return c != 0 ? c < 0 : a.key_offset < b.key_offset;
      });
      for (auto it = first + 1; it < last; ++it) {
        if (key(*it) == key(*(it - 1))) {
          return Error(it->key_offset, absl::StrCat("duplicate object key \"",
                                                    Truncate(Sanitize(key(*it)), 64), "\""));
        }
      }
    }
    Node& n = doc_.nodes_[node];
    n.begin = static_cast<std::uint32_t>(doc_.members_.size());
    n.size = static_cast<std::uint32_t>(last - first);
    for (auto it = first; it < last; ++it) {
      doc_.members_.push_back(Document::Member{it->key_begin, it->key_size, it->value});
    }
    member_stack_.resize(mark);
    return absl::OkStatus();
  }

  std::string_view in_;
  const IntakeLimits& limits_;
  std::size_t pos_ = 0;
  Document doc_;
  std::vector<std::uint32_t> element_stack_;
  std::vector<PendingMember> member_stack_;
};

absl::StatusOr<Document> Parse(std::string_view bytes, const IntakeLimits& limits) {
  return DocumentBuilder(bytes, limits).Build();
}

}  // namespace agentrt::json
