#include "testkit/schema_fuzz.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/base/write_all.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/sanitize.h"
#include "runtime/schema/schema.h"
#include "runtime/tool_registry.h"
#include "runtime/world/clock.h"
#include "testkit/internal/child.h"
#include "testkit/internal/pattern.h"
#include "testkit/internal/rng.h"
#include "testkit/internal/tree.h"

namespace agentrt::testkit {
namespace {

using internal::Rng;
using internal::Tree;
using json::Value;

// JSON Schema types as bits; "number" is both integers and other numbers.
enum : int {
  kNull = 1,
  kBool = 2,
  kInteger = 4,
  kFraction = 8,
  kString = 16,
  kArray = 32,
  kObject = 64,
  kAnyType = 127,
};

int TypeBit(std::string_view name) {
  if (name == "null") return kNull;
  if (name == "boolean") return kBool;
  if (name == "integer") return kInteger;
  if (name == "number") return kInteger | kFraction;
  if (name == "string") return kString;
  if (name == "array") return kArray;
  if (name == "object") return kObject;
  return 0;
}

std::string TypeNames(int mask) {
  std::string out;
  auto add = [&](std::string_view name) {
    absl::StrAppend(&out, out.empty() ? "" : "/", ToAbsl(name));
  };
  if (mask & kNull) add("null");
  if (mask & kBool) add("boolean");
  if ((mask & (kInteger | kFraction)) == (kInteger | kFraction)) {
    add("number");
  } else if (mask & kInteger) {
    add("integer");
  }
  if (mask & kString) add("string");
  if (mask & kArray) add("array");
  if (mask & kObject) add("object");
  return out;
}

std::optional<double> NumberOf(std::optional<Value> v) {
  if (!v || !v->is_number()) return std::nullopt;
  std::string literal(v->number_literal());
  char* end = nullptr;
  double d = std::strtod(literal.c_str(), &end);
  if (end == literal.c_str() || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<std::int64_t> CountOf(std::optional<Value> v) {
  std::optional<double> d = NumberOf(v);
  if (!d || *d < 0 || *d > 1e9 || std::floor(*d) != *d) return std::nullopt;
  return static_cast<std::int64_t>(*d);
}

// A number literal for `d`: integers exactly, others with enough digits to read back.
std::string Literal(double d) {
  if (std::floor(d) == d && std::fabs(d) < 1e15) {
    return absl::StrCat(static_cast<std::int64_t>(d));
  }
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", d);
  return buffer;
}

std::size_t CodePoints(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The characters strings are drawn from: mostly plain, sometimes what breaks naive code.
constexpr std::string_view kPlain = "abcdefghijklmnopqrstuvwxyz0123456789";
const char* const kTricky[] = {" ", "/",  ".", "-",  "_", "\"", "\\", "\n", "\t",
                               "é", "日", "😀", "..", "%", "'",  "<",  "$"};

std::string DrawText(Rng& rng, std::size_t length) {
  std::string out;
  for (std::size_t i = 0; i < length; ++i) {
    if (rng.OneIn(6)) {
      std::string_view t = kTricky[rng.Below(std::size(kTricky))];
      out += t.substr(0, t == ".." ? 1 : t.size());
    } else {
      out += kPlain[rng.Below(kPlain.size())];
    }
  }
  return out;
}

std::optional<std::string> FormatSample(std::string_view format) {
  if (format == "date-time") return "2024-01-02T03:04:05Z";
  if (format == "date") return "2024-01-02";
  if (format == "time") return "03:04:05Z";
  if (format == "email") return "someone@example.com";
  if (format == "uri" || format == "iri" || format == "uri-reference")
    return "https://example.com/a";
  if (format == "uuid") return "123e4567-e89b-12d3-a456-426614174000";
  if (format == "ipv4") return "192.0.2.1";
  if (format == "ipv6") return "2001:db8::1";
  if (format == "hostname") return "example.com";
  return std::nullopt;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 && HexDigit(s[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// One step of a path into an argument document.
struct PathStep {
  bool is_index = false;
  std::string key;
  std::size_t index = 0;
};

std::string Pointer(const std::vector<PathStep>& path) {
  if (path.empty()) return "the top";
  std::string out;
  for (const PathStep& step : path) {
    out += "/";
    out += step.is_index ? std::to_string(step.index) : step.key;
  }
  return out;
}

Tree* At(Tree& root, const std::vector<PathStep>& path) {
  Tree* node = &root;
  for (const PathStep& step : path) {
    if (step.is_index) {
      if (step.index >= node->items.size()) return nullptr;
      node = &node->items[step.index];
    } else {
      node = node->Find(step.key);
      if (node == nullptr) return nullptr;
    }
  }
  return node;
}

// Draws documents for one schema document. The schema is read through conjunctions: a list
// of subschemas a value must all satisfy (a schema, what its $ref names, its allOf, one
// branch of its anyOf/oneOf).
class Drawer {
 public:
  Drawer(const json::Document& schema, Rng& rng, const FuzzOptions& options)
      : root_(schema.root()), rng_(rng), options_(options) {}

  // The subschemas `in` stands for; nullopt when one of them is `false`.
  std::optional<std::vector<Value>> Expand(std::vector<Value> in) {
    std::vector<Value> out;
    int budget = 64;  // references followed: a recursive schema stops here
    while (!in.empty()) {
      Value v = in.back();
      in.pop_back();
      if (v.is_bool()) {
        if (!v.bool_value()) return std::nullopt;
        continue;
      }
      if (!v.is_object()) continue;
      out.push_back(v);
      for (std::string_view key : {"$ref", "$recursiveRef", "$dynamicRef"}) {
        std::optional<Value> ref = v.Find(key);
        if (ref && ref->is_string() && budget-- > 0) {
          if (std::optional<Value> target = Resolve(ref->string_value())) in.push_back(*target);
        }
      }
      if (std::optional<Value> all = v.Find("allOf"); all && all->is_array()) {
        for (std::size_t i = 0; i < all->size(); ++i) in.push_back(all->element(i));
      }
      for (std::string_view key : {"anyOf", "oneOf"}) {
        std::optional<Value> any = v.Find(key);
        if (any && any->is_array() && any->size() > 0) {
          in.push_back(any->element(rng_.Below(any->size())));
        }
      }
    }
    return out;
  }

  static std::vector<Value> All(const std::vector<Value>& c, std::string_view key) {
    std::vector<Value> out;
    for (Value v : c) {
      if (std::optional<Value> found = v.Find(key)) out.push_back(*found);
    }
    return out;
  }

  static int Types(const std::vector<Value>& c, bool& stated) {
    int mask = kAnyType;
    stated = false;
    for (Value t : All(c, "type")) {
      int m = 0;
      if (t.is_string()) {
        m = TypeBit(t.string_value());
      } else if (t.is_array()) {
        for (std::size_t i = 0; i < t.size(); ++i) {
          if (t.element(i).is_string()) m |= TypeBit(t.element(i).string_value());
        }
      } else {
        continue;
      }
      stated = true;
      mask &= m;
    }
    return mask;
  }

  // The types a schema's keywords suggest when it names none.
  static int Inferred(const std::vector<Value>& c) {
    auto has = [&](std::initializer_list<std::string_view> keys) {
      for (std::string_view k : keys) {
        if (!All(c, k).empty()) return true;
      }
      return false;
    };
    if (has({"properties", "required", "additionalProperties", "minProperties", "maxProperties",
             "patternProperties", "dependentRequired", "propertyNames"})) {
      return kObject;
    }
    if (has({"items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems"})) {
      return kArray;
    }
    if (has({"minLength", "maxLength", "pattern", "format"})) return kString;
    if (has({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})) {
      return kInteger | kFraction;
    }
    return kAnyType;
  }

  std::optional<Tree> Draw(const std::vector<Value>& conj, int depth) {
    std::optional<std::vector<Value>> expanded = Expand(conj);
    if (!expanded || depth > options_.max_depth + 8) return std::nullopt;
    const std::vector<Value>& c = *expanded;
    if (std::vector<Value> k = All(c, "const"); !k.empty()) return Tree::From(k.front());
    if (std::vector<Value> e = All(c, "enum"); !e.empty() && e.front().is_array()) {
      if (e.front().size() == 0) return std::nullopt;
      return Tree::From(e.front().element(rng_.Below(e.front().size())));
    }
    bool stated = false;
    int mask = Types(c, stated);
    if (!stated) mask = Inferred(c);
    if (mask == 0) return std::nullopt;
    std::vector<int> choices;
    for (int bit : {kNull, kBool, kInteger, kFraction, kString, kArray, kObject}) {
      if (mask & bit) choices.push_back(bit);
    }
    if (depth >= options_.max_depth) {
      std::vector<int> scalars;
      for (int bit : choices) {
        if (bit != kArray && bit != kObject) scalars.push_back(bit);
      }
      if (!scalars.empty()) choices = scalars;
    }
    int type = choices[rng_.Below(choices.size())];
    switch (type) {
      case kNull:
        return Tree::Null();
      case kBool:
        return Tree::Bool(rng_.OneIn(2));
      case kInteger:
        return DrawNumber(c, /*integer=*/true);
      case kFraction:
        return DrawNumber(c, /*integer=*/(mask & kInteger) != 0 && !(mask & kFraction));
      case kString:
        return DrawString(c);
      case kArray:
        return DrawArray(c, depth);
      case kObject:
        return DrawObject(c, depth);
    }
    return std::nullopt;
  }

  struct Bounds {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    bool lo_exclusive = false;
    bool hi_exclusive = false;
    std::optional<double> multiple;
  };

  static Bounds BoundsOf(const std::vector<Value>& c) {
    Bounds b;
    for (Value v : c) {
      std::optional<Value> ex_min = v.Find("exclusiveMinimum");
      std::optional<Value> ex_max = v.Find("exclusiveMaximum");
      if (std::optional<double> m = NumberOf(v.Find("minimum")); m && *m >= b.lo) {
        bool ex = ex_min && ex_min->is_bool() && ex_min->bool_value();  // draft-04
        b.lo_exclusive = (*m == b.lo && b.lo_exclusive) || ex;
        b.lo = *m;
      }
      if (std::optional<double> m = NumberOf(v.Find("maximum")); m && *m <= b.hi) {
        bool ex = ex_max && ex_max->is_bool() && ex_max->bool_value();
        b.hi_exclusive = (*m == b.hi && b.hi_exclusive) || ex;
        b.hi = *m;
      }
      if (std::optional<double> m = NumberOf(ex_min); m && *m >= b.lo) {
        b.lo = *m;
        b.lo_exclusive = true;
      }
      if (std::optional<double> m = NumberOf(ex_max); m && *m <= b.hi) {
        b.hi = *m;
        b.hi_exclusive = true;
      }
      if (std::optional<double> m = NumberOf(v.Find("multipleOf")); m && *m > 0 && !b.multiple) {
        b.multiple = *m;
      }
    }
    return b;
  }

  std::optional<Tree> DrawNumber(const std::vector<Value>& c, bool integer) {
    Bounds b = BoundsOf(c);
    constexpr double kFar = 1e15;
    double lo = b.lo, hi = b.hi;
    if (!std::isfinite(lo) && !std::isfinite(hi)) {
      lo = -1000, hi = 1000;
    } else if (!std::isfinite(lo)) {
      lo = hi - 1000;
    } else if (!std::isfinite(hi)) {
      hi = lo + 1000;
    }
    lo = std::clamp(lo, -kFar, kFar);
    hi = std::clamp(hi, -kFar, kFar);
    if (b.multiple) {
      double m = *b.multiple;
      double klo = std::ceil(lo / m), khi = std::floor(hi / m);
      if (b.lo_exclusive && klo * m <= b.lo) klo += 1;
      if (b.hi_exclusive && khi * m >= b.hi) khi -= 1;
      if (klo > khi || std::fabs(klo) > kFar || std::fabs(khi) > kFar) return std::nullopt;
      double k =
          static_cast<double>(Pick(static_cast<std::int64_t>(klo), static_cast<std::int64_t>(khi)));
      double v = k * m;
      if (integer && std::floor(v) != v) return std::nullopt;
      return Tree::Number(Literal(v));
    }
    double ilo = std::ceil(lo), ihi = std::floor(hi);
    if (b.lo_exclusive && ilo <= b.lo) ilo += 1;
    if (b.hi_exclusive && ihi >= b.hi) ihi -= 1;
    if (ilo > ihi) {
      if (integer) return std::nullopt;
      return Tree::Number(Literal((lo + hi) / 2));  // a range with no integer in it
    }
    double v =
        static_cast<double>(Pick(static_cast<std::int64_t>(ilo), static_cast<std::int64_t>(ihi)));
    if (!integer && rng_.OneIn(3) && v + 0.5 < hi) v += 0.5;
    return Tree::Number(Literal(v));
  }

  // An integer in [lo, hi], often one of its ends (where off-by-one bugs live) or 0.
  std::int64_t Pick(std::int64_t lo, std::int64_t hi) {
    switch (rng_.Below(8)) {
      case 0:
        return lo;
      case 1:
        return hi;
      case 2:
        if (lo <= 0 && 0 <= hi) return 0;
        break;
      default:
        break;
    }
    return rng_.Between(lo, hi);
  }

  std::optional<Tree> DrawString(const std::vector<Value>& c) {
    std::int64_t min_length = 0;
    std::int64_t max_length = std::numeric_limits<std::int64_t>::max();
    for (Value v : All(c, "minLength")) min_length = std::max(min_length, CountOf(v).value_or(0));
    for (Value v : All(c, "maxLength")) {
      if (std::optional<std::int64_t> n = CountOf(v)) max_length = std::min(max_length, *n);
    }
    if (min_length > max_length || min_length > 100000) return std::nullopt;
    auto fits = [&](std::string_view s) {
      auto n = static_cast<std::int64_t>(CodePoints(s));
      return n >= min_length && n <= max_length;
    };
    for (Value p : All(c, "pattern")) {
      if (!p.is_string()) continue;
      for (int tries = 0; tries < 4; ++tries) {
        if (std::optional<std::string> s = internal::FromPattern(p.string_value(), rng_)) {
          if (fits(*s)) return Tree::String(*std::move(s));
        }
      }
      break;
    }
    for (Value f : All(c, "format")) {
      if (!f.is_string()) continue;
      if (std::optional<std::string> s = FormatSample(f.string_value()); s && fits(*s)) {
        if (!rng_.OneIn(4)) return Tree::String(*std::move(s));
      }
    }
    std::int64_t cap = std::min(max_length, min_length + options_.max_string);
    return Tree::String(DrawText(rng_, static_cast<std::size_t>(rng_.Between(min_length, cap))));
  }

  std::optional<Tree> DrawArray(const std::vector<Value>& c, int depth) {
    std::vector<Value> tuple;
    std::vector<Value> rest;
    for (Value v : c) {
      std::optional<Value> prefix = v.Find("prefixItems");
      std::optional<Value> items = v.Find("items");
      if (prefix && prefix->is_array() && tuple.empty()) {
        for (std::size_t i = 0; i < prefix->size(); ++i) tuple.push_back(prefix->element(i));
      }
      if (items && items->is_array()) {
        if (tuple.empty()) {
          for (std::size_t i = 0; i < items->size(); ++i) tuple.push_back(items->element(i));
        }
        if (std::optional<Value> extra = v.Find("additionalItems")) rest.push_back(*extra);
      } else if (items) {
        rest.push_back(*items);
      }
    }
    std::int64_t min_items = 0;
    std::int64_t max_items = std::numeric_limits<std::int64_t>::max();
    for (Value v : All(c, "minItems")) min_items = std::max(min_items, CountOf(v).value_or(0));
    for (Value v : All(c, "maxItems")) {
      if (std::optional<std::int64_t> n = CountOf(v)) max_items = std::min(max_items, *n);
    }
    // `items: false` after a tuple: no item past it.
    for (Value r : rest) {
      if (r.is_bool() && !r.bool_value()) {
        max_items = std::min(max_items, static_cast<std::int64_t>(tuple.size()));
      }
    }
    if (min_items > max_items || min_items > 1000) return std::nullopt;
    bool unique = false;
    for (Value v : All(c, "uniqueItems")) unique |= v.is_bool() && v.bool_value();
    std::int64_t count =
        depth >= options_.max_depth
            ? min_items
            : rng_.Between(min_items, std::min(max_items, min_items + options_.max_items));
    std::vector<Value> contains = All(c, "contains");
    Tree array = Tree::Array();
    std::set<std::string> seen;
    for (std::int64_t i = 0; i < count; ++i) {
      std::vector<Value> schema;
      if (i == 0 && !contains.empty()) {
        schema = contains;
      } else if (static_cast<std::size_t>(i) < tuple.size()) {
        schema = {tuple[static_cast<std::size_t>(i)]};
      } else {
        schema = rest;
      }
      std::optional<Tree> item;
      for (int tries = 0; tries < (unique ? 6 : 1); ++tries) {
        item = Draw(schema, depth + 1);
        if (!item) return std::nullopt;
        if (!unique) break;
        // Canonical bytes decide sameness, as the validator's equality does for these values.
        absl::StatusOr<std::string> key = json::Canonicalize(item->Json());
        if (key.ok() && seen.insert(*key).second) break;
        item.reset();
      }
      if (!item) return std::nullopt;
      array.items.push_back(*std::move(item));
    }
    return array;
  }

  std::optional<Tree> DrawObject(const std::vector<Value>& c, int depth) {
    // Every property a member of the conjunction names, with all the schemas it gets.
    std::vector<std::pair<std::string, std::vector<Value>>> properties;
    auto schemas_of = [&](std::string_view name) -> std::vector<Value>* {
      for (auto& [n, s] : properties) {
        if (n == name) return &s;
      }
      return nullptr;
    };
    for (Value p : All(c, "properties")) {
      if (!p.is_object()) continue;
      for (std::size_t i = 0; i < p.size(); ++i) {
        if (std::vector<Value>* s = schemas_of(p.key(i))) {
          s->push_back(p.member(i));
        } else {
          properties.emplace_back(std::string(p.key(i)), std::vector<Value>{p.member(i)});
        }
      }
    }
    std::vector<std::string> required;
    for (Value r : All(c, "required")) {
      if (!r.is_array()) continue;
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (!r.element(i).is_string()) continue;
        std::string name(r.element(i).string_value());
        if (std::find(required.begin(), required.end(), name) == required.end()) {
          required.push_back(name);
        }
      }
    }
    bool closed = false;
    std::vector<Value> additional;
    for (std::string_view key : {"additionalProperties", "unevaluatedProperties"}) {
      for (Value a : All(c, key)) {
        if (a.is_bool() && !a.bool_value()) closed = true;
        if (a.is_object()) additional.push_back(a);
      }
    }
    std::int64_t min_properties = 0;
    std::int64_t max_properties = std::numeric_limits<std::int64_t>::max();
    for (Value v : All(c, "minProperties")) {
      min_properties = std::max(min_properties, CountOf(v).value_or(0));
    }
    for (Value v : All(c, "maxProperties")) {
      if (std::optional<std::int64_t> n = CountOf(v)) max_properties = std::min(max_properties, *n);
    }
    Tree object = Tree::Object();
    auto add = [&](const std::string& name) -> bool {
      if (object.Find(name) != nullptr) return true;
      std::vector<Value>* s = schemas_of(name);
      std::optional<Tree> value = Draw(s != nullptr ? *s : additional, depth + 1);
      if (!value) return false;
      object.Set(name, *std::move(value));
      return true;
    };
    for (const std::string& name : required) {
      if (!add(name)) return std::nullopt;
    }
    bool shallow = depth >= options_.max_depth;
    for (const auto& [name, schemas] : properties) {
      if (static_cast<std::int64_t>(object.members.size()) >= max_properties) break;
      bool wanted = static_cast<std::int64_t>(object.members.size()) < min_properties ||
                    (!shallow && rng_.OneIn(2));
      if (wanted && object.Find(name) == nullptr) add(name);  // an optional one may fail
    }
    for (int i = 1; static_cast<std::int64_t>(object.members.size()) < min_properties && !closed &&
                    i <= min_properties + 1;
         ++i) {
      if (!add(absl::StrCat("extra_", i))) break;
    }
    // An open object may get a property its schema does not name: agents send them.
    if (!closed && !shallow && properties.size() < 8 && rng_.OneIn(4) &&
        static_cast<std::int64_t>(object.members.size()) < max_properties) {
      add(absl::StrCat("x_", rng_.Below(100)));
    }
    // Properties that bring others with them.
    for (std::string_view key : {"dependentRequired", "dependencies"}) {
      for (Value deps : All(c, key)) {
        if (!deps.is_object()) continue;
        for (std::size_t i = 0; i < deps.size(); ++i) {
          Value need = deps.member(i);
          if (object.Find(deps.key(i)) == nullptr || !need.is_array()) continue;
          for (std::size_t k = 0; k < need.size(); ++k) {
            if (need.element(k).is_string() && !add(std::string(need.element(k).string_value()))) {
              return std::nullopt;
            }
          }
        }
      }
    }
    return object;
  }

  // --- Near misses -----------------------------------------------------------------------

  struct Edit {
    std::string what;
    Tree replacement;
  };

  // Values of the node at a path that the node's schema refuses.
  std::vector<Edit> ScalarMisses(const std::vector<Value>& c, const Tree& node) {
    std::vector<Edit> edits;
    bool stated = false;
    int mask = Types(c, stated);
    if (stated && mask != 0) {
      // Values of types the schema does not allow: text where it wants none, a number where
      // it wants no number (or a fraction where it wants an integer), null, and a boolean
      // when nothing else is left to try.
      std::string allowed = TypeNames(mask);
      if (!(mask & kString)) {
        edits.push_back(
            {"wrong type (string for " + allowed + ")", Tree::String("not " + allowed)});
      }
      if (!(mask & kInteger)) {
        edits.push_back({"wrong type (number for " + allowed + ")", Tree::Number("7")});
      } else if (!(mask & kFraction)) {
        edits.push_back({"wrong type (number for " + allowed + ")", Tree::Number("1.5")});
      }
      if (!(mask & kNull)) edits.push_back({"wrong type (null for " + allowed + ")", Tree::Null()});
      if (!(mask & kBool) && (mask & kString) && (mask & kInteger)) {
        edits.push_back({"wrong type (boolean for " + allowed + ")", Tree::Bool(true)});
      }
    }
    Bounds b = BoundsOf(c);
    bool numeric = node.kind == json::Kind::kNumber || (stated && (mask & (kInteger | kFraction)));
    if (numeric) {
      if (std::isfinite(b.lo)) {
        edits.push_back(b.lo_exclusive ? Edit{"number at its exclusive minimum " + Literal(b.lo),
                                              Tree::Number(Literal(b.lo))}
                                       : Edit{"number below its minimum " + Literal(b.lo),
                                              Tree::Number(Literal(b.lo - 1))});
      }
      if (std::isfinite(b.hi)) {
        edits.push_back(b.hi_exclusive ? Edit{"number at its exclusive maximum " + Literal(b.hi),
                                              Tree::Number(Literal(b.hi))}
                                       : Edit{"number above its maximum " + Literal(b.hi),
                                              Tree::Number(Literal(b.hi + 1))});
      }
      if (b.multiple && *b.multiple != 1) {
        double m = *b.multiple;
        double off = std::floor(m) == m && m > 1 ? m + 1 : m / 2;
        edits.push_back({"number not a multiple of " + Literal(m), Tree::Number(Literal(off))});
      }
    }
    bool text = node.kind == json::Kind::kString || (stated && (mask & kString));
    if (text) {
      for (Value v : All(c, "maxLength")) {
        std::optional<std::int64_t> n = CountOf(v);
        if (n && *n < 100000) {
          edits.push_back({absl::StrCat("string longer than maxLength ", *n),
                           Tree::String(std::string(static_cast<std::size_t>(*n + 1), 'a'))});
        }
      }
      for (Value v : All(c, "minLength")) {
        std::optional<std::int64_t> n = CountOf(v);
        if (n && *n > 0 && *n < 100000) {
          edits.push_back({absl::StrCat("string shorter than minLength ", *n),
                           Tree::String(std::string(static_cast<std::size_t>(*n - 1), 'a'))});
        }
      }
      for (Value v : All(c, "pattern")) {
        if (!v.is_string()) continue;
        edits.push_back({"string outside its pattern", Tree::String("")});
        edits.push_back({"string outside its pattern", Tree::String("\x01 !~")});
      }
    }
    for (Value e : All(c, "enum")) {
      if (!e.is_array() || e.size() == 0) continue;
      Value first = e.element(0);
      std::string miss = first.is_string()
                             ? absl::StrCat(ToAbsl(first.string_value()), "_not_listed")
                             : "not_listed";
      edits.push_back({"value outside its enum", Tree::String(miss)});
    }
    for (Value k : All(c, "const")) {
      std::string miss =
          k.is_string() ? absl::StrCat(ToAbsl(k.string_value()), "_changed") : "not_the_const";
      edits.push_back({"value other than its const", Tree::String(miss)});
    }
    return edits;
  }

  void Walk(const std::vector<Value>& conj, const Tree& node, std::vector<PathStep>& path,
            const std::function<void(const std::vector<PathStep>&, Edit)>& emit) {
    if (path.size() > 8) return;
    std::optional<std::vector<Value>> expanded = Expand(conj);
    if (!expanded) return;
    const std::vector<Value>& c = *expanded;
    std::string at = Pointer(path);
    for (Edit& e : ScalarMisses(c, node)) {
      e.what = absl::StrCat(e.what, " at ", at);
      emit(path, std::move(e));
    }
    if (node.kind == json::Kind::kObject) {
      for (Value r : All(c, "required")) {
        if (!r.is_array()) continue;
        for (std::size_t i = 0; i < r.size(); ++i) {
          if (!r.element(i).is_string()) continue;
          std::string name(r.element(i).string_value());
          Tree edited = node;
          if (!edited.Erase(name)) continue;
          emit(path, {absl::StrCat("missing required \"", name, "\" at ", at), edited});
        }
      }
      bool closed = false;
      for (Value a : All(c, "additionalProperties")) closed |= a.is_bool() && !a.bool_value();
      if (closed) {
        std::string name = "unexpected_property";
        Tree probe = node;
        while (probe.Find(name) != nullptr) name += "_";
        Tree edited = node;
        edited.Set(name, Tree::Number("1"));
        emit(path, {absl::StrCat("extra property \"", name, "\" at ", at), edited});
      }
      for (const auto& [key, value] : node.members) {
        std::vector<Value> child;
        for (Value p : All(c, "properties")) {
          if (std::optional<Value> s = p.is_object() ? p.Find(key) : std::nullopt) {
            child.push_back(*s);
          }
        }
        if (child.empty()) continue;
        path.push_back(PathStep{false, key, 0});
        Walk(child, value, path, emit);
        path.pop_back();
      }
    }
    if (node.kind == json::Kind::kArray) {
      for (Value v : All(c, "minItems")) {
        std::optional<std::int64_t> n = CountOf(v);
        if (n && *n > 0 && static_cast<std::size_t>(*n) <= node.items.size() + 1) {
          Tree edited = node;
          edited.items.resize(static_cast<std::size_t>(*n - 1));
          emit(path, {absl::StrCat("fewer items than minItems ", *n, " at ", at), edited});
        }
      }
      for (Value v : All(c, "maxItems")) {
        std::optional<std::int64_t> n = CountOf(v);
        if (n && *n < 1000) {
          Tree edited = node;
          Tree filler = node.items.empty() ? Tree::Null() : node.items.back();
          while (edited.items.size() <= static_cast<std::size_t>(*n))
            edited.items.push_back(filler);
          emit(path, {absl::StrCat("more items than maxItems ", *n, " at ", at), edited});
        }
      }
      bool unique = false;
      for (Value v : All(c, "uniqueItems")) unique |= v.is_bool() && v.bool_value();
      if (unique && !node.items.empty()) {
        Tree edited = node;
        edited.items.push_back(node.items.front());
        emit(path, {"duplicate items at " + at, edited});
      }
      if (!node.items.empty()) {
        std::vector<Value> child;
        for (Value v : c) {
          std::optional<Value> prefix = v.Find("prefixItems");
          std::optional<Value> items = v.Find("items");
          if (prefix && prefix->is_array() && prefix->size() > 0) {
            child.push_back(prefix->element(0));
          } else if (items && items->is_array() && items->size() > 0) {
            child.push_back(items->element(0));
          } else if (items && !items->is_array()) {
            child.push_back(*items);
          }
        }
        if (!child.empty()) {
          path.push_back(PathStep{true, "", 0});
          Walk(child, node.items.front(), path, emit);
          path.pop_back();
        }
      }
    }
  }

  Value root() const { return root_; }

 private:
  std::optional<Value> Resolve(std::string_view ref) {
    if (ref.empty() || ref[0] != '#') return std::nullopt;
    std::string fragment = PercentDecode(ref.substr(1));
    if (fragment.empty()) return root_;
    if (fragment[0] != '/') return FindAnchor(root_, fragment, 0);
    Value node = root_;
    for (absl::string_view raw : absl::StrSplit(fragment.substr(1), '/')) {
      std::string token;
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '~' && i + 1 < raw.size()) {
          token += raw[i + 1] == '1' ? '/' : '~';
          ++i;
        } else {
          token += raw[i];
        }
      }
      if (node.is_object()) {
        std::optional<Value> next = node.Find(token);
        if (!next) return std::nullopt;
        node = *next;
      } else if (node.is_array()) {
        char* end = nullptr;
        unsigned long i = std::strtoul(token.c_str(), &end, 10);
        if (token.empty() || *end != '\0' || i >= node.size()) return std::nullopt;
        node = node.element(i);
      } else {
        return std::nullopt;
      }
    }
    return node;
  }

  std::optional<Value> FindAnchor(Value node, std::string_view name, int depth) {
    if (depth > 64) return std::nullopt;
    if (node.is_object()) {
      for (std::string_view key : {"$anchor", "$dynamicAnchor"}) {
        std::optional<Value> a = node.Find(key);
        if (a && a->is_string() && a->string_value() == name) return node;
      }
      for (std::string_view key : {"$id", "id"}) {
        std::optional<Value> id = node.Find(key);
        if (id && id->is_string() && id->string_value().size() == name.size() + 1 &&
            id->string_value()[0] == '#' && id->string_value().substr(1) == name) {
          return node;
        }
      }
      for (std::size_t i = 0; i < node.size(); ++i) {
        if (std::optional<Value> f = FindAnchor(node.member(i), name, depth + 1)) return f;
      }
    } else if (node.is_array()) {
      for (std::size_t i = 0; i < node.size(); ++i) {
        if (std::optional<Value> f = FindAnchor(node.element(i), name, depth + 1)) return f;
      }
    }
    return std::nullopt;
  }

  Value root_;
  Rng& rng_;
  const FuzzOptions& options_;
};

struct Compiled {
  json::Document document;
  schema::Schema schema;
};

absl::StatusOr<Compiled> CompileSchema(std::string_view text) {
  absl::StatusOr<json::Document> document = json::Parse(text);
  if (!document.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the schema is not JSON: ", document.status().message()));
  }
  absl::StatusOr<schema::Schema> compiled = schema::Schema::Compile(text);
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the schema does not compile: ", compiled.status().message()));
  }
  return Compiled{*std::move(document), *std::move(compiled)};
}

// Accepted: the validator's verdict on a document's canonical text, as the driver reads it.
bool Accepts(const schema::Schema& schema, std::string_view canonical) {
  absl::StatusOr<json::Document> doc = json::Parse(canonical);
  return doc.ok() && schema.IsValid(doc->root());
}

std::optional<std::string> CanonicalText(const Tree& tree) {
  absl::StatusOr<std::string> text = json::Canonicalize(tree.Json());
  if (!text.ok()) return std::nullopt;
  return *std::move(text);
}

// What came of one call: a result, an error the tool returned, or a panic.
struct Outcome {
  enum class Kind { kResult, kError, kPanic } kind = Kind::kResult;
  std::string detail;
};

Outcome CallOnce(Tool& tool, const ToolCall& call) {
  try {
    absl::StatusOr<ToolResult> result = tool.Call(call);
    if (!result.ok()) return {Outcome::Kind::kError, std::string(ToStd(result.status().message()))};
    std::string content =
        result->content.find_first_not_of(" \t\r\n") == std::string::npos ? "{}" : result->content;
    if (absl::Status s = json::Canonicalize(content).status(); !s.ok()) {
      return {Outcome::Kind::kError, absl::StrCat("content is not usable JSON: ", s.message())};
    }
    return {Outcome::Kind::kResult, ""};
  } catch (const std::exception& e) {
    return {Outcome::Kind::kPanic, absl::StrCat("threw: ", e.what())};
  } catch (...) {
    return {Outcome::Kind::kPanic, "threw a non-standard exception"};
  }
}

// The same call in a forked child: a child killed by a signal (or that never answered) is a
// panic.
Outcome CallIsolated(Tool& tool, const ToolCall& call) {
  absl::StatusOr<internal::ChildEnd> end = internal::RunChild([&](int fd) {
    Outcome o = CallOnce(tool, call);
    char kind = o.kind == Outcome::Kind::kResult  ? 'r'
                : o.kind == Outcome::Kind::kError ? 'e'
                                                  : 'p';
    // A child whose answer is lost is reported as a panic by the parent.
    WriteAll(fd, std::string(1, kind) + o.detail).IgnoreError();
    return 0;
  });
  if (!end.ok()) return {Outcome::Kind::kPanic, std::string(ToStd(end.status().message()))};
  if (!end->exited || end->code != 0 || end->output.empty()) {
    return {Outcome::Kind::kPanic, absl::StrCat("the call's process ", end->Describe())};
  }
  char kind = end->output[0];
  std::string detail = end->output.substr(1);
  if (kind == 'r') return {Outcome::Kind::kResult, detail};
  if (kind == 'e') return {Outcome::Kind::kError, detail};
  return {Outcome::Kind::kPanic, detail};
}

}  // namespace

absl::StatusOr<std::vector<std::string>> Valid(std::string_view schema, std::uint64_t seed, int n,
                                               const FuzzOptions& options) {
  AGENTRT_ASSIGN_OR_RETURN(Compiled compiled, CompileSchema(schema));
  std::vector<std::string> out;
  if (n <= 0) return out;
  Rng rng(seed);
  Drawer drawer(compiled.document, rng, options);
  std::set<std::string> seen;
  int attempts = std::max(1, options.attempts_per_document) * n;
  for (int i = 0; i < attempts && static_cast<int>(out.size()) < n; ++i) {
    std::optional<Tree> tree = drawer.Draw({drawer.root()}, 0);
    if (!tree) continue;
    std::optional<std::string> text = CanonicalText(*tree);
    if (!text || text->size() > options.max_bytes || seen.contains(*text)) continue;
    seen.insert(*text);
    if (Accepts(compiled.schema, *text)) out.push_back(*std::move(text));
  }
  if (out.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no document the schema accepts was drawn in ", attempts,
                     " attempts (it accepts nothing, or nothing within the size bounds)"));
  }
  return out;
}

absl::StatusOr<std::vector<NearMiss>> Invalid(std::string_view schema, std::uint64_t seed,
                                              const FuzzOptions& options) {
  AGENTRT_ASSIGN_OR_RETURN(Compiled compiled, CompileSchema(schema));
  AGENTRT_ASSIGN_OR_RETURN(std::vector<std::string> base, Valid(schema, seed, 1, options));
  absl::StatusOr<json::Document> base_doc = json::Parse(base.front());
  if (!base_doc.ok()) return base_doc.status();
  const Tree base_tree = Tree::From(base_doc->root());
  Rng rng(seed ^ 0x5DEECE66DULL);
  Drawer drawer(compiled.document, rng, options);
  std::vector<NearMiss> out;
  std::set<std::string> seen = {base.front()};
  auto emit = [&](const std::vector<PathStep>& path, Drawer::Edit edit) {
    Tree root = base_tree;
    Tree* node = At(root, path);
    if (node == nullptr) return;
    *node = std::move(edit.replacement);
    std::optional<std::string> text = CanonicalText(root);
    if (!text || seen.contains(*text) || Accepts(compiled.schema, *text)) return;
    seen.insert(*text);
    out.push_back({std::move(edit.what), *std::move(text)});
  };
  std::vector<PathStep> path;
  drawer.Walk({drawer.root()}, base_tree, path, emit);
  // Documents of another kind entirely, as a confused agent sends them.
  for (auto& [what, t] :
       {std::pair{"an array", Tree::Array()}, std::pair{"a string", Tree::String("path")},
        std::pair{"null", Tree::Null()}, std::pair{"a number", Tree::Number("0")}}) {
    emit({}, {absl::StrCat(what, " instead of the arguments"), t});
  }
  return out;
}

absl::StatusOr<Report> Check(Tool& tool, const CheckOptions& options) {
  AGENTRT_ASSIGN_OR_RETURN(RecordedSpec spec, RecordSpec(tool.Spec()));
  AGENTRT_ASSIGN_OR_RETURN(
      std::vector<std::string> args,
      Valid(spec.spec.input_schema, options.seed, options.calls, options.fuzz));
  world::ManualClock clock(absl::FromUnixSeconds(1'800'000'000));
  Report report;
  report.title =
      absl::StrCat("tool ", ToAbsl(json::Sanitize(spec.spec.name)), " with drawn arguments");
  report.header = {"args", "outcome", "detail"};
  int results = 0, errors = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    ++report.checked;
    ToolCall call{"testkit-run", absl::StrCat("testkit-step-", i), args[i],
                  clock.Now() + spec.spec.timeout, &clock};
    Outcome o = options.isolate ? CallIsolated(tool, call) : CallOnce(tool, call);
    switch (o.kind) {
      case Outcome::Kind::kResult:
        ++results;
        break;
      case Outcome::Kind::kError:
        ++errors;
        break;
      case Outcome::Kind::kPanic:
        report.failures.push_back({args[i], "panic", o.detail});
        break;
    }
  }
  report.notes.push_back(absl::StrCat(report.checked, " calls: ", results, " results, ", errors,
                                      " errors, ", report.failures.size(), " panics"));
  return report;
}

}  // namespace agentrt::testkit
