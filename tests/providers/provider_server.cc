#include "tests/providers/provider_server.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace agentrt::test_support {
namespace {

const char* ReasonOf(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 529:
      return "Overloaded";
    default:
      return "Status";
  }
}

ReceivedRequest ParseRequest(std::string_view raw) {
  ReceivedRequest r;
  std::size_t head_end = raw.find("\r\n\r\n");
  std::string_view head = raw.substr(0, head_end);
  r.body = std::string(head_end == std::string_view::npos ? "" : raw.substr(head_end + 4));
  bool first = true;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(head.data(), head.size()), "\r\n")) {
    if (first) {
      std::vector<std::string> parts = absl::StrSplit(line, ' ');
      if (parts.size() >= 2) {
        r.method = parts[0];
        r.path = parts[1];
      }
      first = false;
      continue;
    }
    std::size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    r.headers.emplace_back(std::string(line.substr(0, colon)),
                           std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
  return r;
}

}  // namespace

std::string ReceivedRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, absl::string_view(name.data(), name.size()))) return value;
  }
  return "";
}

bool ReceivedRequest::HasHeader(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, absl::string_view(name.data(), name.size()))) return true;
  }
  return false;
}

ModelRequest HelloRequest() {
  ModelRequest request;
  request.messages.push_back(
      Message{.role = "user", .content = {ContentBlock{.type = "text", .text = "Hello."}}});
  return request;
}

CannedAnswer Reply(int status, std::string_view body,
                   std::vector<std::pair<std::string, std::string>> headers,
                   std::string_view content_type) {
  std::string bytes = absl::StrCat("HTTP/1.1 ", status, " ", ReasonOf(status), "\r\n");
  if (!content_type.empty()) {
    absl::StrAppend(&bytes,
                    "Content-Type: ", absl::string_view(content_type.data(), content_type.size()),
                    "\r\n");
  }
  for (const auto& [name, value] : headers) absl::StrAppend(&bytes, name, ": ", value, "\r\n");
  absl::StrAppend(&bytes, "Content-Length: ", body.size(), "\r\nConnection: close\r\n\r\n",
                  absl::string_view(body.data(), body.size()));
  return {std::move(bytes), true};
}

CannedAnswer CutAfterHead(std::string_view sent, std::size_t declared) {
  return {absl::StrCat("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ",
                       declared, "\r\n\r\n", absl::string_view(sent.data(), sent.size())),
          true};
}

ProviderServer::ProviderServer(std::vector<CannedAnswer> answers)
    : answers_(answers.begin(), answers.end()) {
  server_ = std::make_unique<world::RawServer>(
      [this](world::RawConnection& connection) { Serve(connection); });
}

ProviderServer::~ProviderServer() { server_.reset(); }

std::string ProviderServer::Url() const {
  return absl::StrCat("http://127.0.0.1:", server_->port());
}

std::vector<ReceivedRequest> ProviderServer::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void ProviderServer::Serve(world::RawConnection& connection) {
  std::string raw = connection.ReadRequest();
  if (raw.empty()) return;
  CannedAnswer answer;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(ParseRequest(raw));
    if (answers_.empty()) {
      answer = Reply(500, R"({"error":"the test server has no answer left"})");
    } else {
      answer = std::move(answers_.front());
      answers_.pop_front();
    }
  }
  connection.Write(answer.bytes);
  if (answer.cut) connection.Close();
}

ProviderWorld::ProviderWorld(std::map<std::string, std::string, std::less<>> environment,
                             world::CurlNetworkOptions options)
    : environment_(std::move(environment)) {
  absl::StatusOr<std::unique_ptr<world::CurlNetwork>> network =
      world::CurlNetwork::Create(clock_, options);
  if (!network.ok()) std::abort();
  network_ = *std::move(network);
  world_.clock = &clock_;
  world_.entropy = &entropy_;
  world_.network = network_.get();
  world_.environment = &environment_;
}

}  // namespace agentrt::test_support
