// A token request recorded and replayed (runtime/replay/recording_network.h,
// replaying_network.h): the cassette holds none of its secrets (the client's Basic credential,
// the form's client secret, code and verifier, the answer's access and refresh tokens, even when
// the network cut a token across two reads), the run that recorded it saw the real answer, and a
// replay matches the same live request, secrets and all, and is served the redacted answer. A
// request that does not say it carries secrets is recorded byte for byte, whatever its names.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/replay/recording_network.h"
#include "runtime/replay/replay_cursor.h"
#include "runtime/replay/replaying_network.h"
#include "runtime/world/network.h"
#include "tests/support/status_matchers.h"

namespace agentrt::replay {
namespace {

constexpr absl::Time kDeadline = absl::FromUnixSeconds(1'767'225'660);  // 2026-01-01T00:01:00Z

constexpr char kClientSecret[] = "cs-Live-9f2e71";
constexpr char kCode[] = "code-Live-51ab08";
constexpr char kVerifier[] = "verifier-Live-dBjftJeZ4CVP";
constexpr char kAccessToken[] = "at-eyJhbGciOiJFUzI1NiJ9.Live-payload.Sig";
constexpr char kRefreshToken[] = "rt-Live-0c3d55";

// A response that hands over its body in the chunks it was given, then its end.
class ChunkedResponse final : public world::HttpResponse {
 public:
  explicit ChunkedResponse(std::vector<std::string> chunks) : chunks_(std::move(chunks)) {}
  int status() const override { return 200; }
  const world::HttpFields& headers() const override { return headers_; }
  absl::StatusOr<std::string> Read(absl::Time) override {
    if (next_ == chunks_.size()) return std::string();
    return chunks_[next_++];
  }
  void Close() override {}

 private:
  const world::HttpFields headers_ = {{"Content-Type", "application/json"},
                                      {"Cache-Control", "no-store"}};
  std::vector<std::string> chunks_;
  std::size_t next_ = 0;
};

// A server that answers every request with `chunks` and keeps what it was sent.
class ChunkedServer final : public world::Network {
 public:
  explicit ChunkedServer(std::vector<std::string> chunks) : chunks_(std::move(chunks)) {}
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> Send(const world::HttpRequest& request,
                                                            absl::Time) override {
    sent.push_back(request);
    return std::unique_ptr<world::HttpResponse>(std::make_unique<ChunkedResponse>(chunks_));
  }
  std::vector<world::HttpRequest> sent;

 private:
  std::vector<std::string> chunks_;
};

std::string BasicCredential() {
  return "Basic " + absl::Base64Escape(std::string("agentrt-ci:") + kClientSecret);
}

// The authorization code exchanged at the token endpoint, as mcp/auth sends it.
world::HttpRequest TokenRequest(std::string code = kCode, std::string client_id = "agentrt-ci") {
  world::HttpRequest request;
  request.method = "POST";
  request.url = "https://auth.tickets.example.com/token";
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                     {"Accept", "application/json"},
                     {"Authorization", BasicCredential()}};
  request.body =
      "grant_type=authorization_code&code=" + code +
      "&redirect_uri=http%3A%2F%2F127.0.0.1%3A41873%2Fcallback&code_verifier=" + kVerifier +
      "&client_id=" + client_id + "&client_secret=" + kClientSecret;
  request.carries_secrets = true;
  return request;
}

std::string TokenAnswer() {
  return std::string(R"({"access_token":")") + kAccessToken +
         R"(","token_type":"Bearer","expires_in":3600,"refresh_token":")" + kRefreshToken +
         R"(","scope":"tickets:read offline_access"})";
}

constexpr char kRedactedAnswer[] =
    R"({"access_token":"[redacted]","token_type":"Bearer","expires_in":3600,)"
    R"("refresh_token":"[redacted]","scope":"tickets:read offline_access"})";

// The answer in two reads, the first ending inside the access token.
std::vector<std::string> CutInsideTheToken() {
  std::string answer = TokenAnswer();
  std::size_t cut = answer.find(kAccessToken) + 12;
  return {answer.substr(0, cut), answer.substr(cut)};
}

struct Recorded {
  Cassette cassette;
  std::string seen;  // the body the recording run read
  std::vector<world::HttpRequest> sent;
};

Recorded Record(const world::HttpRequest& request, std::vector<std::string> chunks) {
  ChunkedServer server(std::move(chunks));
  CassetteRecorder recorder;
  Recorded out;
  {
    RecordingNetwork recording(server, recorder);
    absl::StatusOr<std::unique_ptr<world::HttpResponse>> response =
        recording.Send(request, kDeadline);
    EXPECT_OK(response);
    if (response.ok()) {
      absl::StatusOr<std::string> body = world::ReadBody(**response, kDeadline);
      EXPECT_OK(body);
      out.seen = body.value_or("");
    }
  }
  out.cassette = recorder.cassette();
  out.sent = server.sent;
  return out;
}

// The body a replay of `cassette` serves to `request`, or the replay's error.
absl::StatusOr<std::string> Replay(const Cassette& cassette, const world::HttpRequest& request) {
  ReplayCursor cursor(cassette);
  ReplayingNetwork replaying(cursor);
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> response =
      replaying.Send(request, kDeadline);
  if (!response.ok()) return response.status();
  if ((*response)->status() != 200) return absl::InternalError("not the recorded status");
  absl::StatusOr<std::string> body = world::ReadBody(**response, kDeadline);
  if (!body.ok()) return body.status();
  if (absl::Status finished = cursor.Finish(); !finished.ok()) return finished;
  return body;
}

TEST(SecretReplayTest, ATokenExchangeIsRecordedWithoutASingleSecret) {
  Recorded recorded = Record(TokenRequest(), CutInsideTheToken());
  // The run that recorded it sent the secrets and read the real tokens.
  ASSERT_EQ(recorded.sent.size(), 1u);
  EXPECT_EQ(recorded.sent[0].body, TokenRequest().body);
  EXPECT_EQ(world::FindHeader(recorded.sent[0].headers, "Authorization"), BasicCredential());
  EXPECT_EQ(recorded.seen, TokenAnswer());

  absl::StatusOr<std::string> bytes = SerializeCassette(recorded.cassette);
  ASSERT_OK(bytes);
  std::string access(kAccessToken);
  for (const std::string& secret :
       {std::string(kClientSecret), std::string(kCode), std::string(kVerifier), access,
        access.substr(0, 12), access.substr(12), std::string(kRefreshToken),
        absl::Base64Escape(std::string("agentrt-ci:") + kClientSecret), std::string("Live")}) {
    EXPECT_THAT(*bytes, Not(HasSubstr(secret))) << secret;
  }

  // What it holds instead: the request with its secrets redacted, the answer's two reads
  // redacted where they were cut, and the body's end.
  const Cassette& cassette = recorded.cassette;
  ASSERT_EQ(cassette.size(), 4u);
  const v1::HttpSend& send = cassette.exchange(0).http().send();
  EXPECT_EQ(send.body(),
            "grant_type=authorization_code&code=[redacted]"
            "&redirect_uri=http%3A%2F%2F127.0.0.1%3A41873%2Fcallback&code_verifier=[redacted]"
            "&client_id=agentrt-ci&client_secret=[redacted]");
  ASSERT_EQ(send.headers_size(), 3);
  EXPECT_EQ(send.headers(2).name(), "Authorization");
  EXPECT_EQ(send.headers(2).value(), "[redacted]");
  EXPECT_EQ(cassette.exchange(1).http().read().data(), R"({"access_token":"[redacted])");
  EXPECT_EQ(cassette.exchange(2).http().read().data(),
            R"(","token_type":"Bearer","expires_in":3600,"refresh_token":"[redacted]",)"
            R"("scope":"tickets:read offline_access"})");
  EXPECT_EQ(cassette.exchange(3).http().read().data(), "");
}

TEST(SecretReplayTest, AReplayMatchesTheLiveRequestAndServesTheRedactedAnswer) {
  Recorded recorded = Record(TokenRequest(), CutInsideTheToken());
  // The replaying run holds real secrets again; it redacts them the same way before matching.
  EXPECT_THAT(Replay(recorded.cassette, TokenRequest()),
              IsOkAndHolds(std::string(kRedactedAnswer)));
  // Another code (a fresh login) matches too: a secret's value is not what a replay compares.
  EXPECT_THAT(Replay(recorded.cassette, TokenRequest("code-another-login")),
              IsOkAndHolds(std::string(kRedactedAnswer)));
  // What is not a secret still has to match, and the mismatch shows both bodies redacted.
  EXPECT_THAT(Replay(recorded.cassette, TokenRequest(kCode, "another-client")),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("http.send.body"), HasSubstr("another-client"),
                             Not(HasSubstr(kCode)), Not(HasSubstr(kClientSecret)),
                             Not(HasSubstr(kVerifier)))));
}

TEST(SecretReplayTest, ARequestNotCarryingSecretsIsRecordedByteForByte) {
  // An MCP message whose arguments happen to hold names a token answer uses: it is the run's
  // data, not a credential, and a replay must see exactly what was recorded.
  world::HttpRequest request;
  request.method = "POST";
  request.url = "https://mcp.tickets.example.com/mcp";
  request.headers = {{"Content-Type", "application/json"}};
  request.body = R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"link",)"
                 R"("arguments":{"access_token":"user-data-1","refresh_token":"user-data-2"}}})";
  std::vector<std::string> chunks = {
      R"({"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"x"}],)",
      R"("structuredContent":{"access_token":"user-da)", R"(ta-3","code":"c"}}})"};
  Recorded recorded = Record(request, chunks);

  const Cassette& cassette = recorded.cassette;
  ASSERT_EQ(cassette.size(), 5u);
  EXPECT_EQ(cassette.exchange(0).http().send().body(), request.body);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(cassette.exchange(i + 1).http().read().data(), chunks[i]) << "read " << i;
  }
  EXPECT_THAT(Replay(cassette, request), IsOkAndHolds(chunks[0] + chunks[1] + chunks[2]));

  // A form sent without the mark is kept whole as well.
  world::HttpRequest form = TokenRequest();
  form.carries_secrets = false;
  Recorded plain = Record(form, {"{}"});
  EXPECT_EQ(plain.cassette.exchange(0).http().send().body(), form.body);
}

}  // namespace
}  // namespace agentrt::replay
