// Evaluation of a compiled schema against an instance. One Evaluator per call: all mutable
// state (instance path, dynamic scope, budget, errors) lives here, so a compiled schema can be
// shared by any number of threads.
#include <re2/re2.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/canonical_number.h"
#include "runtime/json/decimal.h"
#include "runtime/json/equal.h"
#include "runtime/json/intake.h"
#include "runtime/json/pointer.h"
#include "runtime/json/sanitize.h"
#include "runtime/schema/internal/compiled.h"
#include "runtime/schema/internal/uri.h"

namespace agentrt::schema::internal {
namespace {

using json::Kind;
using json::Value;

// Deep enough for any instance intake accepts (256 levels) through several in-place
// applicators per level; shallow enough to stay far from the end of a thread's stack.
constexpr std::size_t kMaxEvaluationDepth = 2048;
constexpr std::size_t kMaxMessageBytes = 300;

// What in-place applicators have evaluated of one instance, for unevaluatedProperties
// (by member index; members are in canonical order) and unevaluatedItems (by element index).
struct Annotations {
  std::vector<bool> properties;
  std::vector<bool> items;

  explicit Annotations(Value v)
      : properties(v.is_object() ? v.size() : 0, false),
        items(v.is_array() ? v.size() : 0, false) {}
  void Merge(const Annotations& other) {
    for (std::size_t i = 0; i < properties.size(); ++i) {
      if (other.properties[i]) properties[i] = true;
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (other.items[i]) items[i] = true;
    }
  }
};

std::string TypeNames(std::uint8_t types) {
  static constexpr std::pair<std::uint8_t, std::string_view> kNames[] = {
      {kTypeNull, "null"},      {kTypeBoolean, "boolean"}, {kTypeObject, "object"},
      {kTypeArray, "array"},    {kTypeNumber, "number"},   {kTypeString, "string"},
      {kTypeInteger, "integer"}};
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((types & bit) == 0) continue;
    if (!out.empty()) out += " or ";
    out += name;
  }
  return out.empty() ? "nothing" : out;
}

// The longest piece of the instance or the schema an error message quotes.
constexpr int kQuotedBytes = 60;

std::string Number(std::string_view literal) { return json::Truncate(std::string(literal), 40); }

std::string Number(const json::Decimal& d) {
  if (d.is_zero()) return "0";
  return Number(json::CanonicalNumber(
      absl::StrCat(d.negative ? "-" : "", ToAbsl(d.digits), "e", d.exponent)));
}

std::size_t CodePoints(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

class Evaluator {
 public:
  Evaluator(const Schema::Compiled& compiled, ValidationResult* result, std::size_t max_errors)
      : compiled_(compiled), result_(result), max_errors_(max_errors) {}

  bool Run(Value instance) {
    bool valid = Eval(compiled_.root, instance, nullptr);
    if (exhausted_) {
      valid = false;
      if (result_ != nullptr) {
        result_->errors.clear();
        result_->errors.push_back(
            ValidationError{"", compiled_.root->location, "",
                            absl::StrCat("validation stopped: the schema needs more than ",
                                         compiled_.limits.max_evaluations_per_validation,
                                         " evaluations or nests deeper than ", kMaxEvaluationDepth,
                                         " levels for this instance")});
      }
    }
    if (result_ != nullptr) {
      result_->valid = valid;
      // A failure whose cause sat inside anyOf/oneOf/not is still reported once.
      if (!valid && result_->errors.empty()) {
        result_->errors.push_back(
            ValidationError{"", compiled_.root->location, "", "the value is not valid"});
      }
    }
    return valid;
  }

 private:
  // Errors are reported unless a caller is only probing (anyOf, oneOf, not, if, contains).
  bool Reporting() const { return result_ != nullptr && quiet_ == 0; }
  bool CollectAll(const Annotations* a) const {
    return a != nullptr || (Reporting() && !result_->errors_truncated);
  }

  std::string InstanceLocation() const {
    std::string out;
    for (const Segment& s : path_) {
      out += '/';
      if (s.is_index) {
        absl::StrAppend(&out, s.index);
        continue;
      }
      json::AppendPointerToken(s.key, out);
    }
    return json::Truncate(json::Sanitize(out), kMaxMessageBytes);
  }

  void Error(const Node* n, std::string_view keyword, std::string_view message) {
    if (!Reporting()) return;
    if (result_->errors.size() >= max_errors_) {
      result_->errors_truncated = true;
      return;
    }
    result_->errors.push_back(ValidationError{
        InstanceLocation(),
        json::Truncate(json::Sanitize(absl::StrCat(ToAbsl(n->location), "/", ToAbsl(keyword))),
                       kMaxMessageBytes),
        std::string(keyword), json::Truncate(json::Sanitize(message), kMaxMessageBytes)});
  }

  struct Segment {
    bool is_index;
    std::size_t index;
    std::string_view key;
  };
  struct PathScope {
    PathScope(std::vector<Segment>& path, Segment s) : path_(path) { path_.push_back(s); }
    ~PathScope() { path_.pop_back(); }
    std::vector<Segment>& path_;
  };
  struct Quiet {
    explicit Quiet(int& q) : q_(q) { ++q_; }
    ~Quiet() { --q_; }
    int& q_;
  };

  bool EvalElement(const Node* n, Value array, std::size_t i) {
    PathScope scope(path_, Segment{true, i, {}});
    return Eval(n, array.element(i), nullptr);
  }
  bool EvalMember(const Node* n, Value object, std::size_t i) {
    PathScope scope(path_, Segment{false, 0, object.key(i)});
    return Eval(n, object.member(i), nullptr);
  }

  // Evaluates a probing subschema: no errors, annotations kept only when it passes.
  bool Probe(const Node* n, Value v, Annotations* a) {
    Quiet quiet(quiet_);
    if (a == nullptr) return Eval(n, v, nullptr);
    Annotations mine(v);
    bool ok = Eval(n, v, &mine);
    if (ok) a->Merge(mine);
    return ok;
  }

  bool Eval(const Node* n, Value v, Annotations* ann) {
    if (exhausted_) return false;
    if (++evaluations_ > compiled_.limits.max_evaluations_per_validation ||
        depth_ >= kMaxEvaluationDepth) {
      exhausted_ = true;
      return false;
    }
    ++depth_;
    bool pushed = scope_.empty() || scope_.back() != n->resource;
    if (pushed) scope_.push_back(n->resource);
    bool valid;
    if (n->needs_annotations) {
      Annotations local(v);
      valid = EvalKeywords(n, v, &local);
      if (valid && ann != nullptr) ann->Merge(local);
    } else {
      valid = EvalKeywords(n, v, ann);
    }
    if (pushed) scope_.pop_back();
    --depth_;
    return valid;
  }

  const Node* DynamicTarget(const Node* n) const {
    if (n->dynamic_ref != nullptr) {
      if (n->dynamic_ref_anchor.empty()) return n->dynamic_ref;
      for (int r : scope_) {  // outermost first
        const auto& anchors = compiled_.resources[r].dynamic_anchors;
        if (auto it = anchors.find(n->dynamic_ref_anchor); it != anchors.end()) return it->second;
      }
      return n->dynamic_ref;
    }
    const Node* target = n->recursive_ref;
    if (!compiled_.resources[target->resource].recursive_anchor) return target;
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {  // innermost first
      const Resource& r = compiled_.resources[*it];
      if (!r.recursive_anchor || r.root == nullptr) break;
      target = r.root;
    }
    return target;
  }

  bool EvalKeywords(const Node* n, Value v, Annotations* a) {
    if (n->is_false) {
      Error(n, "false", "no value is allowed here");
      return false;
    }
    bool valid = true;
    // Records a failure; says whether evaluation of this node should go on.
    auto fail = [&]() {
      valid = false;
      return CollectAll(a);
    };

    if (n->ref != nullptr && !Eval(n->ref, v, a) && !fail()) return false;
    if ((n->dynamic_ref != nullptr || n->recursive_ref != nullptr) &&
        !Eval(DynamicTarget(n), v, a) && !fail()) {
      return false;
    }

    if (n->types != 0) {
      std::uint8_t bit = 0;
      switch (v.kind()) {
        case Kind::kNull:
          bit = kTypeNull;
          break;
        case Kind::kBool:
          bit = kTypeBoolean;
          break;
        case Kind::kObject:
          bit = kTypeObject;
          break;
        case Kind::kArray:
          bit = kTypeArray;
          break;
        case Kind::kString:
          bit = kTypeString;
          break;
        case Kind::kNumber:
          bit = (n->types & kTypeNumber) != 0 || json::IsIntegerLiteral(v.number_literal())
                    ? (kTypeNumber | kTypeInteger)
                    : kTypeNumber;
          break;
      }
      if ((n->types & bit) == 0) {
        Error(n, "type",
              absl::StrCat("expected ", TypeNames(n->types), ", got ",
                           ToAbsl(v.is_number() ? "number" : json::KindName(v.kind()))));
        if (!fail()) return false;
      }
    }
    if (n->const_value && !json::Equal(*n->const_value, v)) {
      Error(n, "const", "the value does not equal the constant");
      if (!fail()) return false;
    }
    if (n->has_enum && std::none_of(n->enum_values.begin(), n->enum_values.end(),
                                    [&](Value e) { return json::Equal(e, v); })) {
      Error(n, "enum", "the value is not one of the allowed values");
      if (!fail()) return false;
    }

    switch (v.kind()) {
      case Kind::kNumber:
        if (!EvalNumber(n, v, fail)) return false;
        break;
      case Kind::kString:
        if (!EvalString(n, v, fail)) return false;
        break;
      case Kind::kArray:
        if (!EvalArray(n, v, a, fail)) return false;
        break;
      case Kind::kObject:
        if (!EvalObject(n, v, a, fail)) return false;
        break;
      default:
        break;
    }

    for (const Node* child : n->all_of) {
      if (!Eval(child, v, a) && !fail()) return false;
    }
    if (!n->any_of.empty()) {
      bool any = false;
      for (const Node* child : n->any_of) {
        if (Probe(child, v, a)) {
          any = true;
          if (a == nullptr) break;  // annotations need every passing branch
        }
        if (exhausted_) return false;
      }
      if (!any) {
        Error(n, "anyOf", "the value matches none of the anyOf schemas");
        if (!fail()) return false;
      }
    }
    if (!n->one_of.empty()) {
      std::vector<std::size_t> matched;
      for (std::size_t i = 0; i < n->one_of.size() && matched.size() < 2; ++i) {
        if (Probe(n->one_of[i], v, a)) matched.push_back(i);
        if (exhausted_) return false;
      }
      if (matched.size() != 1) {
        Error(n, "oneOf",
              matched.empty() ? std::string("the value matches none of the oneOf schemas")
                              : absl::StrCat("the value matches oneOf schemas ", matched[0],
                                             " and ", matched[1], ", but must match exactly one"));
        if (!fail()) return false;
      }
    }
    if (n->not_schema != nullptr) {
      if (Probe(n->not_schema, v, nullptr)) {
        Error(n, "not", "the value matches the schema under not");
        if (!fail()) return false;
      }
      if (exhausted_) return false;
    }
    if (n->if_schema != nullptr) {
      if (Probe(n->if_schema, v, a)) {
        if (n->then_schema != nullptr && !Eval(n->then_schema, v, a) && !fail()) return false;
      } else if (n->else_schema != nullptr && !Eval(n->else_schema, v, a) && !fail()) {
        return false;
      }
    }

    if (a != nullptr && v.is_array() && n->unevaluated_items != nullptr) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (a->items[i]) continue;
        if (!EvalElement(n->unevaluated_items, v, i)) {
          if (n->unevaluated_items->is_false) {
            Error(n, "unevaluatedItems", absl::StrCat("item ", i, " is not allowed"));
          }
          if (!fail()) return false;
        }
        a->items[i] = true;
      }
    }
    if (a != nullptr && v.is_object() && n->unevaluated_properties != nullptr) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (a->properties[i]) continue;
        if (!EvalMember(n->unevaluated_properties, v, i)) {
          if (n->unevaluated_properties->is_false) {
            Error(
                n, "unevaluatedProperties",
                absl::StrCat("property ", json::Quoted(v.key(i), kQuotedBytes), " is not allowed"));
          }
          if (!fail()) return false;
        }
        a->properties[i] = true;
      }
    }
    return valid;
  }

  template <typename Fail>
  bool EvalNumber(const Node* n, Value v, Fail& fail) {
    if (!n->minimum && !n->maximum && !n->exclusive_minimum && !n->exclusive_maximum &&
        !n->multiple_of) {
      return true;
    }
    json::Decimal d = json::ParseDecimal(v.number_literal());
    std::string shown = Number(v.number_literal());
    struct Bound {
      const std::optional<json::Decimal>& bound;
      std::string_view keyword;
      bool (*broken)(int);
      std::string_view relation;
    };
    const Bound bounds[] = {
        {n->minimum, "minimum", [](int c) { return c < 0; }, "less than the minimum"},
        {n->exclusive_minimum, "exclusiveMinimum", [](int c) { return c <= 0; },
         "not greater than the exclusive minimum"},
        {n->maximum, "maximum", [](int c) { return c > 0; }, "greater than the maximum"},
        {n->exclusive_maximum, "exclusiveMaximum", [](int c) { return c >= 0; },
         "not less than the exclusive maximum"},
    };
    for (const Bound& b : bounds) {
      if (b.bound && b.broken(json::CompareDecimal(d, *b.bound))) {
        Error(n, b.keyword, absl::StrCat(shown, " is ", ToAbsl(b.relation), " ", Number(*b.bound)));
        if (!fail()) return false;
      }
    }
    if (n->multiple_of && !json::IsMultipleOf(d, *n->multiple_of)) {
      Error(n, "multipleOf",
            absl::StrCat(shown, " is not a multiple of ", Number(*n->multiple_of)));
      if (!fail()) return false;
    }
    return true;
  }

  template <typename Fail>
  bool EvalString(const Node* n, Value v, Fail& fail) {
    std::string_view s = v.string_value();
    if (n->min_length || n->max_length) {
      std::size_t length = CodePoints(s);
      if (n->min_length && length < *n->min_length) {
        Error(n, "minLength",
              absl::StrCat("the string is ", length, " characters long, shorter than ",
                           *n->min_length));
        if (!fail()) return false;
      }
      if (n->max_length && length > *n->max_length) {
        Error(n, "maxLength",
              absl::StrCat("the string is ", length, " characters long, longer than ",
                           *n->max_length));
        if (!fail()) return false;
      }
    }
    if (n->pattern && !RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *n->pattern->re)) {
      Error(n, "pattern",
            absl::StrCat(json::Quoted(s, kQuotedBytes), " does not match the pattern ",
                         json::Quoted(n->pattern->source, kQuotedBytes)));
      if (!fail()) return false;
    }
    return true;
  }

  bool Unique(Value v) const {
    std::size_t size = v.size();
    if (size <= 32) {
      for (std::size_t i = 0; i < size; ++i) {
        for (std::size_t j = i + 1; j < size; ++j) {
          if (json::Equal(v.element(i), v.element(j))) return false;
        }
      }
      return true;
    }
    // Canonical form is equal exactly when values are JSON-equal.
    std::vector<std::string> canonical;
    canonical.reserve(size);
    for (std::size_t i = 0; i < size; ++i) canonical.push_back(json::WriteCanonical(v.element(i)));
    std::sort(canonical.begin(), canonical.end());
    return std::adjacent_find(canonical.begin(), canonical.end()) == canonical.end();
  }

  template <typename Fail>
  bool EvalArray(const Node* n, Value v, Annotations* a, Fail& fail) {
    std::size_t size = v.size();
    if (n->min_items && size < *n->min_items) {
      Error(n, "minItems",
            absl::StrCat("the array has ", size, " items, fewer than ", *n->min_items));
      if (!fail()) return false;
    }
    if (n->max_items && size > *n->max_items) {
      Error(n, "maxItems",
            absl::StrCat("the array has ", size, " items, more than ", *n->max_items));
      if (!fail()) return false;
    }
    if (n->unique_items && !Unique(v)) {
      Error(n, "uniqueItems", "the array has equal items");
      if (!fail()) return false;
    }
    std::size_t prefix = std::min(size, n->prefix_items.size());
    for (std::size_t i = 0; i < prefix; ++i) {
      if (!EvalElement(n->prefix_items[i], v, i) && !fail()) return false;
      if (a != nullptr) a->items[i] = true;
    }
    if (n->items != nullptr) {
      for (std::size_t i = prefix; i < size; ++i) {
        if (!EvalElement(n->items, v, i)) {
          if (n->items->is_false) Error(n, "items", absl::StrCat("item ", i, " is not allowed"));
          if (!fail()) return false;
        }
        if (a != nullptr) a->items[i] = true;
      }
    }
    if (n->contains != nullptr) {
      std::uint64_t minimum = n->min_contains.value_or(1);
      std::uint64_t count = 0;
      bool need_all = a != nullptr || n->max_contains.has_value();
      for (std::size_t i = 0; i < size; ++i) {
        bool ok;
        {
          Quiet quiet(quiet_);
          ok = EvalElement(n->contains, v, i);
        }
        if (exhausted_) return false;
        if (ok) {
          ++count;
          if (a != nullptr && n->contains_counts_for_unevaluated) a->items[i] = true;
          if (!need_all && count >= minimum) break;
        }
      }
      if (count < minimum) {
        Error(n, n->min_contains ? "minContains" : "contains",
              absl::StrCat("the array has ", count, " items matching contains, fewer than ",
                           minimum));
        if (!fail()) return false;
      }
      if (n->max_contains && count > *n->max_contains) {
        Error(n, "maxContains",
              absl::StrCat("the array has ", count, " items matching contains, more than ",
                           *n->max_contains));
        if (!fail()) return false;
      }
    }
    return true;
  }

  template <typename Fail>
  bool EvalObject(const Node* n, Value v, Annotations* a, Fail& fail) {
    std::size_t size = v.size();
    if (n->min_properties && size < *n->min_properties) {
      Error(n, "minProperties",
            absl::StrCat("the object has ", size, " properties, fewer than ", *n->min_properties));
      if (!fail()) return false;
    }
    if (n->max_properties && size > *n->max_properties) {
      Error(n, "maxProperties",
            absl::StrCat("the object has ", size, " properties, more than ", *n->max_properties));
      if (!fail()) return false;
    }
    for (const std::string& name : n->required) {
      if (!v.Find(name)) {
        Error(n, "required",
              absl::StrCat("missing required property ", json::Quoted(name, kQuotedBytes)));
        if (!fail()) return false;
      }
    }
    for (const auto& [name, names] : n->dependent_required) {
      if (!v.Find(name)) continue;
      for (const std::string& needed : names) {
        if (!v.Find(needed)) {
          Error(n, n->draft <= Draft::k7 ? "dependencies" : "dependentRequired",
                absl::StrCat("property ", json::Quoted(name, kQuotedBytes), " requires property ",
                             json::Quoted(needed, kQuotedBytes)));
          if (!fail()) return false;
        }
      }
    }
    bool has_applicators =
        !n->properties.empty() || !n->pattern_properties.empty() || n->additional_properties;
    std::size_t p = 0;  // both lists are in UTF-16 key order: walk them together
    for (std::size_t i = 0; has_applicators && i < size; ++i) {
      std::string_view key = v.key(i);
      bool matched = false;
      while (p < n->properties.size() && json::CompareUtf16(n->properties[p].first, key) < 0) ++p;
      if (p < n->properties.size() && n->properties[p].first == key) {
        matched = true;
        if (!EvalMember(n->properties[p].second, v, i) && !fail()) return false;
      }
      for (const auto& [regex, schema] : n->pattern_properties) {
        if (!RE2::PartialMatch(re2::StringPiece(key.data(), key.size()), *regex.re)) continue;
        matched = true;
        if (!EvalMember(schema, v, i) && !fail()) return false;
      }
      if (!matched && n->additional_properties != nullptr) {
        matched = true;
        if (n->additional_properties->is_false) {
          Error(n, "additionalProperties",
                absl::StrCat("property ", json::Quoted(key, kQuotedBytes), " is not allowed"));
          if (!fail()) return false;
        } else if (!EvalMember(n->additional_properties, v, i) && !fail()) {
          return false;
        }
      }
      if (matched && a != nullptr) a->properties[i] = true;
    }
    if (n->property_names != nullptr) {
      for (std::size_t i = 0; i < size; ++i) {
        // A key is not a value of the document: give it one of its own to be validated.
        std::string quoted;
        json::AppendCanonicalString(v.key(i), quoted);
        absl::StatusOr<json::Document> name = json::Parse(quoted);
        PathScope scope(path_, Segment{false, 0, v.key(i)});
        if (!name.ok() || !Eval(n->property_names, name->root(), nullptr)) {
          Error(
              n, "propertyNames",
              absl::StrCat("property name ", json::Quoted(v.key(i), kQuotedBytes), " is invalid"));
          if (!fail()) return false;
        }
      }
    }
    for (const auto& [name, schema] : n->dependent_schemas) {
      if (v.Find(name) && !Eval(schema, v, a) && !fail()) return false;
    }
    return true;
  }

  const Schema::Compiled& compiled_;
  ValidationResult* result_;
  std::size_t max_errors_;
  std::vector<Segment> path_;
  std::vector<int> scope_;
  std::size_t evaluations_ = 0;
  std::size_t depth_ = 0;
  int quiet_ = 0;
  bool exhausted_ = false;
};

}  // namespace

bool IsValid(const Schema::Compiled& compiled, Value instance) {
  return Evaluator(compiled, nullptr, 0).Run(instance);
}

ValidationResult Validate(const Schema::Compiled& compiled, Value instance,
                          std::size_t max_errors) {
  ValidationResult result;
  Evaluator(compiled, &result, std::max<std::size_t>(max_errors, 1)).Run(instance);
  return result;
}

}  // namespace agentrt::schema::internal
