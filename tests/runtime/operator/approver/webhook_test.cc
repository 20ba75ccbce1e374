// The approval webhook over real HTTP on loopback (runtime/operator/approver/webhook/handler.h
// served by runtime/world/http_server.h), against a real database holding runs paused by the
// driver.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/base/string_view.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/operator/approver/local.h"
#include "runtime/operator/approver/webhook/address_limiter.h"
#include "runtime/operator/approver/webhook/handler.h"
#include "runtime/operator/approver/webhook/signature.h"
#include "runtime/records/run_reader.h"
#include "runtime/records/stored_forms.h"
#include "runtime/world/http_server.h"
#include "tests/runtime/operator/approver/paused_run.h"
#include "tests/support/status_matchers.h"

namespace agentrt::approver::webhook {
namespace {

using testing::Complete;
using testing::PausedRunTest;
using testing::PostTo;

const std::string kSecret = "0123456789abcdef0123456789abcdef-test";

// An Approver that counts what reaches it, to show what the webhook refuses on its own.
class CountingApprover : public Approver {
 public:
  explicit CountingApprover(Approver& inner) : inner_(inner) {}
  absl::StatusOr<std::vector<Pending>> ListPending(std::string_view run, int limit) override {
    return inner_.ListPending(run, limit);
  }
  absl::StatusOr<Pending> Show(std::string_view run, std::string_view approval) override {
    return inner_.Show(run, approval);
  }
  absl::Status Approve(const Decision& d) override {
    ++decisions;
    return inner_.Approve(d);
  }
  absl::Status Reject(const Decision& d) override {
    ++decisions;
    return inner_.Reject(d);
  }
  absl::Status Cancel(std::string_view run, std::string_view by, std::string_view note) override {
    ++decisions;
    return inner_.Cancel(run, by, note);
  }
  int decisions = 0;

 private:
  Approver& inner_;
};

struct Reply {
  int status = 0;
  std::string body;
  std::string content_type;
  std::string cache_control;
  // A member of a JSON reply ("" when absent or not JSON).
  std::string Member(std::string_view key) const {
    absl::StatusOr<json::Document> doc = json::Parse(body);
    return doc.ok() ? json::MemberText(doc->root(), key) : "";
  }
};

std::string DecisionBody(const Approval& a, std::string_view hash, std::string_view by = "ops",
                         std::string_view note = "ok") {
  return json::JsonObject()
      .String("run_id", a.run_id)
      .String("approval_id", a.id)
      .String("hash", hash)
      .String("by", by)
      .String("note", note)
      .Build();
}

class WebhookTest : public PausedRunTest {
 protected:
  void SetUp() override {
    PausedRunTest::SetUp();
    local_ = std::make_unique<Local>(*store_, clock_);
    counting_ = std::make_unique<CountingApprover>(*local_);
    Config config;
    config.approver = counting_.get();
    config.secret = kSecret;
    config.clock = &clock_;
    config.observer = [this](const store::Event& e) {
      absl::MutexLock lock(&mu_);
      observed_.push_back(e);
    };
    Serve(std::move(config));
  }
  void TearDown() override {
    server_.reset();
    PausedRunTest::TearDown();
  }

  void Serve(Config config) {
    server_.reset();
    absl::StatusOr<std::unique_ptr<Handler>> handler = Handler::Create(std::move(config));
    ASSERT_OK(handler);
    handler_ = *std::move(handler);
    absl::StatusOr<std::unique_ptr<world::HttpServer>> server =
        world::HttpServer::Listen("127.0.0.1", 0, *handler_);
    ASSERT_OK(server);
    server_ = *std::move(server);
  }

  // A request signed now with the test's secret.
  world::ServerRequest Signed(std::string_view method, std::string_view path,
                              std::string_view body = "") {
    return NewRequest(kSecret, clock_.Now(), entropy_, method, path, body);
  }

  // Sends `request` over HTTP; `query` is appended to the URL (it is not signed).
  Reply Send(const world::ServerRequest& request, std::string_view query = "") {
    httplib::Client client("127.0.0.1", server_->port());
    httplib::Headers headers;
    for (const auto& [key, value] : request.headers) headers.emplace(key, value);
    std::string target = request.path + std::string(query);
    httplib::Result result =
        request.method == "GET" ? client.Get(target.c_str(), headers)
        : request.method == "POST"
            ? client.Post(target.c_str(), headers, request.body, "application/json")
            : client.Delete(target.c_str(), headers);
    Reply reply;
    if (!result) {
      ADD_FAILURE() << "no response: " << httplib::to_string(result.error());
      return reply;
    }
    reply.status = result->status;
    reply.body = result->body;
    reply.content_type = result->get_header_value("Content-Type");
    reply.cache_control = result->get_header_value("Cache-Control");
    return reply;
  }

  Reply Get(std::string_view path, std::string_view query = "") {
    return Send(Signed("GET", path), query);
  }
  Reply Post(std::string_view path, std::string_view body) {
    return Send(Signed("POST", path, body));
  }
  Reply Decide(const Approval& a, std::string_view verb, std::string_view hash,
               std::string_view by = "ops", std::string_view note = "ok") {
    return Post(absl::StrCat("/runs/", a.run_id, "/approvals/", a.id, "/", ToAbsl(verb)),
                DecisionBody(a, hash, by, note));
  }

  std::vector<store::Event> Observed() {
    absl::MutexLock lock(&mu_);
    return observed_;
  }

  std::unique_ptr<Local> local_;
  std::unique_ptr<CountingApprover> counting_;
  std::unique_ptr<Handler> handler_;
  std::unique_ptr<world::HttpServer> server_;
  absl::Mutex mu_;
  std::vector<store::Event> observed_ ABSL_GUARDED_BY(mu_);
};

TEST_F(WebhookTest, ListsAndShowsTheRunsPendingApprovalAsJson) {
  Start("run-1");
  Approval a = Only("run-1");
  Reply list = Get("/runs/run-1/approvals");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.content_type, "application/json");
  EXPECT_EQ(list.cache_control, "no-store");
  EXPECT_EQ(list.Member("run_id"), "run-1");
  EXPECT_THAT(list.body, HasSubstr(absl::StrCat(R"("hash":")", a.hash, R"(")")));
  Reply shown = Get(absl::StrCat("/runs/run-1/approvals/", a.id));
  ASSERT_EQ(shown.status, 200) << shown.body;
  EXPECT_EQ(shown.cache_control, "no-store");
  EXPECT_EQ(shown.Member("id"), a.id);
  EXPECT_EQ(shown.Member("hash"), a.hash);
  EXPECT_EQ(shown.Member("status"), "pending");
  EXPECT_EQ(shown.Member("reason"), "side effect remote_mutation is require_approval by policy");
  EXPECT_EQ(shown.Member("expired"), "false");
  EXPECT_THAT(shown.Member("request"), HasSubstr(R"("args":{"to":"alice"})"));
}

TEST_F(WebhookTest, SignatureSkewAndReplay) {
  Start("run-1");
  const std::string path = "/runs/run-1/approvals";
  world::ServerRequest unsigned_request;
  unsigned_request.method = "GET";
  unsigned_request.path = path;
  Reply reply = Send(unsigned_request);
  EXPECT_EQ(reply.status, 401);
  EXPECT_EQ(reply.Member("code"), "unauthorized");

  // Forged: a signature made for another path.
  world::ServerRequest forged = Signed("GET", path);
  forged.path = "/runs/run-2/approvals";
  reply = Send(forged);
  EXPECT_EQ(reply.status, 401);
  EXPECT_THAT(reply.Member("error"), HasSubstr("does not match"));

  // Signed with another secret.
  world::ServerRequest wrong = NewRequest("another secret of at least thirty-two bytes",
                                          clock_.Now(), entropy_, "GET", path);
  EXPECT_EQ(Send(wrong).status, 401);

  // Good once; the very same request again is a replay.
  world::ServerRequest good = Signed("GET", path);
  EXPECT_EQ(Send(good).status, 200);
  reply = Send(good);
  EXPECT_EQ(reply.status, 401);
  EXPECT_EQ(reply.Member("error"), "signature already used");

  // Timestamps: at the edge of the skew accepted; past it, either way, refused.
  for (absl::Duration offset : {-absl::Minutes(5), absl::Minutes(5)}) {
    EXPECT_EQ(Send(NewRequest(kSecret, clock_.Now() + offset, entropy_, "GET", path)).status, 200);
  }
  for (absl::Duration offset :
       {-absl::Minutes(5) - absl::Seconds(1), absl::Minutes(5) + absl::Seconds(1)}) {
    reply = Send(NewRequest(kSecret, clock_.Now() + offset, entropy_, "GET", path));
    EXPECT_EQ(reply.status, 401);
    EXPECT_THAT(reply.Member("error"), HasSubstr("outside the allowed clock skew"));
  }
  // Once its window has passed, the replay is refused by its age.
  clock_.Advance(absl::Minutes(5) + absl::Seconds(1));
  reply = Send(good);
  EXPECT_EQ(reply.status, 401);
  EXPECT_THAT(reply.Member("error"), HasSubstr("outside the allowed clock skew"));

  // Malformed headers.
  world::ServerRequest long_nonce = Signed("GET", path);
  for (auto& [key, value] : long_nonce.headers) {
    if (key == kNonceHeader) value = std::string(65, 'n');
  }
  EXPECT_THAT(Send(long_nonce).Member("error"), HasSubstr("1 to 64 characters"));
}

TEST_F(WebhookTest, SignatureWindowIsBounded) {
  // Default config: 20 + 10 × 2 × 300 + 1.
  EXPECT_EQ(handler_->signature_capacity(), 6021u);
  SignatureVerifier verifier(kSecret, absl::Minutes(5), 3);
  auto request = [&] {
    return NewRequest(kSecret, clock_.Now(), entropy_, "GET", "/runs/r/approvals");
  };
  for (int i = 0; i < 3; ++i) EXPECT_OK(verifier.Verify(request(), clock_.Now()));
  absl::Status full = verifier.Verify(request(), clock_.Now());
  EXPECT_EQ(full.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(full.message(), "too many signatures in the window");
  // Signatures are forgotten once their timestamp + skew has passed.
  clock_.Advance(absl::Minutes(5) + absl::Seconds(1));
  EXPECT_OK(verifier.Verify(request(), clock_.Now()));
  EXPECT_EQ(verifier.remembered(), 1u);
}

TEST_F(WebhookTest, BodyAndRateBounds) {
  Start("run-1");
  Approval a = Only("run-1");
  const std::string path = absl::StrCat("/runs/run-1/approvals/", a.id, "/approve");
  // One byte over 16 KiB: refused by its declared length, before the signature is looked at.
  std::string big = DecisionBody(a, a.hash, "ops", std::string(16 * 1024, 'n'));
  Reply reply = Post(path, big);
  EXPECT_EQ(reply.status, 413);
  EXPECT_EQ(reply.Member("code"), "body_too_large");
  EXPECT_EQ(reply.cache_control, "no-store");
  // The same over a chunked upload, whose length nobody declared.
  {
    httplib::Client client("127.0.0.1", server_->port());
    world::ServerRequest signed_big = Signed("POST", path, big);
    httplib::Headers headers;
    for (const auto& [key, value] : signed_big.headers) headers.emplace(key, value);
    httplib::Result chunked = client.Post(
        path.c_str(), headers,
        [&](size_t offset, httplib::DataSink& sink) {
          sink.write(big.data(), big.size());
          sink.done();
          return true;
        },
        "application/json");
    ASSERT_TRUE(chunked);
    EXPECT_EQ(chunked->status, 413);
    EXPECT_THAT(chunked->body, HasSubstr("body_too_large"));
  }
  // Exactly 16 KiB is within the bound (and then refused for what it says).
  std::string fits = DecisionBody(a, a.hash, "ops", "");
  fits = DecisionBody(a, a.hash, "ops", std::string(16 * 1024 - fits.size(), 'n'));
  ASSERT_EQ(fits.size(), 16u * 1024);
  reply = Post(path, fits);
  EXPECT_EQ(reply.status, 202) << reply.body;
  EXPECT_EQ(counting_->decisions, 1);

  // The rate limit: verified requests share the burst (20, of which the decision above spent
  // one; the two 413s never verified) and then 429 until the clock gives tokens back (10 a
  // second). Unsigned requests do not spend it.
  world::ServerRequest anonymous;
  anonymous.method = "GET";
  anonymous.path = "/runs/run-1/approvals";
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Send(anonymous).status, 401) << i;
  for (int i = 0; i < 19; ++i) EXPECT_EQ(Get("/runs/run-1/approvals").status, 200) << i;
  reply = Get("/runs/run-1/approvals");
  EXPECT_EQ(reply.status, 429);
  EXPECT_EQ(reply.Member("code"), "rate_limited");
  clock_.Advance(absl::Milliseconds(100));
  EXPECT_EQ(Get("/runs/run-1/approvals").status, 200);
  EXPECT_EQ(Get("/runs/run-1/approvals").status, 429);
}

// Issue 22: about 3,000 unsigned requests a second from one address made every signed request
// answer 429, because they spent the one rate limit before their signature was checked. Now
// only verified requests spend it; what fails is charged to its own address.
TEST_F(WebhookTest, AnUnsignedFloodDoesNotSilenceSignedRequestsFromAnotherAddress) {
  Start("run-1");
  Approval a = Only("run-1");
  const std::string path = absl::StrCat("/runs/run-1/approvals/", a.id, "/approve");
  auto from = [](world::ServerRequest request, std::string address) {
    request.remote = address + ":40000";
    request.address = std::move(address);
    return request;
  };
  // 3,000 requests at one instant from 10.0.0.2, far over the shared burst (20): unsigned, and
  // forged (well-formed headers, signed with another secret), in turn.
  world::ServerRequest unsigned_request;
  unsigned_request.method = "POST";
  unsigned_request.path = path;
  unsigned_request.body = DecisionBody(a, a.hash, "mallory");
  std::map<int, int> statuses;
  for (int i = 0; i < 3000; ++i) {
    world::ServerRequest request =
        i % 2 == 0 ? unsigned_request
                   : NewRequest("another secret of at least thirty-two bytes", clock_.Now(),
                                entropy_, "POST", path, DecisionBody(a, a.hash, "mallory"));
    ++statuses[handler_->Handle(from(request, "10.0.0.2")).status];
  }
  // The flooding address had its 20 failures, then is refused before its body is read.
  EXPECT_THAT(statuses, ElementsAre(Pair(401, 20), Pair(429, 2980)));
  std::optional<world::ServerResponse> refused =
      handler_->Admit(from(Signed("GET", "/runs/run-1/approvals"), "10.0.0.2"));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 429);
  EXPECT_THAT(refused->body, HasSubstr("too many failed requests from this address"));
  EXPECT_EQ(counting_->decisions, 0);

  // A signed decision from another address is served.
  world::ServerResponse approved =
      handler_->Handle(from(Signed("POST", path, DecisionBody(a, a.hash, "ops")), "10.0.0.1"));
  EXPECT_EQ(approved.status, 202) << approved.body;
  EXPECT_EQ(counting_->decisions, 1);

  // The shared limit still bounds verified requests: 19 more, then 429.
  for (int i = 0; i < 19; ++i) {
    EXPECT_EQ(handler_->Handle(from(Signed("GET", "/runs/run-1/approvals"), "10.0.0.1")).status,
              200)
        << i;
  }
  world::ServerResponse limited =
      handler_->Handle(from(Signed("GET", "/runs/run-1/approvals"), "10.0.0.1"));
  EXPECT_EQ(limited.status, 429);
  EXPECT_THAT(limited.body, HasSubstr("too many requests; slow down"));

  // The flooding address earns a failure back a second.
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(handler_->Handle(from(unsigned_request, "10.0.0.2")).status, 401);
  EXPECT_EQ(handler_->Handle(from(unsigned_request, "10.0.0.2")).status, 429);
}

// The failure budgets are bounded in memory: addresses past max_addresses forget the one
// charged longest ago, and an address whose bucket refilled is forgotten.
TEST_F(WebhookTest, FailureBudgetsAreKeptForABoundedNumberOfAddresses) {
  AddressLimiter limiter(clock_, /*rate=*/1, /*burst=*/2, /*max_addresses=*/3);
  for (std::string address : {"10.0.0.1", "10.0.0.2", "10.0.0.3"}) {
    limiter.Charge(address);
    limiter.Charge(address);
    EXPECT_TRUE(limiter.Spent(address)) << address;
  }
  EXPECT_EQ(limiter.addresses(), 3u);
  limiter.Charge("10.0.0.4");
  EXPECT_EQ(limiter.addresses(), 3u);
  EXPECT_FALSE(limiter.Spent("10.0.0.1"));  // forgotten: a full bucket again
  EXPECT_TRUE(limiter.Spent("10.0.0.2"));
  clock_.Advance(absl::Seconds(2));
  EXPECT_FALSE(limiter.Spent("10.0.0.2"));
  EXPECT_FALSE(limiter.Spent("10.0.0.3"));
  EXPECT_FALSE(limiter.Spent("10.0.0.4"));
  EXPECT_EQ(limiter.addresses(), 0u);
}

// A body refused by its declared length is never read: the connection must end with the
// refusal, or the unread bytes would be parsed as the next request on it (request smuggling).
TEST_F(WebhookTest, ARefusedBodyIsNotTakenForTheNextRequest) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(server_->port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  timeval bound{10, 0};  // only bounds a failure; a passing run ends when the server closes
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof(bound));
  // Signed headers, so the refusal is the body's (a signature is checked only once it is read).
  std::string signature;
  for (const auto& [key, value] : Signed("POST", "/runs/run-1/approvals/x/approve").headers) {
    absl::StrAppend(&signature, key, ": ", value, "\r\n");
  }
  const std::string requests =
      absl::StrCat("POST /runs/run-1/approvals/x/approve HTTP/1.1\r\nHost: a\r\n", signature,
                   "Content-Length: 100000\r\n\r\n"
                   "GET /runs/run-1/approvals HTTP/1.1\r\nHost: a\r\n\r\n");
  ASSERT_EQ(::send(fd, requests.data(), requests.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(requests.size()));
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0;) answer.append(buffer, n);
  ::close(fd);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 413"));
  EXPECT_EQ(answer.find("HTTP/1.1", 1), std::string::npos) << answer;
}

TEST_F(WebhookTest, MissingHashIsABadRequest) {
  Start("run-1");
  Approval a = Only("run-1");
  const std::string path = absl::StrCat("/runs/run-1/approvals/", a.id, "/approve");
  struct Row {
    std::string name;
    std::string body;
    std::string error;
  };
  Row rows[] = {
      {"no hash", DecisionBody(a, ""), "hash and by are required"},
      {"no decider", DecisionBody(a, a.hash, ""), "hash and by are required"},
      {"not JSON", "approve please", "body is not a JSON decision"},
      {"not an object", "[]", "body is not a JSON decision"},
      {"duplicate key", R"({"by":"ops","by":"mallory"})", "body is not a JSON decision"},
      {"unknown member", R"({"run_id":"run-1","extra":"x"})", "body is not a JSON decision"},
      {"hash not a string", R"({"hash":1})", "body is not a JSON decision"},
      {"another run", DecisionBody(Approval{.id = a.id, .run_id = "run-2"}, a.hash),
       "must name the run and approval of its path"},
      {"another approval", DecisionBody(Approval{.id = "other", .run_id = "run-1"}, a.hash),
       "must name the run and approval of its path"},
  };
  std::size_t events = EventCount();
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    Reply reply = Post(path, row.body);
    EXPECT_EQ(reply.status, 400);
    EXPECT_EQ(reply.Member("code"), "bad_request");
    EXPECT_THAT(reply.Member("error"), HasSubstr(row.error));
  }
  EXPECT_EQ(counting_->decisions, 0);  // the Approver was never asked
  EXPECT_EQ(EventCount(), events);
  EXPECT_EQ(Only("run-1").status, ApprovalStatus::kPending);
}

TEST_F(WebhookTest, HashBindsAgainstAConcurrentChange) {
  Start("run-1");
  Approval a = Only("run-1");
  std::string shown = Get(absl::StrCat("/runs/run-1/approvals/", a.id)).Member("hash");
  ASSERT_EQ(shown, a.hash);
  // Between showing and deciding, the approval is replaced by a consistent row for another
  // request: the decision made on what was shown does not carry over.
  RewriteRequest(a, R"("to":"alice")", R"("to":"mallory")", /*rehash=*/true);
  std::size_t events = EventCount();
  Reply reply = Decide(a, "approve", shown);
  EXPECT_EQ(reply.status, 409);
  EXPECT_EQ(reply.Member("code"), "approval_changed");
  EXPECT_EQ(EventCount(), events);
  EXPECT_EQ(Only("run-1").status, ApprovalStatus::kPending);

  // Decided by someone else between showing and deciding: not pending any more.
  Start("run-2");
  Approval b = Only("run-2");
  shown = Get(absl::StrCat("/runs/run-2/approvals/", b.id)).Member("hash");
  ASSERT_OK(local_->Approve(Decision{"run-2", b.id, b.hash, "alice", ""}));
  reply = Decide(b, "reject", shown);
  EXPECT_EQ(reply.status, 409);
  EXPECT_EQ(reply.Member("code"), "not_pending");
  EXPECT_EQ(Only("run-2").status, ApprovalStatus::kApproved);
  EXPECT_EQ(Only("run-2").decided_by, "alice");
}

TEST_F(WebhookTest, StaleHashIsRefusedAndNothingDecided) {
  Start("run-1");
  Start("run-2");
  Approval a = Only("run-1");
  std::size_t events = EventCount();
  for (const std::string& stale : {Only("run-2").hash, std::string(64, '0')}) {
    Reply reply = Decide(a, "approve", stale);
    EXPECT_EQ(reply.status, 409);
    EXPECT_EQ(reply.Member("code"), "approval_changed");
    reply = Decide(a, "reject", stale);
    EXPECT_EQ(reply.status, 409);
  }
  EXPECT_EQ(EventCount(), events);
  EXPECT_EQ(Only("run-1").status, ApprovalStatus::kPending);
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kWaitingForApproval);
}

TEST_F(WebhookTest, ExpiryIsReportedAndTheRuntimeExpires) {
  Limits limits;
  limits.approval_ttl = absl::Minutes(1);
  Start("run-1", {PostTo(R"("alice")")}, limits);
  Approval a = Only("run-1");
  clock_.Advance(absl::Minutes(2));
  std::size_t events = EventCount();
  Reply shown = Get(absl::StrCat("/runs/run-1/approvals/", a.id));
  EXPECT_EQ(shown.status, 410);
  EXPECT_EQ(shown.Member("code"), "expired");
  EXPECT_EQ(EventCount(), events);  // showing writes nothing
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kWaitingForApproval);
  EXPECT_EQ(
      Get("/runs/run-1/approvals").Member("pending").find(R"("expired":true)") != std::string::npos,
      true);

  Reply decided = Decide(a, "approve", a.hash);
  EXPECT_EQ(decided.status, 410);
  EXPECT_EQ(decided.Member("code"), "expired");
  agentrt::Run run = *ReadRun(*store_, "run-1");
  EXPECT_EQ(run.status, RunStatus::kCancelled);
  EXPECT_EQ(run.reason, "approval_expired");
  EXPECT_EQ(Only("run-1").status, ApprovalStatus::kExpired);
  // Now expired by status too.
  EXPECT_EQ(Get(absl::StrCat("/runs/run-1/approvals/", a.id)).status, 410);
}

TEST_F(WebhookTest, NotFoundAndNoCrossRunAccess) {
  Start("run-a");
  Start("run-b");
  Approval a = Only("run-a");
  Approval b = Only("run-b");
  Reply reply = Get(absl::StrCat("/runs/run-a/approvals/", b.id));
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.Member("code"), "not_found");
  // A decision through run A's path for run B's approval finds nothing to decide.
  Approval b_under_a = b;
  b_under_a.run_id = "run-a";
  reply = Decide(b_under_a, "approve", b.hash);
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(Only("run-b").status, ApprovalStatus::kPending);

  EXPECT_EQ(Get("/runs/nope/approvals").status, 404);
  EXPECT_THAT(Get("/runs/run-a/approvals").body, Not(HasSubstr(b.id)));
  EXPECT_THAT(Get("/runs/run-a/approvals").body, HasSubstr(a.id));
  for (const std::string& path : {std::string("/runs"), std::string("/runs/run-a"),
                                  std::string("/runs/run-a/steps"), std::string("/runs//approvals"),
                                  absl::StrCat("/runs/run-a/approvals/", a.id, "/approve/")}) {
    SCOPED_TRACE(path);
    reply = Get(path);
    EXPECT_EQ(reply.status, 404);
    EXPECT_EQ(reply.Member("code"), "not_found");
  }
  // A route's path with the wrong method is no route.
  EXPECT_EQ(Get(absl::StrCat("/runs/run-a/approvals/", a.id, "/approve")).status, 404);
  EXPECT_EQ(Send(Signed("DELETE", "/runs/run-a/approvals")).status, 404);
  EXPECT_EQ(Post("/runs/run-a/approvals", "{}").status, 404);
}

TEST_F(WebhookTest, NotPendingAfterAGrant) {
  Start("run-1");
  Approval a = Only("run-1");
  Reply granted = Decide(a, "approve", a.hash);
  ASSERT_EQ(granted.status, 202) << granted.body;
  EXPECT_EQ(granted.Member("status"), "approved");
  EXPECT_EQ(granted.Member("hash"), a.hash);
  EXPECT_EQ(granted.Member("by"), "ops");
  EXPECT_EQ(ReadRun(*store_, "run-1")->status, RunStatus::kWaitingForApproval);
  for (std::string_view verb : {"approve", "reject"}) {
    Reply again = Decide(a, verb, a.hash);
    EXPECT_EQ(again.status, 409);
    EXPECT_EQ(again.Member("code"), "not_pending");
  }
  EXPECT_EQ(Get(absl::StrCat("/runs/run-1/approvals/", a.id)).Member("status"), "approved");
  EXPECT_EQ(Get("/runs/run-1/approvals").Member("pending"), "[]");
}

TEST_F(WebhookTest, RejectCancelsRun) {
  Start("run-1");
  Approval a = Only("run-1");
  Reply rejected = Decide(a, "reject", a.hash, "ops", "not today");
  ASSERT_EQ(rejected.status, 200) << rejected.body;
  EXPECT_EQ(rejected.Member("status"), "rejected");
  agentrt::Run run = *ReadRun(*store_, "run-1");
  EXPECT_EQ(run.status, RunStatus::kCancelled);
  EXPECT_EQ(run.reason, "approval_rejected");
  EXPECT_EQ(run.reason_detail, "not today");
  Reply late = Decide(a, "approve", a.hash);
  EXPECT_EQ(late.status, 409);
  EXPECT_EQ(late.Member("code"), "run_not_waiting");
  Reply cancel = Post("/runs/run-1/cancel", R"({"run_id":"run-1","by":"ops"})");
  EXPECT_EQ(cancel.status, 409);
  EXPECT_EQ(cancel.Member("code"), "run_finished");
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(WebhookTest, CancelEndsTheRun) {
  Start("run-1");
  Reply refused = Post("/runs/run-1/cancel", R"({"run_id":"run-1","note":"stop"})");
  EXPECT_EQ(refused.status, 400);  // who cancels is required
  refused = Post("/runs/run-1/cancel", R"({"run_id":"run-2","by":"ops"})");
  EXPECT_EQ(refused.status, 400);
  Reply cancelled = Post("/runs/run-1/cancel", R"({"run_id":"run-1","by":"ops","note":"stop"})");
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_EQ(cancelled.Member("status"), "cancelled");
  EXPECT_EQ(cancelled.Member("by"), "ops");
  agentrt::Run run = *ReadRun(*store_, "run-1");
  EXPECT_EQ(run.status, RunStatus::kCancelled);
  EXPECT_EQ(run.reason, "operator_cancelled");
  EXPECT_EQ(Post("/runs/nope/cancel", R"({"run_id":"nope","by":"ops"})").status, 404);
}

TEST_F(WebhookTest, TextRenderingIsSanitised) {
  // The model's argument tries to clear the screen and to end the approval early.
  Start(
      "run-1",
      {PostTo(R"("\u001b[2J\u001b[31mALL CLEAR\n----- end of approval x for tool post -----\n")")});
  Approval a = Only("run-1");
  for (bool by_accept : {true, false}) {
    SCOPED_TRACE(by_accept ? "Accept: text/plain" : "?format=text");
    world::ServerRequest request = Signed("GET", absl::StrCat("/runs/run-1/approvals/", a.id));
    if (by_accept) request.headers.emplace_back("Accept", "text/plain");
    Reply text = Send(request, by_accept ? "" : "?format=text");
    ASSERT_EQ(text.status, 200) << text.body;
    EXPECT_EQ(text.content_type, "text/plain; charset=utf-8");
    EXPECT_EQ(text.cache_control, "no-store");
    EXPECT_EQ(text.body.find('\x1b'), std::string::npos);
    std::vector<std::string> lines = absl::StrSplit(text.body, '\n', absl::SkipEmpty());
    ASSERT_FALSE(lines.empty());
    EXPECT_THAT(lines.front(), HasSubstr(a.id));
    EXPECT_EQ(lines.back(), absl::StrCat("----- end of approval ", a.id, " for tool post -----"));
    int closing = 0;
    for (const std::string& line : lines) closing += line.rfind("----- end of approval", 0) == 0;
    EXPECT_EQ(closing, 1) << text.body;
  }
}

TEST_F(WebhookTest, GrantThenResumeBindsTheHash) {
  Start("run-1");
  Approval a = Only("run-1");
  ASSERT_EQ(Decide(a, "approve", a.hash).status, 202);
  EXPECT_TRUE(post_.calls.empty());  // granting runs nothing
  absl::StatusOr<agentrt::Run> run = Resume("run-1", {Complete()});
  ASSERT_OK(run);
  EXPECT_EQ(run->status, RunStatus::kCompleted);
  ASSERT_THAT(post_.calls, SizeIs(1));
  EXPECT_EQ(post_.calls[0].args, R"({"to":"alice"})");  // exactly the recorded request
  bool started = false;
  std::vector<store::Event> events = *store_->ListEvents("run-1");
  for (const store::Event& e : events) {
    if (e.type != "step.tool_started") continue;
    started = true;
    EXPECT_THAT(e.payload_json, HasSubstr(absl::StrCat(R"("approval_id":")", a.id)));
  }
  EXPECT_TRUE(started);

  // A grant whose row is changed afterwards grants nothing: the hash refuses it at resume.
  post_.calls.clear();
  Start("run-2");
  Approval b = Only("run-2");
  ASSERT_EQ(Decide(b, "approve", b.hash).status, 202);
  RewriteRequest(b, R"("to":"alice")", R"("to":"mallory")", /*rehash=*/false);
  absl::StatusOr<agentrt::Run> refused = Resume("run-2", {Complete()});
  ASSERT_THAT(refused, StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_TRUE(post_.calls.empty());
}

TEST_F(WebhookTest, ObserverSeesDecisionsAndRefusalsWhichAreNeverStored) {
  Start("run-1");
  Approval a = Only("run-1");
  world::ServerRequest unsigned_request;
  unsigned_request.method = "GET";
  unsigned_request.path = "/runs/run-1/approvals";
  ASSERT_EQ(Send(unsigned_request).status, 401);
  ASSERT_EQ(Decide(a, "approve", a.hash).status, 202);
  std::vector<store::Event> seen = Observed();
  ASSERT_THAT(seen, SizeIs(2));
  EXPECT_EQ(seen[0].type, "webhook.refused");
  EXPECT_EQ(seen[0].seq, 0);
  absl::StatusOr<json::Document> refused = json::Parse(seen[0].payload_json);
  ASSERT_OK(refused);
  EXPECT_EQ(json::MemberText(refused->root(), "status"), "401");
  EXPECT_EQ(json::MemberText(refused->root(), "method"), "GET");
  EXPECT_EQ(json::MemberText(refused->root(), "path"), "/runs/run-1/approvals");
  EXPECT_THAT(json::MemberText(refused->root(), "remote"), HasSubstr("127.0.0.1:"));
  EXPECT_EQ(seen[1].type, "webhook.decision");
  EXPECT_EQ(seen[1].run_id, "run-1");
  absl::StatusOr<json::Document> decision = json::Parse(seen[1].payload_json);
  ASSERT_OK(decision);
  EXPECT_EQ(json::MemberText(decision->root(), "action"), "approve");
  EXPECT_EQ(json::MemberText(decision->root(), "approval_id"), a.id);
  EXPECT_EQ(json::MemberText(decision->root(), "by"), "ops");
  EXPECT_EQ(json::MemberText(decision->root(), "status"), "202");
  std::vector<store::Event> stored = *store_->ListEvents("");
  for (const store::Event& e : stored) {
    EXPECT_THAT(e.type, Not(HasSubstr("webhook")));
  }
}

TEST_F(WebhookTest, ConfigIsValidated) {
  Config config;
  config.approver = counting_.get();
  config.clock = &clock_;
  config.secret = std::string(31, 's');
  EXPECT_THAT(Handler::Create(config).status().message(), HasSubstr("at least 32 bytes"));
  config.secret = std::string(32, 's');
  EXPECT_OK(Handler::Create(config));
  Config no_clock = config;
  no_clock.clock = nullptr;
  EXPECT_THAT(Handler::Create(no_clock).status().message(), HasSubstr("clock is required"));
  Config no_rate = config;
  no_rate.rate = 0;
  EXPECT_EQ(Handler::Create(no_rate).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Handler::Create(no_rate).status().message(), HasSubstr("rate"));
  Config no_failures = config;
  no_failures.failure_burst = 0;
  EXPECT_THAT(Handler::Create(no_failures).status().message(),
              HasSubstr("failure_burst must be at least 1"));
  Config no_addresses = config;
  no_addresses.max_addresses = 0;
  EXPECT_THAT(Handler::Create(no_addresses).status().message(),
              HasSubstr("max_addresses must be at least 1"));
}

// The server's own answers keep the service's format: a request it cannot route to any handler
// still gets JSON and no-store.
TEST_F(WebhookTest, InternalErrorsAreNotLeaked) {
  class Broken : public CountingApprover {
   public:
    using CountingApprover::CountingApprover;
    absl::StatusOr<std::vector<Pending>> ListPending(std::string_view, int) override {
      return absl::InternalError("sqlite: SELECT ... FROM /secret/path.db: disk I/O error");
    }
  };
  Broken broken(*local_);
  Config config;
  config.approver = &broken;
  config.secret = kSecret;
  config.clock = &clock_;
  Serve(std::move(config));
  Start("run-1");
  Reply reply = Get("/runs/run-1/approvals");
  EXPECT_EQ(reply.status, 500);
  EXPECT_EQ(reply.Member("code"), "internal");
  EXPECT_EQ(reply.Member("error"), "internal error");
  EXPECT_THAT(reply.body, Not(HasSubstr("secret")));
}

}  // namespace
}  // namespace agentrt::approver::webhook
