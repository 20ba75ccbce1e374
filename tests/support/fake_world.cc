#include "tests/support/fake_world.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace agentrt::test_support {
namespace {

class FakeWc final : public world::Process {
 public:
  explicit FakeWc(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {
    if (sink_) sink_("wc: counting\n");
  }
  std::int64_t pid() const override { return 4242; }
  absl::Status Write(std::string_view bytes, absl::Time) override {
    if (stdin_closed_) return absl::FailedPreconditionError("stdin is closed");
    input_ += bytes;
    return absl::OkStatus();
  }
  absl::Status CloseStdin() override {
    if (!stdin_closed_) {
      stdin_closed_ = true;
      std::vector<absl::string_view> words =
          absl::StrSplit(input_, absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
      output_ = absl::StrCat(words.size(), "\n");
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Read(absl::Time, std::size_t max_bytes) override {
    if (!stdin_closed_) return absl::DeadlineExceededError("wc is still reading its input");
    std::string chunk = output_.substr(0, max_bytes);
    output_.erase(0, chunk.size());
    return chunk;
  }
  absl::Status Signal(int) override { return absl::OkStatus(); }
  absl::StatusOr<world::ExitStatus> Wait(absl::Time) override {
    if (!stdin_closed_) return absl::DeadlineExceededError("wc is still running");
    return world::ExitStatus{.code = 0};
  }
  world::ExitStatus Close() override { return world::ExitStatus{.code = 0}; }
  std::string StderrTail(absl::Time) override { return sink_ ? "" : "wc: counting\n"; }

 private:
  std::function<void(std::string_view)> sink_;
  bool stdin_closed_ = false;
  std::string input_;
  std::string output_;
};

class FakeResponse final : public world::HttpResponse {
 public:
  explicit FakeResponse(std::string body) : body_(std::move(body)) {}
  int status() const override { return 200; }
  const world::HttpFields& headers() const override { return headers_; }
  absl::StatusOr<std::string> Read(absl::Time) override {
    if (closed_) return absl::CancelledError("closed");
    // Two chunks, then the end.
    std::string chunk = body_.substr(0, reads_++ == 0 ? body_.size() / 2 : body_.size());
    body_.erase(0, chunk.size());
    return chunk;
  }
  void Close() override { closed_ = true; }

 private:
  world::HttpFields headers_ = {{"Content-Type", "application/json"}};
  std::string body_;
  int reads_ = 0;
  bool closed_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<world::Process>> FakeLauncher::Start(const world::LaunchSpec& spec) {
  if (spec.argv.empty() || spec.argv[0] != "wc") {
    return absl::NotFoundError(
        absl::StrCat("no such program in the fake world: ", spec.argv.empty() ? "" : spec.argv[0]));
  }
  ++started_;
  return std::unique_ptr<world::Process>(std::make_unique<FakeWc>(spec.stderr_sink));
}

absl::StatusOr<std::unique_ptr<world::HttpResponse>> FakeNetwork::Send(
    const world::HttpRequest& request, absl::Time) {
  ++sent_;
  std::string path = request.url.substr(std::min(request.url.find('/', 8), request.url.size()));
  return std::unique_ptr<world::HttpResponse>(std::make_unique<FakeResponse>(
      absl::StrCat(R"({"method":")", request.method, R"(","path":")", path, R"(","ok":true})")));
}

}  // namespace agentrt::test_support
