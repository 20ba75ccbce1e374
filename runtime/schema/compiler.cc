#include "runtime/schema/internal/compiler.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/pointer.h"
#include "runtime/json/sanitize.h"
#include "runtime/schema/internal/uri.h"

namespace agentrt::schema::internal {
namespace {

using json::Kind;
using json::Value;

// Which vocabularies a resource's metaschema turns on. The five drafts turn on all of them;
// a custom metaschema (test-only) may leave some out, and their keywords are then ignored.
struct Vocabularies {
  bool applicator = true;
  bool validation = true;
  bool unevaluated = true;
};

struct Dialect {
  Draft draft = Draft::k2020_12;
  Vocabularies vocabularies;
};

std::optional<Draft> KnownDraft(std::string_view uri) {
  if (uri.starts_with("https://")) {
    uri.remove_prefix(8);
  } else if (uri.starts_with("http://")) {
    uri.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  if (uri.ends_with("#")) uri.remove_suffix(1);
  if (uri == "json-schema.org/draft-04/schema") return Draft::k4;
  if (uri == "json-schema.org/draft-06/schema") return Draft::k6;
  if (uri == "json-schema.org/draft-07/schema") return Draft::k7;
  if (uri == "json-schema.org/draft/2019-09/schema") return Draft::k2019_09;
  if (uri == "json-schema.org/draft/2020-12/schema") return Draft::k2020_12;
  if (uri == "json-schema.org/schema") return Draft::k2020_12;
  return std::nullopt;
}

std::string EscapePointerToken(std::string_view token) {
  std::string out;
  json::AppendPointerToken(token, out);
  return out;
}

absl::Status Refuse(std::string_view location, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("schema at ", ToAbsl(json::Sanitize(location)), ": ", ToAbsl(what)));
}

// ECMA-262 Unicode property names (long forms and the General_Category= prefix) as RE2's
// short category names; script names pass through (RE2 knows them).
std::string_view ShortPropertyName(std::string_view name) {
  for (std::string_view prefix : {"General_Category=", "gc=", "Script=", "sc="}) {
    if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  }
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"Letter", "L"},
      {"Uppercase_Letter", "Lu"},
      {"Lowercase_Letter", "Ll"},
      {"Titlecase_Letter", "Lt"},
      {"Modifier_Letter", "Lm"},
      {"Other_Letter", "Lo"},
      {"Mark", "M"},
      {"Nonspacing_Mark", "Mn"},
      {"Spacing_Mark", "Mc"},
      {"Enclosing_Mark", "Me"},
      {"Number", "N"},
      {"Decimal_Number", "Nd"},
      {"digit", "Nd"},
      {"Letter_Number", "Nl"},
      {"Other_Number", "No"},
      {"Punctuation", "P"},
      {"Connector_Punctuation", "Pc"},
      {"Dash_Punctuation", "Pd"},
      {"Open_Punctuation", "Ps"},
      {"Close_Punctuation", "Pe"},
      {"Initial_Punctuation", "Pi"},
      {"Final_Punctuation", "Pf"},
      {"Other_Punctuation", "Po"},
      {"Symbol", "S"},
      {"Math_Symbol", "Sm"},
      {"Currency_Symbol", "Sc"},
      {"Modifier_Symbol", "Sk"},
      {"Other_Symbol", "So"},
      {"Separator", "Z"},
      {"Space_Separator", "Zs"},
      {"Line_Separator", "Zl"},
      {"Paragraph_Separator", "Zp"},
      {"Other", "C"},
      {"Control", "Cc"},
      {"Format", "Cf"},
      {"Surrogate", "Cs"},
      {"Private_Use", "Co"},
      {"Unassigned", "Cn"},
  };
  for (const auto& [long_name, short_name] : kNames) {
    if (name == long_name) return short_name;
  }
  return name;
}

// ECMA-262 regular expressions as RE2 reads them: \uXXXX becomes \x{XXXX} and long Unicode
// property names become short ones. Everything RE2 cannot run faithfully (backreferences,
// lookaround) fails RE2's own compile, and the schema is refused.
std::string TranslatePattern(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size());
  auto is_hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '\\' || i + 1 >= pattern.size()) {
      out += pattern[i];
      continue;
    }
    char e = pattern[i + 1];
    if (e == 'u' && i + 5 < pattern.size() &&
        std::all_of(pattern.begin() + i + 2, pattern.begin() + i + 6, is_hex)) {
      out += "\\x{";
      out.append(pattern.substr(i + 2, 4));
      out += "}";
      i += 5;
      continue;
    }
    if ((e == 'p' || e == 'P') && i + 2 < pattern.size() && pattern[i + 2] == '{') {
      std::size_t close = pattern.find('}', i + 3);
      if (close != std::string_view::npos) {
        out += '\\';
        out += e;
        out += '{';
        out += ShortPropertyName(pattern.substr(i + 3, close - i - 3));
        out += '}';
        i = close;
        continue;
      }
    }
    out += pattern.substr(i, 2);
    ++i;
  }
  return out;
}

struct LocationInfo {
  int document = 0;
  std::string pointer;  // JSON Pointer within the document, "" for its root
  std::string base;     // base URI (no fragment)
  Dialect dialect;
  int resource = 0;
};

struct ResourceInfo {
  std::string uri;
  int document = 0;
  Value root;
  std::string pointer;
  Dialect dialect;
  std::map<std::string, Value, std::less<>> anchors;
  std::map<std::string, Value, std::less<>> dynamic_anchors;
};

class Compiler {
 public:
  Compiler(const CompileOptions& options, Schema::Compiled& out) : options_(options), out_(out) {}

  absl::Status Run(std::shared_ptr<const json::Document> document) {
    int doc = AddDocument(std::move(document));
    AGENTRT_RETURN_IF_ERROR(IndexDocument(doc, "", Dialect{options_.default_draft, {}}));
    const LocationInfo& info = locations_.at(Key(doc, out_.documents[doc]->root()));
    out_.draft = info.dialect.draft;
    AGENTRT_ASSIGN_OR_RETURN(out_.root, CompileAt(doc, out_.documents[doc]->root(), info));
    AGENTRT_RETURN_IF_ERROR(CompileDynamicTargets());
    return CheckInPlaceCycles();
  }

 private:
  static std::uint64_t Key(int doc, Value v) {
    return (static_cast<std::uint64_t>(doc) << 32) | v.id();
  }

  int AddDocument(std::shared_ptr<const json::Document> document) {
    out_.documents.push_back(std::move(document));
    document_uris_.emplace_back();
    return static_cast<int>(out_.documents.size() - 1);
  }

  std::string Location(int doc, std::string_view pointer) const {
    return absl::StrCat(ToAbsl(document_uris_[doc]), "#", ToAbsl(pointer));
  }

  absl::StatusOr<Dialect> DialectOf(std::string_view schema_uri, int depth = 0) {
    Dialect dialect;
    if (std::optional<Draft> known = KnownDraft(schema_uri)) {
      dialect.draft = *known;
      return dialect;
    }
    UriParts parts = SplitFragment(schema_uri);
    const Registry::Entry* entry =
        options_.registry ? options_.registry->Find(parts.without_fragment) : nullptr;
    if (entry == nullptr || depth > 4) {
      return absl::InvalidArgumentError(absl::StrCat("schema: $schema \"",
                                                     ToAbsl(json::Sanitize(schema_uri)),
                                                     "\" is not a known JSON Schema draft"));
    }
    Value meta = entry->document->root();
    std::optional<Value> meta_schema = meta.Find("$schema");
    if (!meta_schema || !meta_schema->is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "schema: metaschema \"", ToAbsl(json::Sanitize(schema_uri)), "\" declares no $schema"));
    }
    AGENTRT_ASSIGN_OR_RETURN(dialect, DialectOf(meta_schema->string_value(), depth + 1));
    if (std::optional<Value> vocabulary = meta.Find("$vocabulary"); vocabulary) {
      dialect.vocabularies = Vocabularies{false, false, false};
      for (std::size_t i = 0; i < vocabulary->size(); ++i) {
        std::string_view v = vocabulary->key(i);
        bool required = vocabulary->member(i).is_bool() && vocabulary->member(i).bool_value();
        std::size_t slash = v.rfind('/');
        std::string_view name = slash == std::string_view::npos ? v : v.substr(slash + 1);
        bool known = v.starts_with("https://json-schema.org/draft/2020-12/vocab/") ||
                     v.starts_with("https://json-schema.org/draft/2019-09/vocab/");
        if (known && name == "applicator") {
          dialect.vocabularies.applicator = true;
          if (dialect.draft == Draft::k2019_09) dialect.vocabularies.unevaluated = true;
        } else if (known && name == "validation") {
          dialect.vocabularies.validation = true;
        } else if (known && name == "unevaluated") {
          dialect.vocabularies.unevaluated = true;
        } else if (!known && required) {
          return absl::InvalidArgumentError(
              absl::StrCat("schema: metaschema requires the unknown vocabulary \"",
                           ToAbsl(json::Sanitize(v)), "\""));
        }
      }
    }
    return dialect;
  }

  int AddResource(std::string uri, int doc, Value root, std::string pointer, Dialect dialect) {
    if (auto it = resource_index_.find(uri); it != resource_index_.end()) return it->second;
    int index = static_cast<int>(resources_.size());
    resources_.push_back(ResourceInfo{uri, doc, root, std::move(pointer), dialect, {}, {}});
    out_.resources.push_back(Resource{uri, nullptr, {}, false});
    resource_index_.emplace(std::move(uri), index);
    return index;
  }

  absl::Status IndexDocument(int doc, std::string uri, Dialect dialect) {
    document_uris_[doc] = uri;
    Value root = out_.documents[doc]->root();
    if (root.is_object()) {
      if (auto schema = root.Find("$schema"); schema && schema->is_string()) {
        AGENTRT_ASSIGN_OR_RETURN(dialect, DialectOf(schema->string_value()));
      }
    }
    int resource = AddResource(uri, doc, root, "", dialect);
    return Index(doc, root, "", uri, dialect, resource, /*document_root=*/true);
  }

  absl::Status Index(int doc, Value v, const std::string& pointer, std::string base,
                     Dialect dialect, int resource, bool document_root) {
    if (v.is_bool()) {
      locations_.emplace(Key(doc, v), LocationInfo{doc, pointer, base, dialect, resource});
      return absl::OkStatus();
    }
    if (!v.is_object()) return absl::OkStatus();
    if (++indexed_ > options_.limits.max_nodes * 4) {
      return Refuse(Location(doc, pointer), "the schema has too many subschemas");
    }
    Draft draft = dialect.draft;
    std::optional<Value> id = v.Find(draft == Draft::k4 ? "id" : "$id");
    bool has_ref = v.Find("$ref").has_value();
    bool id_applies = id && id->is_string() && (draft >= Draft::k2019_09 || !has_ref);
    if (!document_root && id_applies && draft >= Draft::k2019_09) {
      if (auto schema = v.Find("$schema"); schema && schema->is_string()) {
        AGENTRT_ASSIGN_OR_RETURN(dialect, DialectOf(schema->string_value()));
        draft = dialect.draft;
      }
    }
    if (id_applies) {
      std::string resolved = ResolveUri(base, id->string_value());
      UriParts parts = SplitFragment(resolved);
      if (parts.without_fragment != base || document_root) {
        base = parts.without_fragment;
        resource = AddResource(base, doc, v, pointer, dialect);
        if (document_root) resources_[resource].root = v;
      }
      if (!parts.fragment.empty() && draft <= Draft::k7) {
        resources_[resource].anchors.emplace(PercentDecode(parts.fragment), v);
      }
    }
    if (draft >= Draft::k2019_09) {
      if (auto anchor = v.Find("$anchor"); anchor && anchor->is_string()) {
        resources_[resource].anchors.emplace(anchor->string_value(), v);
      }
      if (draft >= Draft::k2020_12) {
        if (auto anchor = v.Find("$dynamicAnchor"); anchor && anchor->is_string()) {
          resources_[resource].anchors.emplace(anchor->string_value(), v);
          resources_[resource].dynamic_anchors.emplace(anchor->string_value(), v);
        }
      } else if (auto anchor = v.Find("$recursiveAnchor");
                 anchor && anchor->is_bool() && anchor->bool_value() &&
                 resources_[resource].root.document() == v.document() &&
                 resources_[resource].root.id() == v.id()) {
        out_.resources[resource].recursive_anchor = true;
      }
    }
    locations_.emplace(Key(doc, v), LocationInfo{doc, pointer, base, dialect, resource});

    auto child = [&](std::string_view keyword, Value c, std::string_view token) {
      return Index(
          doc, c,
          absl::StrCat(pointer, "/", ToAbsl(keyword), token.empty() ? "" : "/", ToAbsl(token)),
          base, dialect, resource, false);
    };
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::string_view keyword = v.key(i);
      Value member = v.member(i);
      static constexpr std::array<std::string_view, 12> kSingle = {"additionalItems",
                                                                   "additionalProperties",
                                                                   "contains",
                                                                   "not",
                                                                   "if",
                                                                   "then",
                                                                   "else",
                                                                   "propertyNames",
                                                                   "unevaluatedItems",
                                                                   "unevaluatedProperties",
                                                                   "contentSchema",
                                                                   "items"};
      static constexpr std::array<std::string_view, 5> kList = {"allOf", "anyOf", "oneOf",
                                                                "prefixItems", "items"};
      static constexpr std::array<std::string_view, 6> kMap = {
          "properties", "patternProperties", "definitions",
          "$defs",      "dependentSchemas",  "dependencies"};
      if (std::find(kSingle.begin(), kSingle.end(), keyword) != kSingle.end() &&
          !member.is_array()) {
        AGENTRT_RETURN_IF_ERROR(child(keyword, member, ""));
      } else if (std::find(kList.begin(), kList.end(), keyword) != kList.end() &&
                 member.is_array()) {
        for (std::size_t k = 0; k < member.size(); ++k) {
          AGENTRT_RETURN_IF_ERROR(child(keyword, member.element(k), std::to_string(k)));
        }
      } else if (std::find(kMap.begin(), kMap.end(), keyword) != kMap.end() && member.is_object()) {
        for (std::size_t k = 0; k < member.size(); ++k) {
          AGENTRT_RETURN_IF_ERROR(
              child(keyword, member.member(k), EscapePointerToken(member.key(k))));
        }
      }
    }
    return absl::OkStatus();
  }

  // Loads the document named `uri` from the registry or the bundled metaschemas and indexes
  // it. Returns the resource index, or -1 when no such document exists.
  absl::StatusOr<int> LoadExternal(const std::string& uri, Dialect dialect) {
    std::shared_ptr<const json::Document> document;
    if (options_.registry != nullptr) {
      if (const Registry::Entry* entry = options_.registry->Find(uri)) document = entry->document;
    }
    if (document == nullptr) {
      if (const std::string* text = FindBundledMetaschema(uri)) {
        AGENTRT_ASSIGN_OR_RETURN(json::Document parsed, json::Parse(*text));
        document = std::make_shared<const json::Document>(std::move(parsed));
      }
    }
    if (document == nullptr) return -1;
    int doc = AddDocument(std::move(document));
    AGENTRT_RETURN_IF_ERROR(IndexDocument(doc, uri, dialect));
    return resource_index_.at(uri);
  }

  struct Target {
    int document;
    Value value;
    LocationInfo info;
  };

  absl::StatusOr<Target> Resolve(std::string_view keyword, std::string_view reference,
                                 const LocationInfo& from) {
    std::string where = Location(from.document, from.pointer);
    UriParts parts = SplitFragment(ResolveUri(from.base, reference));
    int resource;
    if (auto it = resource_index_.find(parts.without_fragment); it != resource_index_.end()) {
      resource = it->second;
    } else {
      AGENTRT_ASSIGN_OR_RETURN(resource, LoadExternal(parts.without_fragment, from.dialect));
      if (resource < 0) {
        return Refuse(where, absl::StrCat(ToAbsl(keyword), " \"", ToAbsl(json::Sanitize(reference)),
                                          "\" names a document that is not available"));
      }
    }
    const ResourceInfo& r = resources_[resource];
    std::string fragment = PercentDecode(parts.fragment);
    Value target = r.root;
    std::string pointer = r.pointer;
    if (!fragment.empty() && fragment[0] == '/') {
      std::size_t start = 1;
      while (start <= fragment.size()) {
        std::size_t end = fragment.find('/', start);
        if (end == std::string::npos) end = fragment.size();
        std::string token;
        for (std::size_t i = start; i < end; ++i) {
          if (fragment[i] == '~' && i + 1 < end &&
              (fragment[i + 1] == '0' || fragment[i + 1] == '1')) {
            token += fragment[i + 1] == '0' ? '~' : '/';
            ++i;
          } else {
            token += fragment[i];
          }
        }
        std::optional<Value> next;
        if (target.is_object()) {
          next = target.Find(token);
        } else if (target.is_array() && !token.empty() &&
                   std::all_of(token.begin(), token.end(),
                               [](char c) { return c >= '0' && c <= '9'; }) &&
                   (token == "0" || token[0] != '0') && token.size() < 10) {
          std::size_t index = std::stoul(token);
          if (index < target.size()) next = target.element(index);
        }
        if (!next) {
          return Refuse(where,
                        absl::StrCat(ToAbsl(keyword), " \"", ToAbsl(json::Sanitize(reference)),
                                     "\" points to nothing in its document"));
        }
        target = *next;
        absl::StrAppend(&pointer, "/", ToAbsl(EscapePointerToken(token)));
        start = end + 1;
      }
    } else if (!fragment.empty()) {
      auto it = r.anchors.find(fragment);
      if (it == r.anchors.end()) {
        return Refuse(where, absl::StrCat(ToAbsl(keyword), " \"", ToAbsl(json::Sanitize(reference)),
                                          "\" names an anchor that does not exist"));
      }
      target = it->second;
      if (auto found = locations_.find(Key(r.document, target)); found != locations_.end()) {
        pointer = found->second.pointer;
      }
    }
    LocationInfo info{r.document, pointer, r.uri, r.dialect, resource};
    if (auto found = locations_.find(Key(r.document, target)); found != locations_.end()) {
      info = found->second;
    }
    return Target{r.document, target, info};
  }

  absl::StatusOr<const Node*> CompileRef(std::string_view keyword, Value reference,
                                         const LocationInfo& from) {
    if (!reference.is_string()) {
      return Refuse(Location(from.document, from.pointer),
                    absl::StrCat(ToAbsl(keyword), " must be a string"));
    }
    AGENTRT_ASSIGN_OR_RETURN(Target target, Resolve(keyword, reference.string_value(), from));
    return CompileAt(target.document, target.value, target.info);
  }

  absl::StatusOr<const Node*> CompileChild(int doc, Value v, const LocationInfo& parent,
                                           std::string_view keyword, std::string_view token = "") {
    if (auto found = locations_.find(Key(doc, v)); found != locations_.end()) {
      return CompileAt(doc, v, found->second);
    }
    LocationInfo info = parent;
    info.pointer =
        absl::StrCat(parent.pointer, "/", ToAbsl(keyword), token.empty() ? "" : "/", ToAbsl(token));
    return CompileAt(doc, v, info);
  }

  absl::StatusOr<std::optional<std::uint64_t>> NonNegative(Value v, std::string_view keyword,
                                                           const std::string& where) {
    std::optional<Value> member = v.Find(keyword);
    if (!member) return std::nullopt;
    if (member->is_number()) {
      json::Decimal d = json::ParseDecimal(member->number_literal());
      if (json::IsInteger(d) && !d.negative) {
        if (d.is_zero()) return std::uint64_t{0};
        if (d.magnitude() >= 18) return std::numeric_limits<std::uint64_t>::max();
        std::uint64_t n = std::stoull(d.digits);
        for (std::int64_t i = 0; i < d.exponent; ++i) n *= 10;
        return n;
      }
    }
    return Refuse(where, absl::StrCat(ToAbsl(keyword), " must be a non-negative integer"));
  }

  absl::StatusOr<std::optional<json::Decimal>> Number(Value v, std::string_view keyword,
                                                      const std::string& where) {
    std::optional<Value> member = v.Find(keyword);
    if (!member) return std::nullopt;
    if (!member->is_number()) {
      return Refuse(where, absl::StrCat(ToAbsl(keyword), " must be a number"));
    }
    return json::ParseDecimal(member->number_literal());
  }

  absl::StatusOr<Regex> CompileRegex(std::string_view pattern, const std::string& where) {
    if (auto it = regexes_.find(pattern); it != regexes_.end()) return it->second;
    RE2::Options re_options;
    re_options.set_log_errors(false);
    re_options.set_max_mem(std::int64_t{8} << 20);
    auto re = std::make_shared<const RE2>(TranslatePattern(pattern), re_options);
    if (!re->ok()) {
      return Refuse(
          where, absl::StrCat("pattern \"", ToAbsl(json::Truncate(json::Sanitize(pattern), 200)),
                              "\" cannot be run exactly by the linear-time matcher (", re->error(),
                              "); backreferences and lookaround are not supported"));
    }
    Regex regex{std::string(pattern), std::move(re)};
    regexes_.emplace(std::string(pattern), regex);
    return regex;
  }

  absl::StatusOr<const Node*> CompileAt(int doc, Value v, const LocationInfo& info) {
    std::uint64_t key = Key(doc, v);
    if (auto it = compiled_.find(key); it != compiled_.end()) return it->second;
    std::string where = Location(doc, info.pointer);
    if (out_.nodes.size() >= options_.limits.max_nodes) {
      return Refuse(where, absl::StrCat("the schema compiles to more than ",
                                        options_.limits.max_nodes, " subschemas"));
    }
    out_.nodes.push_back(std::make_unique<Node>());
    Node& node = *out_.nodes.back();
    compiled_.emplace(key, &node);
    node.location = where;
    node.draft = info.dialect.draft;
    node.resource = info.resource;
    node.contains_counts_for_unevaluated = node.draft >= Draft::k2020_12;
    if (v.is_bool()) {
      node.is_false = !v.bool_value();
      return &node;
    }
    if (!v.is_object()) return Refuse(where, "a schema must be an object or a boolean");
    const Draft draft = info.dialect.draft;
    const Vocabularies& vocab = info.dialect.vocabularies;

    auto child = [&](std::string_view keyword,
                     std::string_view token = "") -> absl::StatusOr<const Node*> {
      return CompileChild(doc, *v.Find(keyword), info, keyword, token);
    };
    auto single = [&](std::string_view keyword, const Node*& slot) -> absl::Status {
      if (!v.Find(keyword)) return absl::OkStatus();
      AGENTRT_ASSIGN_OR_RETURN(slot, child(keyword));
      return absl::OkStatus();
    };
    auto list = [&](std::string_view keyword, std::vector<const Node*>& slot) -> absl::Status {
      std::optional<Value> member = v.Find(keyword);
      if (!member) return absl::OkStatus();
      if (!member->is_array() || member->size() == 0) {
        return Refuse(where, absl::StrCat(ToAbsl(keyword), " must be a non-empty array"));
      }
      for (std::size_t i = 0; i < member->size(); ++i) {
        AGENTRT_ASSIGN_OR_RETURN(
            const Node* n, CompileChild(doc, member->element(i), info, keyword, std::to_string(i)));
        slot.push_back(n);
      }
      return absl::OkStatus();
    };

    if (std::optional<Value> ref = v.Find("$ref")) {
      AGENTRT_ASSIGN_OR_RETURN(node.ref, CompileRef("$ref", *ref, info));
      if (draft <= Draft::k7) return &node;  // siblings of $ref are ignored before 2019-09
    }
    if (draft >= Draft::k2020_12) {
      if (std::optional<Value> ref = v.Find("$dynamicRef")) {
        if (!ref->is_string()) return Refuse(where, "$dynamicRef must be a string");
        AGENTRT_ASSIGN_OR_RETURN(Target target, Resolve("$dynamicRef", ref->string_value(), info));
        AGENTRT_ASSIGN_OR_RETURN(node.dynamic_ref,
                                 CompileAt(target.document, target.value, target.info));
        UriParts parts = SplitFragment(ref->string_value());
        std::string name = PercentDecode(parts.fragment);
        if (!name.empty() && name[0] != '/') {
          const ResourceInfo& r = resources_[target.info.resource];
          auto it = r.dynamic_anchors.find(name);
          if (it != r.dynamic_anchors.end() && it->second.id() == target.value.id() &&
              it->second.document() == target.value.document()) {
            node.dynamic_ref_anchor = name;
          }
        }
      }
    }
    if (draft == Draft::k2019_09) {
      if (std::optional<Value> ref = v.Find("$recursiveRef")) {
        AGENTRT_ASSIGN_OR_RETURN(node.recursive_ref, CompileRef("$recursiveRef", *ref, info));
      }
    }

    if (vocab.applicator) {
      AGENTRT_RETURN_IF_ERROR(list("allOf", node.all_of));
      AGENTRT_RETURN_IF_ERROR(list("anyOf", node.any_of));
      AGENTRT_RETURN_IF_ERROR(list("oneOf", node.one_of));
      AGENTRT_RETURN_IF_ERROR(single("not", node.not_schema));
      if (draft >= Draft::k7) {
        AGENTRT_RETURN_IF_ERROR(single("if", node.if_schema));
        if (node.if_schema != nullptr) {
          AGENTRT_RETURN_IF_ERROR(single("then", node.then_schema));
          AGENTRT_RETURN_IF_ERROR(single("else", node.else_schema));
        }
      }
      if (std::optional<Value> properties = v.Find("properties")) {
        if (!properties->is_object()) return Refuse(where, "properties must be an object");
        for (std::size_t i = 0; i < properties->size(); ++i) {
          AGENTRT_ASSIGN_OR_RETURN(const Node* n,
                                   CompileChild(doc, properties->member(i), info, "properties",
                                                EscapePointerToken(properties->key(i))));
          node.properties.emplace_back(std::string(properties->key(i)), n);
        }
      }
      if (std::optional<Value> patterns = v.Find("patternProperties")) {
        if (!patterns->is_object()) return Refuse(where, "patternProperties must be an object");
        for (std::size_t i = 0; i < patterns->size(); ++i) {
          AGENTRT_ASSIGN_OR_RETURN(Regex re, CompileRegex(patterns->key(i), where));
          AGENTRT_ASSIGN_OR_RETURN(const Node* n,
                                   CompileChild(doc, patterns->member(i), info, "patternProperties",
                                                EscapePointerToken(patterns->key(i))));
          node.pattern_properties.emplace_back(std::move(re), n);
        }
      }
      AGENTRT_RETURN_IF_ERROR(single("additionalProperties", node.additional_properties));
      if (draft >= Draft::k6) {
        AGENTRT_RETURN_IF_ERROR(single("propertyNames", node.property_names));
        AGENTRT_RETURN_IF_ERROR(single("contains", node.contains));
      }
      if (draft >= Draft::k2020_12) {
        AGENTRT_RETURN_IF_ERROR(list("prefixItems", node.prefix_items));
        AGENTRT_RETURN_IF_ERROR(single("items", node.items));
      } else if (std::optional<Value> items = v.Find("items")) {
        if (items->is_array()) {
          AGENTRT_RETURN_IF_ERROR(list("items", node.prefix_items));
          AGENTRT_RETURN_IF_ERROR(single("additionalItems", node.items));
        } else {
          AGENTRT_RETURN_IF_ERROR(single("items", node.items));
        }
      }
      if (draft >= Draft::k2019_09) {
        if (std::optional<Value> dependent = v.Find("dependentSchemas")) {
          if (!dependent->is_object()) return Refuse(where, "dependentSchemas must be an object");
          for (std::size_t i = 0; i < dependent->size(); ++i) {
            AGENTRT_ASSIGN_OR_RETURN(
                const Node* n, CompileChild(doc, dependent->member(i), info, "dependentSchemas",
                                            EscapePointerToken(dependent->key(i))));
            node.dependent_schemas.emplace_back(std::string(dependent->key(i)), n);
          }
        }
      }
    }
    if (draft >= Draft::k2019_09 && vocab.unevaluated) {
      AGENTRT_RETURN_IF_ERROR(single("unevaluatedItems", node.unevaluated_items));
      AGENTRT_RETURN_IF_ERROR(single("unevaluatedProperties", node.unevaluated_properties));
      node.needs_annotations =
          node.unevaluated_items != nullptr || node.unevaluated_properties != nullptr;
    }
    if (draft <= Draft::k7) {
      // `dependencies` is both dependentRequired (array values) and dependentSchemas.
      if (std::optional<Value> dependencies = v.Find("dependencies")) {
        if (!dependencies->is_object()) return Refuse(where, "dependencies must be an object");
        for (std::size_t i = 0; i < dependencies->size(); ++i) {
          Value d = dependencies->member(i);
          std::string name(dependencies->key(i));
          if (d.is_array()) {
            if (!vocab.validation) continue;
            std::vector<std::string> names;
            for (std::size_t k = 0; k < d.size(); ++k) {
              if (!d.element(k).is_string()) {
                return Refuse(where, "dependencies arrays must hold strings");
              }
              names.emplace_back(d.element(k).string_value());
            }
            node.dependent_required.emplace_back(std::move(name), std::move(names));
          } else if (vocab.applicator) {
            AGENTRT_ASSIGN_OR_RETURN(const Node* n, CompileChild(doc, d, info, "dependencies",
                                                                 EscapePointerToken(name)));
            node.dependent_schemas.emplace_back(std::move(name), n);
          }
        }
      }
    }

    if (vocab.validation) {
      if (std::optional<Value> type = v.Find("type")) {
        auto bit = [](std::string_view name) -> std::uint8_t {
          if (name == "null") return kTypeNull;
          if (name == "boolean") return kTypeBoolean;
          if (name == "object") return kTypeObject;
          if (name == "array") return kTypeArray;
          if (name == "number") return kTypeNumber;
          if (name == "string") return kTypeString;
          if (name == "integer") return kTypeInteger;
          return 0;
        };
        std::vector<Value> names;
        if (type->is_array()) {
          for (std::size_t i = 0; i < type->size(); ++i) names.push_back(type->element(i));
        } else {
          names.push_back(*type);
        }
        node.types = 0x80;  // present, even if it allows nothing
        for (Value name : names) {
          std::uint8_t b = name.is_string() ? bit(name.string_value()) : 0;
          if (b == 0) return Refuse(where, "type names an unknown type");
          node.types |= b;
        }
      }
      if (std::optional<Value> e = v.Find("enum")) {
        if (!e->is_array()) return Refuse(where, "enum must be an array");
        node.has_enum = true;
        for (std::size_t i = 0; i < e->size(); ++i) node.enum_values.push_back(e->element(i));
      }
      if (draft >= Draft::k6) {
        if (std::optional<Value> c = v.Find("const")) node.const_value = *c;
      }
      AGENTRT_ASSIGN_OR_RETURN(node.multiple_of, Number(v, "multipleOf", where));
      if (node.multiple_of && !json::MultipleOfSupported(*node.multiple_of)) {
        return Refuse(where, absl::StrCat("multipleOf must be a positive number of at most ",
                                          json::kMaxDivisorDigits, " significant digits"));
      }
      AGENTRT_ASSIGN_OR_RETURN(node.minimum, Number(v, "minimum", where));
      AGENTRT_ASSIGN_OR_RETURN(node.maximum, Number(v, "maximum", where));
      if (draft == Draft::k4) {
        // Draft-04: exclusiveMinimum/Maximum are booleans that make minimum/maximum strict.
        for (auto [keyword, bound, exclusive] :
             {std::tuple{"exclusiveMinimum", &node.minimum, &node.exclusive_minimum},
              std::tuple{"exclusiveMaximum", &node.maximum, &node.exclusive_maximum}}) {
          std::optional<Value> flag = v.Find(keyword);
          if (!flag) continue;
          if (!flag->is_bool()) return Refuse(where, absl::StrCat(keyword, " must be a boolean"));
          if (flag->bool_value() && bound->has_value()) {
            *exclusive = std::move(*bound);
            bound->reset();
          }
        }
      } else {
        AGENTRT_ASSIGN_OR_RETURN(node.exclusive_minimum, Number(v, "exclusiveMinimum", where));
        AGENTRT_ASSIGN_OR_RETURN(node.exclusive_maximum, Number(v, "exclusiveMaximum", where));
      }
      AGENTRT_ASSIGN_OR_RETURN(node.min_length, NonNegative(v, "minLength", where));
      AGENTRT_ASSIGN_OR_RETURN(node.max_length, NonNegative(v, "maxLength", where));
      if (std::optional<Value> pattern = v.Find("pattern")) {
        if (!pattern->is_string()) return Refuse(where, "pattern must be a string");
        AGENTRT_ASSIGN_OR_RETURN(node.pattern, CompileRegex(pattern->string_value(), where));
      }
      AGENTRT_ASSIGN_OR_RETURN(node.min_items, NonNegative(v, "minItems", where));
      AGENTRT_ASSIGN_OR_RETURN(node.max_items, NonNegative(v, "maxItems", where));
      if (std::optional<Value> unique = v.Find("uniqueItems")) {
        if (!unique->is_bool()) return Refuse(where, "uniqueItems must be a boolean");
        node.unique_items = unique->bool_value();
      }
      if (draft >= Draft::k2019_09 && node.contains != nullptr) {
        AGENTRT_ASSIGN_OR_RETURN(node.min_contains, NonNegative(v, "minContains", where));
        AGENTRT_ASSIGN_OR_RETURN(node.max_contains, NonNegative(v, "maxContains", where));
      }
      AGENTRT_ASSIGN_OR_RETURN(node.min_properties, NonNegative(v, "minProperties", where));
      AGENTRT_ASSIGN_OR_RETURN(node.max_properties, NonNegative(v, "maxProperties", where));
      if (std::optional<Value> required = v.Find("required")) {
        if (!required->is_array()) return Refuse(where, "required must be an array");
        for (std::size_t i = 0; i < required->size(); ++i) {
          if (!required->element(i).is_string()) {
            return Refuse(where, "required must hold strings");
          }
          node.required.emplace_back(required->element(i).string_value());
        }
      }
      if (draft >= Draft::k2019_09) {
        if (std::optional<Value> dependent = v.Find("dependentRequired")) {
          if (!dependent->is_object()) return Refuse(where, "dependentRequired must be an object");
          for (std::size_t i = 0; i < dependent->size(); ++i) {
            Value d = dependent->member(i);
            if (!d.is_array()) return Refuse(where, "dependentRequired values must be arrays");
            std::vector<std::string> names;
            for (std::size_t k = 0; k < d.size(); ++k) {
              if (!d.element(k).is_string()) {
                return Refuse(where, "dependentRequired arrays must hold strings");
              }
              names.emplace_back(d.element(k).string_value());
            }
            node.dependent_required.emplace_back(std::string(dependent->key(i)), std::move(names));
          }
        }
      }
    }
    return &node;
  }

  // Every $dynamicAnchor and every resource root with $recursiveAnchor may become a target at
  // validation time, chosen by the dynamic scope: compile them all now, while new documents
  // may still be loaded.
  absl::Status CompileDynamicTargets() {
    for (std::size_t r = 0; r < resources_.size(); ++r) {
      // Copy: compiling may load documents and grow resources_.
      auto anchors = resources_[r].dynamic_anchors;
      for (const auto& [name, value] : anchors) {
        const LocationInfo& info = locations_.at(Key(resources_[r].document, value));
        AGENTRT_ASSIGN_OR_RETURN(const Node* n, CompileAt(resources_[r].document, value, info));
        out_.resources[r].dynamic_anchors.emplace(name, n);
      }
      if (out_.resources[r].recursive_anchor) {
        ResourceInfo copy = resources_[r];
        const LocationInfo& info = locations_.at(Key(copy.document, copy.root));
        AGENTRT_ASSIGN_OR_RETURN(out_.resources[r].root, CompileAt(copy.document, copy.root, info));
      }
    }
    return absl::OkStatus();
  }

  // A cycle of in-place applicators ($ref, allOf, ..., if/then/else) never descends into the
  // instance, so evaluating it would never end: refuse it now.
  absl::Status CheckInPlaceCycles() {
    enum Color : std::uint8_t { kWhite, kGrey, kBlack };
    std::unordered_map<const Node*, Color> color;
    std::vector<std::pair<const Node*, std::size_t>> stack;
    auto edges = [](const Node* n) {
      std::vector<const Node*> out;
      for (const Node* c : {n->ref, n->dynamic_ref, n->recursive_ref, n->not_schema, n->if_schema,
                            n->then_schema, n->else_schema}) {
        if (c != nullptr) out.push_back(c);
      }
      for (const auto* list : {&n->all_of, &n->any_of, &n->one_of}) {
        out.insert(out.end(), list->begin(), list->end());
      }
      for (const auto& [name, c] : n->dependent_schemas) out.push_back(c);
      return out;
    };
    for (const auto& start : out_.nodes) {
      if (color[start.get()] != kWhite) continue;
      std::vector<std::pair<const Node*, std::vector<const Node*>>> frames;
      color[start.get()] = kGrey;
      frames.emplace_back(start.get(), edges(start.get()));
      while (!frames.empty()) {
        auto& [node, pending] = frames.back();
        if (pending.empty()) {
          color[node] = kBlack;
          frames.pop_back();
          continue;
        }
        const Node* next = pending.back();
        pending.pop_back();
        Color c = color[next];
        if (c == kGrey) {
          return Refuse(next->location,
                        "the schema refers back to itself without descending into the instance, "
                        "so validation would never end");
        }
        if (c == kWhite) {
          color[next] = kGrey;
          frames.emplace_back(next, edges(next));
        }
      }
    }
    return absl::OkStatus();
  }

  const CompileOptions& options_;
  Schema::Compiled& out_;
  std::vector<std::string> document_uris_;
  std::vector<ResourceInfo> resources_;
  std::map<std::string, int, std::less<>> resource_index_;
  std::unordered_map<std::uint64_t, LocationInfo> locations_;
  std::unordered_map<std::uint64_t, const Node*> compiled_;
  std::map<std::string, Regex, std::less<>> regexes_;
  std::size_t indexed_ = 0;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const Schema::Compiled>> CompileDocument(
    std::shared_ptr<const json::Document> document, const CompileOptions& options) {
  auto compiled = std::make_shared<Schema::Compiled>();
  compiled->limits = options.limits;
  Compiler compiler(options, *compiled);
  AGENTRT_RETURN_IF_ERROR(compiler.Run(std::move(document)));
  return std::shared_ptr<const Schema::Compiled>(std::move(compiled));
}

absl::StatusOr<Draft> DraftOfSchemaUri(std::string_view uri, const Registry* registry) {
  for (int depth = 0; depth < 4; ++depth) {
    if (std::optional<Draft> known = KnownDraft(uri)) return *known;
    const Registry::Entry* entry =
        registry ? registry->Find(SplitFragment(uri).without_fragment) : nullptr;
    std::optional<Value> next = entry ? entry->document->root().Find("$schema") : std::nullopt;
    if (!next || !next->is_string()) break;
    uri = next->string_value();
  }
  return absl::InvalidArgumentError(absl::StrCat("schema: $schema \"", ToAbsl(json::Sanitize(uri)),
                                                 "\" is not a known JSON Schema draft"));
}

const Schema::Compiled& BundledMetaschema(Draft draft) {
  static constexpr std::array<std::string_view, 5> kUris = {
      "http://json-schema.org/draft-04/schema", "http://json-schema.org/draft-06/schema",
      "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft/2019-09/schema",
      "https://json-schema.org/draft/2020-12/schema"};
  // Constant data derived from constant data: built once, never changed, shared by threads.
  static std::array<std::once_flag, 5> once;
  static std::array<std::shared_ptr<const Schema::Compiled>, 5>* cache =
      new std::array<std::shared_ptr<const Schema::Compiled>, 5>();
  auto index = static_cast<std::size_t>(draft);
  std::call_once(once[index], [&] {
    const std::string* text = FindBundledMetaschema(kUris[index]);
    absl::StatusOr<json::Document> parsed = json::Parse(*text);
    CompileOptions options;
    options.default_draft = draft;
    auto compiled =
        CompileDocument(std::make_shared<const json::Document>(std::move(parsed).value()), options);
    if (!compiled.ok()) std::abort();  // a bundled metaschema that does not compile is our bug
    (*cache)[index] = *std::move(compiled);
  });
  return *(*cache)[index];
}

}  // namespace agentrt::schema::internal
