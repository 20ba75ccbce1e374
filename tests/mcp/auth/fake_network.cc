#include "tests/mcp/auth/fake_network.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/world/url.h"

namespace agentrt::mcp::auth::fakes {
namespace {

constexpr std::size_t kChunkBytes = 64 * 1024;

absl::Status TooLong(std::size_t max) {
  return absl::ResourceExhaustedError(absl::StrCat("response body exceeds ", max, " bytes"));
}

class FakeResponse final : public world::HttpResponse {
 public:
  FakeResponse(Reply reply, std::size_t max_body_bytes)
      : reply_(std::move(reply)), max_(max_body_bytes) {}

  int status() const override { return reply_.status; }
  const world::HttpFields& headers() const override { return reply_.headers; }

  absl::StatusOr<std::string> Read(absl::Time) override {
    if (closed_) return absl::CancelledError("the response was closed");
    if (reply_.generated_bytes > 0) {
      std::size_t left = reply_.generated_bytes - delivered_;
      if (left == 0) return std::string();
      std::size_t n = std::min(left, kChunkBytes);
      if (delivered_ + n > max_) return TooLong(max_);
      delivered_ += n;
      return std::string(n, ' ');
    }
    if (delivered_ > 0 || reply_.body.empty()) return std::string();
    if (reply_.body.size() > max_) return TooLong(max_);
    delivered_ = reply_.body.size();
    return reply_.body;
  }

  void Close() override { closed_ = true; }

 private:
  const Reply reply_;
  const std::size_t max_;
  std::size_t delivered_ = 0;
  bool closed_ = false;
};

std::string WithoutQuery(std::string_view url) {
  return std::string(url.substr(0, url.find_first_of("?#")));
}

}  // namespace

Reply Json(std::string body, int status) {
  Reply reply;
  reply.status = status;
  reply.headers = {{"Content-Type", "application/json"}};
  reply.body = std::move(body);
  return reply;
}

Reply Redirect(std::string location, int status) {
  Reply reply;
  reply.status = status;
  reply.headers = {{"Location", std::move(location)}};
  return reply;
}

void FakeNetwork::Answer(std::string url, Reply reply) {
  routes_[std::move(url)] = [reply = std::move(reply)](const world::HttpRequest&) { return reply; };
}

void FakeNetwork::Route(std::string url, Handler handler) {
  routes_[std::move(url)] = std::move(handler);
}

void FakeNetwork::Fail(std::string url, absl::Status status) {
  failures_[std::move(url)] = std::move(status);
}

void FakeNetwork::Forget(const std::string& url) {
  routes_.erase(url);
  failures_.erase(url);
}

absl::StatusOr<std::unique_ptr<world::HttpResponse>> FakeNetwork::Send(
    const world::HttpRequest& request, absl::Time) {
  if (absl::Status usable = world::ParseUrl(request.url).status(); !usable.ok()) return usable;
  for (const auto& [name, value] : request.headers) {
    if (name.find_first_of("\r\n") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("header ", name, " cannot be sent"));
    }
  }
  requests_.push_back(request);
  if (auto failure = failures_.find(WithoutQuery(request.url)); failure != failures_.end()) {
    return failure->second;
  }
  Reply reply;
  reply.status = 404;
  if (auto route = routes_.find(WithoutQuery(request.url)); route != routes_.end()) {
    reply = route->second(request);
  }
  std::size_t length = reply.generated_bytes > 0 ? reply.generated_bytes : reply.body.size();
  if (reply.declared_length && length > request.max_body_bytes) {
    return TooLong(request.max_body_bytes);
  }
  return std::unique_ptr<world::HttpResponse>(
      std::make_unique<FakeResponse>(std::move(reply), request.max_body_bytes));
}

std::vector<std::string> FakeNetwork::Sent() const {
  std::vector<std::string> out;
  for (const world::HttpRequest& request : requests_) {
    out.push_back(absl::StrCat(request.method, " ", request.url));
  }
  return out;
}

int FakeNetwork::CountTo(std::string_view prefix) const {
  return static_cast<int>(std::count_if(
      requests_.begin(), requests_.end(),
      [&](const world::HttpRequest& request) { return request.url.starts_with(prefix); }));
}

}  // namespace agentrt::mcp::auth::fakes
