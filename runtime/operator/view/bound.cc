#include "runtime/operator/view/bound.h"

#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/utf8.h"

namespace agentrt::view {
namespace {

void AppendBounded(json::Value value, std::string& out) {
  switch (value.kind()) {
    case json::Kind::kString:
      json::AppendCanonicalString(BoundText(value.string_value()), out);
      return;
    case json::Kind::kArray:
      out.push_back('[');
      for (std::size_t i = 0, n = value.size(); i < n; ++i) {
        if (i > 0) out.push_back(',');
        AppendBounded(value.element(i), out);
      }
      out.push_back(']');
      return;
    case json::Kind::kObject:
      // Members are in canonical key order already (document.h).
      out.push_back('{');
      for (std::size_t i = 0, n = value.size(); i < n; ++i) {
        if (i > 0) out.push_back(',');
        json::AppendCanonicalString(value.key(i), out);
        out.push_back(':');
        AppendBounded(value.member(i), out);
      }
      out.push_back('}');
      return;
    default:
      json::AppendCanonical(value, out);
      return;
  }
}

}  // namespace

std::string BoundText(std::string_view text) {
  if (text.size() <= kMaxFieldBytes) return std::string(text);
  std::size_t head = kBoundEdgeBytes;
  while (head > 0 && json::IsContinuationByte(static_cast<unsigned char>(text[head]))) --head;
  std::size_t tail = text.size() - kBoundEdgeBytes;
  while (tail < text.size() && json::IsContinuationByte(static_cast<unsigned char>(text[tail]))) {
    ++tail;
  }
  return absl::StrCat(ToAbsl(text.substr(0, head)), "…[", tail - head, " bytes omitted]…",
                      ToAbsl(text.substr(tail)));
}

std::string BoundValue(json::Value value) {
  std::string out;
  AppendBounded(value, out);
  return out;
}

std::string BoundRaw(std::string_view raw) {
  if (raw.empty()) return std::string(raw);
  absl::StatusOr<json::Document> document = json::Parse(raw);
  if (!document.ok()) return std::string(raw);
  return BoundValue(document->root());
}

Approval BoundApproval(const Approval& approval) {
  Approval bounded = approval;
  bounded.capability = BoundRaw(approval.capability);
  bounded.presentation = BoundRaw(approval.presentation);
  // Only the request's args are the model's; run, step and the tool's recorded spec are kept
  // as stored.
  absl::StatusOr<json::Document> request = json::Parse(approval.request);
  if (request.ok() && request->root().is_object()) {
    json::Value root = request->root();
    std::string out = "{";
    for (std::size_t i = 0, n = root.size(); i < n; ++i) {
      if (i > 0) out.push_back(',');
      json::AppendCanonicalString(root.key(i), out);
      out.push_back(':');
      if (root.key(i) == "args") {
        AppendBounded(root.member(i), out);
      } else {
        json::AppendCanonical(root.member(i), out);
      }
    }
    out.push_back('}');
    bounded.request = std::move(out);
  }
  return bounded;
}

}  // namespace agentrt::view
