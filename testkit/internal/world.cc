#include "testkit/internal/world.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "runtime/json/json_object.h"

namespace agentrt::testkit::internal {
namespace {

class AllowAll final : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest&, const RunView&) override {
    PolicyDecision d;
    d.outcome = PolicyOutcome::kAllow;
    d.reason = "test kit: allowed";
    return d;
  }
};

class ApproveAll final : public Policy {
 public:
  absl::StatusOr<PolicyDecision> Evaluate(const ToolRequest& request, const RunView&) override {
    std::string what =
        json::JsonObject().Raw("args", request.args).String("tool", request.spec.name).Build();
    return NeedApproval("testkit", "test kit: every call waits for an operator", what, what);
  }
};

}  // namespace

absl::StatusOr<TempDir> TempDir::Make(std::string_view prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("testkit: cannot make a folder ", pattern, ": ", strerror(errno)));
  }
  return TempDir(pattern);
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::unique_ptr<Policy> AllowEverything() { return std::make_unique<AllowAll>(); }
std::unique_ptr<Policy> ApproveEverything() { return std::make_unique<ApproveAll>(); }

}  // namespace agentrt::testkit::internal
