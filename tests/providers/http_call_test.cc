// The exchange every provider adapter shares (providers/http_call.h): one JSON POST through the
// real network to a loopback peer of the test's own making, and how each way it can fail, by
// transport or by status, is sorted into the model caller's kinds (runtime/model.h). The status
// rules, Retry-After and the error excerpt are checked on replies built in the test.
#include "providers/http_call.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/model.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/http_fields.h"
#include "tests/providers/provider_server.h"
#include "tests/runtime/world/raw_server.h"
#include "tests/runtime/world/tls_server.h"
#include "tests/support/status_matchers.h"

namespace agentrt::providers {
namespace {

using ::agentrt::test_support::CutAfterHead;
using ::agentrt::test_support::ProviderServer;
using ::agentrt::test_support::ProviderWorld;
using ::agentrt::test_support::ReceivedRequest;
using ::agentrt::test_support::Reply;
using ::testing::Field;

constexpr char kKey[] = "sk-ant-test-5e2b91c07d";

absl::Time Soon(ProviderWorld& world) { return world.clock().Now() + absl::Seconds(30); }

ModelErrorKind KindOf(const absl::Status& status) { return ClassifyModelError(status).kind; }

// A fixed moment for the Retry-After readings: no test here depends on the real clock's value.
absl::Time FixedNow() {
  return absl::FromCivil(absl::CivilSecond(2025, 3, 14, 12, 0, 0), absl::UTCTimeZone());
}

std::string HttpDate(absl::Time at) {
  return absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT", at, absl::UTCTimeZone());
}

HttpReply ReplyOf(int status, std::string body, world::HttpFields headers = {}) {
  return HttpReply{.status = status, .headers = std::move(headers), .body = std::move(body)};
}

// ---- PostJson, through the real network ----

TEST(HttpCallTest, PostJsonSendsAJsonPostWithTheCallersHeadersAndBody) {
  ProviderWorld world;
  ProviderServer server({Reply(200, R"({"ok":true})")});
  const std::string body = R"({"model":"claude","messages":[{"role":"user","content":"hi"}]})";

  absl::StatusOr<HttpReply> reply =
      PostJson(*world.world().network, "anthropic", server.Url() + "/v1/messages",
               {{"x-api-key", kKey}, {"anthropic-version", "2023-06-01"}}, body, Soon(world));

  ASSERT_OK(reply);
  std::vector<ReceivedRequest> requests = server.Requests();
  ASSERT_THAT(requests, SizeIs(1));
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].Header("Content-Type"), "application/json");
  EXPECT_EQ(requests[0].Header("x-api-key"), kKey);
  EXPECT_EQ(requests[0].Header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(requests[0].body, body);
}

TEST(HttpCallTest, PostJsonReadsATwoHundredBodyWholeWithItsHeaders) {
  ProviderWorld world;
  const std::string body = R"({"id":"msg_01","content":[{"type":"text","text":"hello"}]})";
  ProviderServer server({Reply(200, body, {{"request-id", "req_42"}})});

  absl::StatusOr<HttpReply> reply =
      PostJson(*world.world().network, "anthropic", server.Url(), {}, "{}", Soon(world));

  ASSERT_OK(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->body, body);
  EXPECT_EQ(world::FindHeader(reply->headers, "Request-Id"), "req_42");
}

TEST(HttpCallTest, PostJsonReturnsAnErrorStatusAsAReplyForReplyErrorToJudge) {
  ProviderWorld world;
  ProviderServer server({Reply(503, R"({"error":"overloaded"})", {{"Retry-After", "3"}})});

  absl::StatusOr<HttpReply> reply =
      PostJson(*world.world().network, "anthropic", server.Url(), {}, "{}", Soon(world));

  ASSERT_OK(reply);
  EXPECT_EQ(reply->status, 503);
  EXPECT_EQ(reply->body, R"({"error":"overloaded"})");
  absl::Status judged = ReplyError("anthropic", *reply, world.clock().Now());
  EXPECT_EQ(KindOf(judged), ModelErrorKind::kTransient);
  EXPECT_EQ(ClassifyModelError(judged).retry_after, absl::Seconds(3));
}

TEST(HttpCallTest, PostJsonAcceptsABodyOfExactlySixteenMebibytes) {
  ProviderWorld world;
  ProviderServer server({Reply(200, std::string(kMaxBodyBytes, 'a'))});

  absl::StatusOr<HttpReply> reply =
      PostJson(*world.world().network, "anthropic", server.Url(), {}, "{}", Soon(world));

  ASSERT_OK(reply);
  EXPECT_EQ(reply->body.size(), kMaxBodyBytes);
  EXPECT_EQ(reply->body.find_first_not_of('a'), std::string::npos);
}

TEST(HttpCallTest, PostJsonRefusesABodyOneByteOverSixteenMebibytesAsPermanent) {
  ProviderWorld world;
  ProviderServer server({Reply(200, std::string(kMaxBodyBytes + 1, 'a'))});

  absl::StatusOr<HttpReply> reply =
      PostJson(*world.world().network, "anthropic", server.Url(), {}, "{}", Soon(world));

  // The same request would get the same reply: asking again cannot help.
  EXPECT_THAT(reply, StatusIs(absl::StatusCode::kResourceExhausted,
                              AllOf(StartsWith("anthropic: "), HasSubstr("16777216"))));
  EXPECT_EQ(KindOf(reply.status()), ModelErrorKind::kPermanent);
}

TEST(HttpCallTest, PostJsonConnectionCutAfterTheHeadIsAmbiguous) {
  ProviderWorld world;
  ProviderServer server({CutAfterHead(R"({"id":"msg_01","con)", 400)});

  absl::StatusOr<HttpReply> reply = PostJson(*world.world().network, "anthropic", server.Url(),
                                             {{"x-api-key", kKey}}, "{}", Soon(world));

  // The provider may have done the work: the caller charges the estimate.
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(KindOf(reply.status()), ModelErrorKind::kAmbiguous);
  EXPECT_THAT(std::string(reply.status().message()),
              AllOf(StartsWith("anthropic: "), Not(HasSubstr(kKey))));
}

TEST(HttpCallTest, PostJsonRefusedConnectionIsTransientAndNeverNamesTheKey) {
  ProviderWorld world;
  const std::string url = absl::StrCat("http://127.0.0.1:", world::ClosedPort(), "/v1/messages");

  absl::StatusOr<HttpReply> reply =
      PostJson(*world.world().network, "anthropic", url, {{"x-api-key", kKey}},
               R"({"secret":"body"})", Soon(world));

  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(KindOf(reply.status()), ModelErrorKind::kTransient);
  EXPECT_THAT(std::string(reply.status().message()),
              AllOf(StartsWith("anthropic: "), Not(HasSubstr(kKey)), Not(HasSubstr("secret"))));
}

TEST(HttpCallTest, PostJsonDeadlineAlreadyPastIsAmbiguousDeadlineExceeded) {
  ProviderWorld world;
  ProviderServer server({Reply(200, "{}")});

  absl::StatusOr<HttpReply> reply = PostJson(*world.world().network, "anthropic", server.Url(), {},
                                             "{}", world.clock().Now() - absl::Seconds(1));

  EXPECT_THAT(reply, StatusIs(absl::StatusCode::kDeadlineExceeded, StartsWith("anthropic: ")));
  EXPECT_EQ(KindOf(reply.status()), ModelErrorKind::kAmbiguous);
}

TEST(HttpCallTest, PostJsonUnresolvableHostIsPermanent) {
  ProviderWorld world(
      {}, world::CurlNetworkOptions{.loopback_only = false, .proxy_from_environment = false});

  absl::StatusOr<HttpReply> reply =
      PostJson(*world.world().network, "anthropic", "http://agentrt-test.invalid/v1/messages", {},
               "{}", Soon(world));

  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(KindOf(reply.status()), ModelErrorKind::kPermanent);
  EXPECT_THAT(std::string(reply.status().message()), StartsWith("anthropic: "));
}

TEST(HttpCallTest, PostJsonToAnUntrustedCertificateIsPermanent) {
  if (!world::TlsServer::OpensslInstalled()) {
    GTEST_SKIP() << "no /usr/bin/openssl to serve HTTPS with a certificate of the test's own";
  }
  absl::StatusOr<std::unique_ptr<world::TlsServer>> server = world::TlsServer::Start();
  ASSERT_OK(server);
  ProviderWorld world;  // trusts the system's store only, which never holds a test's certificate

  absl::StatusOr<HttpReply> reply =
      PostJson(*world.world().network, "anthropic", (*server)->Url("127.0.0.1", "/v1/messages"),
               {{"x-api-key", kKey}}, "{}", Soon(world));

  // The handshake fails before any byte of the request is sent; retrying cannot help.
  EXPECT_THAT(reply, StatusIs(absl::StatusCode::kFailedPrecondition,
                              AllOf(StartsWith("anthropic: "),
                                    HasSubstr("the server's certificate is not trusted"),
                                    Not(HasSubstr(kKey)))));
  EXPECT_EQ(KindOf(reply.status()), ModelErrorKind::kPermanent);
}

TEST(HttpCallTest, PostJsonLoopbackOnlyNetworkRefusesAnotherHostBeforeConnecting) {
  ProviderWorld world;  // loopback-only

  absl::StatusOr<HttpReply> reply = PostJson(*world.world().network, "anthropic",
                                             "http://192.0.2.7/v1/messages", {}, "{}", Soon(world));

  // PermissionDenied comes from the socket's opening, before any connection is attempted.
  EXPECT_THAT(reply, StatusIs(absl::StatusCode::kPermissionDenied,
                              AllOf(StartsWith("anthropic: "), HasSubstr("not loopback"))));
  EXPECT_EQ(KindOf(reply.status()), ModelErrorKind::kPermanent);
}

TEST(HttpCallTest, PostJsonNeverFollowsARedirect) {
  ProviderWorld world;
  ProviderServer server({Reply(307, "", {{"Location", "/v1/elsewhere?token=abc"}}),
                         Reply(200, R"({"reached":"the redirect's target"})")});

  absl::StatusOr<HttpReply> reply =
      PostJson(*world.world().network, "anthropic", server.Url() + "/v1/messages",
               {{"x-api-key", kKey}}, "{}", Soon(world));

  // The 3xx itself comes back; its target is never asked, so the key goes nowhere else.
  ASSERT_OK(reply);
  EXPECT_EQ(reply->status, 307);
  EXPECT_THAT(server.Requests(), ElementsAre(Field(&ReceivedRequest::path, "/v1/messages")));
  EXPECT_EQ(KindOf(ReplyError("anthropic", *reply, world.clock().Now())),
            ModelErrorKind::kPermanent);
}

TEST(HttpCallTest, PostJsonUrlThatIsNotHttpIsPermanent) {
  ProviderWorld world;

  absl::StatusOr<HttpReply> reply = PostJson(*world.world().network, "anthropic",
                                             "ftp://127.0.0.1/v1/messages", {}, "{}", Soon(world));

  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(KindOf(reply.status()), ModelErrorKind::kPermanent);
  EXPECT_THAT(std::string(reply.status().message()), StartsWith("anthropic: "));
}

// ---- ReplyError: the status of a reply that arrived ----

TEST(HttpCallTest, ReplyErrorIsOkForEveryTwoHundred) {
  for (int status : {200, 201, 299}) {
    SCOPED_TRACE(status);
    EXPECT_OK(ReplyError("anthropic", ReplyOf(status, R"({"ok":true})"), FixedNow()));
  }
}

TEST(HttpCallTest, ReplyErrorRetryableStatusesAreTransientWithTheTrimmedBody) {
  for (int status : {408, 409, 425, 429, 500, 503, 529}) {
    SCOPED_TRACE(status);
    absl::Status error = ReplyError("anthropic", ReplyOf(status, "  overloaded \n"), FixedNow());
    EXPECT_EQ(error.message(), absl::StrCat("anthropic: ", status, ": overloaded"));
    ModelErrorInfo info = ClassifyModelError(error);
    EXPECT_EQ(info.kind, ModelErrorKind::kTransient);
    EXPECT_EQ(info.retry_after, absl::ZeroDuration());
  }
}

TEST(HttpCallTest, ReplyErrorOtherClientErrorsArePermanentWithTheExactBody) {
  const std::string body = R"({"type":"error","error":{"type":"invalid_request_error"}})";
  for (int status : {400, 401, 404, 422}) {
    SCOPED_TRACE(status);
    absl::Status error = ReplyError("anthropic", ReplyOf(status, body), FixedNow());
    EXPECT_EQ(error.message(), absl::StrCat("anthropic: ", status, ": ", body));
    EXPECT_EQ(KindOf(error), ModelErrorKind::kPermanent);
  }
}

TEST(HttpCallTest, ReplyErrorCutsALongBodyTo2048BytesAndMarksTheCut) {
  absl::Status error = ReplyError("anthropic", ReplyOf(500, std::string(5000, 'x')), FixedNow());

  EXPECT_EQ(error.message(),
            absl::StrCat("anthropic: 500: ", std::string(kMaxExcerptBytes, 'x'), "…"));
}

TEST(HttpCallTest, ReplyErrorCutsABodyJustOverTheBound) {
  // 2049 bytes: one more than the excerpt holds, so it must be cut and marked too.
  absl::Status error =
      ReplyError("anthropic", ReplyOf(400, std::string(kMaxExcerptBytes + 1, 'x')), FixedNow());

  EXPECT_EQ(error.message(),
            absl::StrCat("anthropic: 400: ", std::string(kMaxExcerptBytes, 'x'), "…"));
}

TEST(HttpCallTest, ReplyErrorCutsTheExcerptOnACharacterBoundary) {
  // "x" then two-byte characters: byte 2048 falls inside one, so the cut backs off a byte.
  std::string body = "x";
  for (int i = 0; i < 2000; ++i) body += "é";

  absl::Status error = ReplyError("anthropic", ReplyOf(400, body), FixedNow());

  std::string expected = "x";
  for (int i = 0; i < 1023; ++i) expected += "é";
  EXPECT_EQ(error.message(), absl::StrCat("anthropic: 400: ", expected, "…"));
}

TEST(HttpCallTest, ReplyErrorEscapesControlCharactersInTheBody) {
  absl::Status error = ReplyError(
      "anthropic", ReplyOf(400, "bad\x1b[2Jrequest\r\nforged: log line\x07"), FixedNow());

  EXPECT_THAT(
      std::string(error.message()),
      AllOf(StartsWith("anthropic: 400: bad"), HasSubstr("\\x1b[2J"), Not(HasSubstr("\x1b")),
            Not(HasSubstr("\n")), Not(HasSubstr("\r")), Not(HasSubstr("\x07"))));
}

TEST(HttpCallTest, ReplyErrorKeepsRetryAfterSecondsOnATooManyRequests) {
  absl::Status error =
      ReplyError("anthropic", ReplyOf(429, "slow down", {{"Retry-After", "7"}}), FixedNow());

  ModelErrorInfo info = ClassifyModelError(error);
  EXPECT_EQ(info.kind, ModelErrorKind::kTransient);
  EXPECT_EQ(info.retry_after, absl::Seconds(7));
  EXPECT_EQ(error.message(), "anthropic: 429: slow down");
}

TEST(HttpCallTest, ReplyErrorReadsARetryAfterDateAtNow) {
  absl::Status error = ReplyError(
      "anthropic", ReplyOf(503, "busy", {{"retry-after", HttpDate(FixedNow() + absl::Minutes(2))}}),
      FixedNow());

  EXPECT_EQ(ClassifyModelError(error).retry_after, absl::Minutes(2));
}

TEST(HttpCallTest, ReplyErrorRedirectNamesOnlyTheLocationHost) {
  absl::Status error = ReplyError(
      "anthropic", ReplyOf(307, "", {{"Location", "http://user:pw@evil.example/path?token=abc"}}),
      FixedNow());

  EXPECT_EQ(error.message(),
            "anthropic: 307: redirects are not followed; the response pointed to host "
            "\"evil.example\"");
  EXPECT_THAT(std::string(error.message()),
              AllOf(Not(HasSubstr("token")), Not(HasSubstr("abc")), Not(HasSubstr("path")),
                    Not(HasSubstr("pw")), Not(HasSubstr("user"))));
  EXPECT_EQ(KindOf(error), ModelErrorKind::kPermanent);
}

TEST(HttpCallTest, ReplyErrorRedirectToARelativeLocationSaysTheSameHost) {
  absl::Status error =
      ReplyError("anthropic", ReplyOf(302, "", {{"Location", "/v1/other?token=abc"}}), FixedNow());

  EXPECT_EQ(error.message(),
            "anthropic: 302: redirects are not followed; the response pointed elsewhere on the "
            "same host");
  EXPECT_EQ(KindOf(error), ModelErrorKind::kPermanent);
}

TEST(HttpCallTest, ReplyErrorRedirectWithoutLocationIsPermanent) {
  absl::Status error = ReplyError("anthropic", ReplyOf(301, "moved"), FixedNow());

  EXPECT_EQ(error.message(), "anthropic: 301: redirects are not followed");
  EXPECT_EQ(KindOf(error), ModelErrorKind::kPermanent);
}

// ---- RetryAfter, IsTransientStatus, Truncate, Excerpt ----

TEST(HttpCallTest, RetryAfterAbsentOrUnreadableOrNegativeIsZero) {
  EXPECT_EQ(RetryAfter(std::nullopt, FixedNow()), absl::ZeroDuration());
  for (const char* value : {"", "soon", "-3", "-1", "7s", "1.5"}) {
    SCOPED_TRACE(value);
    EXPECT_EQ(RetryAfter(value, FixedNow()), absl::ZeroDuration());
  }
}

TEST(HttpCallTest, RetryAfterReadsWholeSeconds) {
  EXPECT_EQ(RetryAfter("7", FixedNow()), absl::Seconds(7));
  EXPECT_EQ(RetryAfter(" 7 ", FixedNow()), absl::Seconds(7));
}

TEST(HttpCallTest, RetryAfterBelievesExactlyAnHourAndNothingLonger) {
  EXPECT_EQ(RetryAfter("3600", FixedNow()), absl::Hours(1));
  EXPECT_EQ(RetryAfter("3601", FixedNow()), absl::ZeroDuration());
  EXPECT_EQ(RetryAfter("99999999999999999999", FixedNow()), absl::ZeroDuration());
}

TEST(HttpCallTest, RetryAfterHttpDateIsTheTimeUntilIt) {
  EXPECT_EQ(RetryAfter(HttpDate(FixedNow() + absl::Minutes(30)), FixedNow()), absl::Minutes(30));
  EXPECT_EQ(RetryAfter(HttpDate(FixedNow() + absl::Hours(1)), FixedNow()), absl::Hours(1));
}

TEST(HttpCallTest, RetryAfterHttpDateInThePastOrOverAnHourAheadIsZero) {
  for (absl::Duration offset : {-absl::Minutes(10), absl::ZeroDuration(),
                                absl::Hours(1) + absl::Seconds(1), absl::Hours(5)}) {
    SCOPED_TRACE(absl::FormatDuration(offset));
    EXPECT_EQ(RetryAfter(HttpDate(FixedNow() + offset), FixedNow()), absl::ZeroDuration());
  }
}

TEST(HttpCallTest, IsTransientStatusOnlyForRetryableStatuses) {
  for (int status : {408, 409, 425, 429, 500, 501, 502, 503, 504, 529, 599}) {
    SCOPED_TRACE(status);
    EXPECT_TRUE(IsTransientStatus(status));
  }
  for (int status : {200, 204, 301, 307, 400, 401, 403, 404, 410, 413, 422, 424, 426, 499}) {
    SCOPED_TRACE(status);
    EXPECT_FALSE(IsTransientStatus(status));
  }
}

TEST(HttpCallTest, TruncateCutsOnACharacterBoundary) { EXPECT_EQ(Truncate("héllo", 2), "h…"); }

TEST(HttpCallTest, TruncateLeavesShortTextUnchanged) {
  EXPECT_EQ(Truncate("héllo", 6), "héllo");
  EXPECT_EQ(Truncate("", 0), "");
  EXPECT_EQ(Truncate("abc", 100), "abc");
}

TEST(HttpCallTest, TruncateCutsTextOnlyJustOverTheBound) {
  // One to three bytes over: still cut to max_bytes, and marked.
  EXPECT_EQ(Truncate("abcdef", 5), "abcde…");
  EXPECT_EQ(Truncate("héllo", 5), "héll…");
  EXPECT_EQ(Truncate("héllo", 3), "hé…");
}

TEST(HttpCallTest, ExcerptTrimsAndEscapes) {
  EXPECT_EQ(Excerpt("  \n{\"error\":\"x\"}\t "), "{\"error\":\"x\"}");
  EXPECT_EQ(Excerpt("a\x1b"
                    "b"),
            "a\\x1bb");
}

}  // namespace
}  // namespace agentrt::providers
