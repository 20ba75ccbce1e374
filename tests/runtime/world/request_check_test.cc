// CheckRequest: what every Network refuses before sending, and that its messages never carry a
// header's value.
#include "runtime/world/request_check.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::world {
namespace {

TEST(RequestCheckTest, OrdinaryRequestsPass) {
  const std::vector<HttpRequest> requests = {
      {.url = "http://127.0.0.1:8080/mcp"},
      {.method = "POST",
       .url = "https://api.example.com/v1/messages?beta=true",
       .headers = {{"Authorization", "Bearer abc"},
                   {"Mcp-Param-Q", "=?base64?aGk=?="},
                   {"X-Empty", ""},
                   {"X-Tab", "a\tb"}},
       .body = "{}"},
      {.method = "M-SEARCH", .url = "HTTP://[::1]:9/"},
      {.method = "DELETE", .url = "http://user:pw@host/x#frag"},
  };
  for (const HttpRequest& request : requests) {
    SCOPED_TRACE(request.method + " " + request.url);
    EXPECT_OK(CheckRequest(request));
  }
}

TEST(RequestCheckTest, WhatCannotBeSentAsItIsIsRefused) {
  struct Case {
    std::string name;
    HttpRequest request;
    std::string says;
  };
  const std::string url = "http://127.0.0.1/";
  const std::vector<Case> cases = {
      {"EmptyMethod", {.method = "", .url = url}, "method is not an HTTP token"},
      {"MethodWithSpace", {.method = "GET /", .url = url}, "method is not an HTTP token"},
      {"RelativeUrl", {.url = "/mcp"}, "not an absolute http(s) URL"},
      {"OtherScheme", {.url = "ftp://host/"}, "not an absolute http(s) URL"},
      {"NoHost", {.url = "http:///x"}, "not an absolute http(s) URL"},
      {"OnlyUserInformation", {.url = "http://user@/x"}, "not an absolute http(s) URL"},
      {"PortWithoutHost", {.url = "http://:80/x"}, "not an absolute http(s) URL"},
      {"SpaceInUrl", {.url = "http://host/a b"}, "not an absolute http(s) URL"},
      {"LineBreakInUrl", {.url = "http://host/a\r\nX: y"}, "not an absolute http(s) URL"},
      {"NonAsciiInUrl", {.url = "http://host/caf\xC3\xA9"}, "not an absolute http(s) URL"},
      {"CrLfInValue",
       {.url = url, .headers = {{"X-Token", "secret\r\nX-Evil: 1"}}},
       "header X-Token has a control character"},
      {"CrInValue",
       {.url = url, .headers = {{"X-Token", "secret\rmore"}}},
       "header X-Token has a control character"},
      {"DelInValue",
       {.url = url, .headers = {{"X-Token", "secret\x7f"}}},
       "header X-Token has a control character"},
      {"SpaceInName",
       {.url = url, .headers = {{"X Token", "secret"}}},
       "header name \"X...\" is not a token (byte 1 is  )"},
      {"WholeLineAsName",
       {.url = url, .headers = {{"Authorization: Bearer secret", ""}}},
       "header name \"Authorization...\" is not a token (byte 13 is :)"},
      {"EmptyName", {.url = url, .headers = {{"", "secret"}}}, "an empty header name"},
      {"ContentLength",
       {.url = url, .headers = {{"content-length", "3"}}},
       "content-length is the network's to set"},
      {"TransferEncoding",
       {.url = url, .headers = {{"Transfer-Encoding", "chunked"}}},
       "Transfer-Encoding is the network's to set"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    absl::Status status = CheckRequest(c.request);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.says));
    EXPECT_THAT(std::string(status.message()), Not(HasSubstr("secret")));
  }
}

TEST(RequestCheckTest, TheMessageNamesTheRequestWithoutItsUserInformation) {
  absl::Status status = CheckRequest(
      {.method = "POST", .url = "http://me:hunter2@host/mcp", .headers = {{"X\n", "v"}}});
  EXPECT_THAT(std::string(status.message()), HasSubstr("POST http://host/mcp: header name"));
  EXPECT_THAT(std::string(status.message()), Not(HasSubstr("hunter2")));
}

}  // namespace
}  // namespace agentrt::world
