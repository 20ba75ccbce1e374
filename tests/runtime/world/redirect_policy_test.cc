// RedirectingNetwork over an in-memory network: which answers it follows, what the policy sees
// and decides, the bound on hops; and ResolveLocation against RFC 3986's own examples.
// (tests/runtime/world/network_test.cc follows a redirect between two real loopback servers.)
#include "runtime/world/redirect_policy.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.h"

namespace agentrt::world {
namespace {

const absl::Time kDeadline = absl::FromUnixSeconds(1'000'000);

struct Answer {
  int status = 200;
  HttpFields headers;
  std::string body;
};

class FakeResponse final : public HttpResponse {
 public:
  FakeResponse(Answer answer, int& closed) : answer_(std::move(answer)), closed_(closed) {}
  int status() const override { return answer_.status; }
  const HttpFields& headers() const override { return answer_.headers; }
  absl::StatusOr<std::string> Read(absl::Time) override { return std::exchange(answer_.body, ""); }
  void Close() override { ++closed_; }

 private:
  Answer answer_;
  int& closed_;
};

// Answers each URL as told; records every request it was sent.
class FakeNetwork final : public Network {
 public:
  std::map<std::string, Answer> answers;
  std::vector<HttpRequest> sent;
  int closed = 0;

  absl::StatusOr<std::unique_ptr<HttpResponse>> Send(const HttpRequest& request,
                                                     absl::Time) override {
    sent.push_back(request);
    auto it = answers.find(request.url);
    if (it == answers.end()) return absl::UnavailableError("no server at " + request.url);
    return std::make_unique<FakeResponse>(it->second, closed);
  }
};

Answer Redirect(int status, std::string location) {
  return Answer{status, {{"Location", std::move(location)}}, "moved"};
}

std::string Host(std::string_view url) {
  std::size_t start = url.find("://") + 3;
  return std::string(url.substr(start, url.find('/', start) - start));
}

// Follows every redirect to the resolved location, keeping the method and body, and drops
// Authorization when the host changes.
std::optional<HttpRequest> FollowDroppingAuthorizationAcrossHosts(const HttpRequest& previous,
                                                                  int status,
                                                                  std::string_view location) {
  HttpRequest next = previous;
  next.url = std::string(location);
  if (Host(location) != Host(previous.url)) {
    std::erase_if(next.headers, [](const auto& h) { return h.first == "Authorization"; });
  }
  return next;
}

std::vector<std::string> Urls(const std::vector<HttpRequest>& requests) {
  std::vector<std::string> urls;
  for (const HttpRequest& r : requests) urls.push_back(r.url);
  return urls;
}

TEST(RedirectingNetworkTest, FollowsUnderThePolicyWhichDropsAHeaderAcrossHosts) {
  FakeNetwork inner;
  inner.answers["http://a.test/start"] = Redirect(307, "http://b.test/landing");
  inner.answers["http://b.test/landing"] = Answer{200, {}, "landed"};
  RedirectingNetwork network(inner, FollowDroppingAuthorizationAcrossHosts);

  HttpRequest request{.method = "POST",
                      .url = "http://a.test/start",
                      .headers = {{"Authorization", "Bearer secret"}, {"X-Keep", "1"}},
                      .body = "{}"};
  absl::StatusOr<std::unique_ptr<HttpResponse>> response = network.Send(request, kDeadline);

  ASSERT_OK(response);
  EXPECT_EQ((*response)->status(), 200);
  EXPECT_EQ(*ReadBody(**response, kDeadline), "landed");
  ASSERT_THAT(Urls(inner.sent), ElementsAre("http://a.test/start", "http://b.test/landing"));
  EXPECT_THAT(inner.sent[1].headers, ElementsAre(Pair("X-Keep", "1")));
  EXPECT_EQ(inner.sent[1].method, "POST");
  EXPECT_EQ(inner.sent[1].body, "{}");
  EXPECT_EQ(inner.closed, 1);  // the redirect's body was abandoned
}

TEST(RedirectingNetworkTest, ThePolicySeesTheStatusAndTheResolvedLocation) {
  FakeNetwork inner;
  inner.answers["http://a.test/x/y/start?q=1"] = Redirect(303, "../next?page=2");
  inner.answers["http://a.test/x/next?page=2"] = Answer{200, {}, ""};
  std::vector<std::pair<int, std::string>> seen;
  RedirectingNetwork network(
      inner, [&](const HttpRequest& previous, int status, std::string_view location) {
        seen.emplace_back(status, std::string(location));
        HttpRequest next{.method = "GET", .url = std::string(location)};  // 303: a GET, no body
        return std::optional<HttpRequest>(next);
      });

  absl::StatusOr<std::unique_ptr<HttpResponse>> response = network.Send(
      {.method = "POST", .url = "http://a.test/x/y/start?q=1", .body = "b"}, kDeadline);

  ASSERT_OK(response);
  EXPECT_THAT(seen, ElementsAre(Pair(303, "http://a.test/x/next?page=2")));
  EXPECT_EQ(inner.sent[1].method, "GET");
  EXPECT_EQ(inner.sent[1].body, "");
}

TEST(RedirectingNetworkTest, ARedirectThePolicyDeclinesComesBackAsIs) {
  FakeNetwork inner;
  inner.answers["http://a.test/"] = Redirect(307, "http://b.test/");
  RedirectingNetwork network(inner, [](const HttpRequest&, int, std::string_view) {
    return std::optional<HttpRequest>();
  });

  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network.Send({.url = "http://a.test/"}, kDeadline);

  ASSERT_OK(response);
  EXPECT_EQ((*response)->status(), 307);
  EXPECT_EQ(*ReadBody(**response, kDeadline), "moved");
  EXPECT_THAT(Urls(inner.sent), ElementsAre("http://a.test/"));
  EXPECT_EQ(inner.closed, 0);
}

TEST(RedirectingNetworkTest, OnlyRedirectsWithALocationItCanResolveReachThePolicy) {
  struct Case {
    std::string name;
    Answer answer;
  };
  const std::vector<Case> cases = {
      {"NotModified", Answer{304, {{"Location", "http://b.test/"}}, ""}},
      {"MultipleChoices", Answer{300, {{"Location", "http://b.test/"}}, ""}},
      {"OkWithLocation", Answer{200, {{"Location", "http://b.test/"}}, ""}},
      {"CreatedWithLocation", Answer{201, {{"Location", "/item/1"}}, ""}},
      {"RedirectWithoutLocation", Answer{302, {}, ""}},
      {"ToJavascript", Redirect(302, "javascript:alert(1)")},
      {"ToAFile", Redirect(301, "file:///etc/passwd")},
      {"WithASpace", Redirect(308, "/a b")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeNetwork inner;
    inner.answers["http://a.test/"] = c.answer;
    int asked = 0;
    RedirectingNetwork network(inner, [&](const HttpRequest& previous, int, std::string_view) {
      ++asked;
      return std::optional<HttpRequest>(previous);
    });
    absl::StatusOr<std::unique_ptr<HttpResponse>> response =
        network.Send({.url = "http://a.test/"}, kDeadline);
    ASSERT_OK(response);
    EXPECT_EQ((*response)->status(), c.answer.status);
    EXPECT_EQ(asked, 0);
    EXPECT_EQ(inner.sent.size(), 1u);
  }
}

TEST(RedirectingNetworkTest, EveryRedirectStatusIsFollowed) {
  for (int status : {301, 302, 303, 307, 308}) {
    SCOPED_TRACE(status);
    FakeNetwork inner;
    inner.answers["http://a.test/"] = Redirect(status, "/there");
    inner.answers["http://a.test/there"] = Answer{200, {}, "there"};
    RedirectingNetwork network(inner, FollowDroppingAuthorizationAcrossHosts);
    absl::StatusOr<std::unique_ptr<HttpResponse>> response =
        network.Send({.url = "http://a.test/"}, kDeadline);
    ASSERT_OK(response);
    EXPECT_EQ((*response)->status(), 200);
  }
}

TEST(RedirectingNetworkTest, OneRedirectMoreThanTheBoundFailsNamingTheCount) {
  FakeNetwork inner;
  inner.answers["http://user:pw@a.test/loop"] = Redirect(302, "http://user:pw@a.test/loop");
  RedirectingNetwork network(inner, FollowDroppingAuthorizationAcrossHosts, /*max_redirects=*/3);

  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network.Send({.url = "http://user:pw@a.test/loop"}, kDeadline);

  EXPECT_EQ(response.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(response.status().message(),
              HasSubstr("GET http://a.test/loop: more than 3 redirects"));
  EXPECT_THAT(response.status().message(), Not(HasSubstr("pw")));
  EXPECT_EQ(inner.sent.size(), 4u);  // the request and the three redirects followed
  EXPECT_EQ(inner.closed, 4);
}

TEST(RedirectingNetworkTest, ExactlyTheBoundIsFollowed) {
  FakeNetwork inner;
  inner.answers["http://a.test/1"] = Redirect(302, "/2");
  inner.answers["http://a.test/2"] = Redirect(302, "/3");
  inner.answers["http://a.test/3"] = Answer{200, {}, "ok"};
  RedirectingNetwork network(inner, FollowDroppingAuthorizationAcrossHosts, /*max_redirects=*/2);
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network.Send({.url = "http://a.test/1"}, kDeadline);
  ASSERT_OK(response);
  EXPECT_EQ((*response)->status(), 200);
}

TEST(RedirectingNetworkTest, ABoundOfZeroFollowsNothing) {
  FakeNetwork inner;
  inner.answers["http://a.test/"] = Redirect(307, "/x");
  RedirectingNetwork network(inner, FollowDroppingAuthorizationAcrossHosts, /*max_redirects=*/0);
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network.Send({.url = "http://a.test/"}, kDeadline);
  EXPECT_EQ(response.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(response.status().message(), HasSubstr("more than 0 redirects"));
}

TEST(RedirectingNetworkTest, TheInnerNetworksErrorsComeBackAsTheyAre) {
  FakeNetwork inner;
  inner.answers["http://a.test/"] = Redirect(307, "http://nowhere.test/");
  RedirectingNetwork network(inner, FollowDroppingAuthorizationAcrossHosts);
  absl::StatusOr<std::unique_ptr<HttpResponse>> response =
      network.Send({.url = "http://a.test/"}, kDeadline);
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(), HasSubstr("nowhere.test"));
}

// RFC 3986 §5.4.1 and §5.4.2, against its base "http://a/b/c/d;p?q" (fragments dropped).
TEST(ResolveLocationTest, TheRfcExamples) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"g", "http://a/b/c/g"},
      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},
      {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q"},
      {"g#s", "http://a/b/c/g"},
      {"g?y#s", "http://a/b/c/g?y"},
      {";x", "http://a/b/c/;x"},
      {"g;x", "http://a/b/c/g;x"},
      {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},
      {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},
      {"../", "http://a/b/"},
      {"../g", "http://a/b/g"},
      {"../..", "http://a/"},
      {"../../", "http://a/"},
      {"../../g", "http://a/g"},
      {"../../../g", "http://a/g"},
      {"../../../../g", "http://a/g"},
      {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},
      {"g.", "http://a/b/c/g."},
      {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."},
      {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"},
      {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
      {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"},
      {"g?y/../x", "http://a/b/c/g?y/../x"},
      {"g#s/./x", "http://a/b/c/g"},
      {"https://other.test:8443/p?q", "https://other.test:8443/p?q"},
      {"HTTPS://Other.test/p/../q", "https://Other.test/q"},
      {"//user@other.test", "http://user@other.test"},
  };
  for (const auto& [location, want] : cases) {
    SCOPED_TRACE(location);
    absl::StatusOr<std::string> got = ResolveLocation("http://a/b/c/d;p?q", location);
    ASSERT_OK(got);
    EXPECT_EQ(*got, want);
  }
}

TEST(ResolveLocationTest, AnEmptyPathBaseGetsARootSlash) {
  EXPECT_EQ(*ResolveLocation("http://a", "g"), "http://a/g");
  EXPECT_EQ(*ResolveLocation("http://a?q", "?r"), "http://a?r");
}

TEST(ResolveLocationTest, WhatIsNotAnAbsoluteHttpUrlIsRefused) {
  for (std::string location :
       {"g:h", "http:g", "javascript:alert(1)", "file:///etc/passwd", "ftp://a/x", "http:///nohost",
        "/a b", "/a\r\nSet-Cookie: x", "/tab\there"}) {
    SCOPED_TRACE(location);
    absl::StatusOr<std::string> got = ResolveLocation("http://a/b", location);
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr("Location"));
  }
}

TEST(ResolveLocationTest, NothingToResolveAgainstIsRefused) {
  EXPECT_EQ(ResolveLocation("", "g").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ResolveLocation("mailto:x", "g").status().message(), Not(IsEmpty()));
}

}  // namespace
}  // namespace agentrt::world
