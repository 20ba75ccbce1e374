#include "tests/support/in_process_mcp.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "mcp/jsonrpc.h"
#include "runtime/json/canonical_json.h"

namespace agentrt::test_support {
namespace {

class InProcessServer final : public world::Process {
 public:
  InProcessServer(std::shared_ptr<const InProcessMcpLauncher::Answers> answers, std::int64_t pid)
      : answers_(std::move(answers)), pid_(pid) {}

  std::int64_t pid() const override { return pid_; }

  absl::Status Write(std::string_view bytes, absl::Time) override {
    if (stdin_closed_) return absl::FailedPreconditionError("stdin is closed");
    pending_.append(bytes);
    std::size_t start = 0;
    for (std::size_t end = pending_.find('\n'); end != std::string::npos;
         end = pending_.find('\n', start)) {
      Answer(std::string_view(pending_).substr(start, end - start));
      start = end + 1;
    }
    pending_.erase(0, start);
    return absl::OkStatus();
  }

  absl::Status CloseStdin() override {
    stdin_closed_ = true;
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Read(absl::Time, std::size_t max_bytes) override {
    if (read_ < output_.size()) {
      std::string chunk = output_.substr(read_, max_bytes);
      read_ += chunk.size();
      if (read_ == output_.size()) {
        output_.clear();
        read_ = 0;
      }
      return chunk;
    }
    if (stdin_closed_) return std::string();  // end of output
    return absl::DeadlineExceededError("the in-process server answers only requests");
  }

  absl::Status Signal(int) override { return absl::OkStatus(); }
  absl::StatusOr<world::ExitStatus> Wait(absl::Time) override {
    if (!stdin_closed_) return absl::DeadlineExceededError("the in-process server is running");
    return world::ExitStatus{.code = 0};
  }
  world::ExitStatus Close() override {
    stdin_closed_ = true;
    return world::ExitStatus{.code = 0};
  }
  std::string StderrTail(absl::Time) override { return ""; }

 private:
  void Answer(std::string_view line) {
    absl::StatusOr<mcp::Message> message = mcp::ParseMessage(line);
    if (!message.ok() || message->kind != mcp::Message::Kind::kRequest) return;
    if (message->method == "initialize") {
      Send(mcp::ResultJson(message->id, answers_->initialize_result));
    } else if (message->method == "tools/list") {
      Send(mcp::ResultJson(message->id, answers_->list_result));
    } else if (message->method == "tools/call") {
      Send(mcp::ResultJson(message->id, answers_->call_result));
    } else if (message->method == "ping") {
      Send(mcp::ResultJson(message->id, "{}"));
    } else {
      Send(mcp::ErrorJson(message->id, mcp::kMethodNotFound, "Method not found"));
    }
  }
  void Send(const std::string& message) {
    output_.append(message);
    output_.push_back('\n');
  }

  const std::shared_ptr<const InProcessMcpLauncher::Answers> answers_;
  const std::int64_t pid_;
  bool stdin_closed_ = false;
  std::string pending_;  // written, not yet a whole line
  std::string output_;   // answers not yet read past read_
  std::size_t read_ = 0;
};

// `json` written on one line (canonical), as stdio framing needs; as given when it is not JSON,
// so that the client sees what is wrong.
std::string OneLine(std::string json) {
  absl::StatusOr<std::string> canonical = json::Canonicalize(json);
  return canonical.ok() ? *std::move(canonical) : std::move(json);
}

}  // namespace

InProcessMcpLauncher::InProcessMcpLauncher(std::string tools_json, std::string call_result_json)
    : answers_(std::make_shared<Answers>(Answers{
          .initialize_result = R"({"capabilities":{"tools":{}},"protocolVersion":"2025-11-25",)"
                               R"("serverInfo":{"name":"in-process","version":"1.0.0"}})",
          .list_result = OneLine(absl::StrCat(R"({"tools":)", tools_json, "}")),
          .call_result = OneLine(std::move(call_result_json))})) {}

absl::StatusOr<std::unique_ptr<world::Process>> InProcessMcpLauncher::Start(
    const world::LaunchSpec& spec) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("an empty argv");
  return std::make_unique<InProcessServer>(answers_, ++started_);
}

}  // namespace agentrt::test_support
