// A recorded conversation as a scenario's provider side (sim/provider_cassette.h): the
// provider's answers, read from a cassette in the scenario's folder, become its exchanges.
#include "sim/provider_cassette.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "tests/support/memory_filesystem.h"
#include "tests/support/status_matchers.h"

namespace agentrt::sim {
namespace {

using test_support::MemoryFilesystem;

replay::v1::Exchange Send(const std::string& url, std::uint32_t response, int status) {
  replay::v1::Exchange e;
  replay::v1::HttpSend* send = e.mutable_http()->mutable_send();
  send->set_method("POST");
  send->set_url(url);
  send->set_response(response);
  send->set_status(status);
  replay::v1::Field* header = send->add_response_headers();
  header->set_name("Retry-After");
  header->set_value("3");
  return e;
}

replay::v1::Exchange Read(std::uint32_t response, const std::string& data, bool broke = false) {
  replay::v1::Exchange e;
  replay::v1::HttpRead* read = e.mutable_http()->mutable_read();
  read->set_response(response);
  if (broke) {
    read->mutable_error()->set_code(14);  // Unavailable
  } else {
    read->set_data(data);
  }
  return e;
}

// A recording of a run whose provider (OpenAI-compatible at /v1) answered twice, once in two
// reads and once with a body that broke off, beside a request of the run's own elsewhere.
void WriteRecording(MemoryFilesystem& files, const std::string& path) {
  replay::Cassette cassette;
  cassette.StartSession({});
  for (replay::v1::Exchange e :
       {Send("http://127.0.0.1:9/v1/chat/completions", 1, 429), Read(1, "{\"err"),
        Read(1, "or\":1}"), Read(1, ""), Send("http://status.test/motd", 2, 200),
        Read(2, "not the provider's"), Send("http://127.0.0.1:9/v1/chat/completions?x=1", 3, 200),
        Read(3, "{\"choi"), Read(3, "", /*broke=*/true)}) {
    ASSERT_OK(cassette.Add(std::move(e)));
  }
  ASSERT_OK(replay::WriteCassette(files, path, cassette));
}

v1::Provider WithCassette(const std::string& name) {
  v1::Provider p;
  p.set_kind("openai");
  p.set_cassette(name);
  return p;
}

TEST(ProviderCassetteTest, TheProvidersAnswersBecomeItsExchangesInRecordedOrder) {
  MemoryFilesystem files;
  files.AddFolder("/s");
  WriteRecording(files, "/s/live.cassette");
  v1::Provider provider = WithCassette("live.cassette");
  ASSERT_OK(LoadProviderCassette(files, "/s/story.textproto", provider));
  EXPECT_EQ(provider.cassette(), "");
  ASSERT_EQ(provider.exchanges_size(), 2);
  EXPECT_EQ(provider.exchanges(0).status(), 429);
  EXPECT_EQ(provider.exchanges(0).body(), "{\"error\":1}");
  EXPECT_FALSE(provider.exchanges(0).cut());
  ASSERT_EQ(provider.exchanges(0).headers_size(), 1);
  EXPECT_EQ(provider.exchanges(0).headers(0).value(), "3");
  EXPECT_EQ(provider.exchanges(1).status(), 200);
  EXPECT_EQ(provider.exchanges(1).body(), "{\"choi");
  EXPECT_TRUE(provider.exchanges(1).cut());
}

TEST(ProviderCassetteTest, OnlyAFileInTheScenariosFolderIsRead) {
  MemoryFilesystem files;
  for (const char* name : {"../live.cassette", "/etc/passwd", "sub/live.cassette", "..", ""}) {
    SCOPED_TRACE(name);
    v1::Provider provider = WithCassette(name);
    EXPECT_THAT(LoadProviderCassette(files, "/s/story.textproto", provider),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("is not a file name in the scenario's folder")));
  }
}

TEST(ProviderCassetteTest, ACassetteWithExchangesOrWithoutTheProvidersRequestsIsRefused) {
  MemoryFilesystem files;
  files.AddFolder("/s");
  WriteRecording(files, "/s/live.cassette");
  v1::Provider both = WithCassette("live.cassette");
  both.add_exchanges();
  EXPECT_THAT(LoadProviderCassette(files, "/s/story.textproto", both),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("give one of them")));
  v1::Provider other = WithCassette("live.cassette");
  other.set_kind("anthropic");  // the recording holds no /v1/messages request
  EXPECT_THAT(
      LoadProviderCassette(files, "/s/story.textproto", other),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("holds no request to /v1/messages")));
  v1::Provider missing = WithCassette("gone.cassette");
  EXPECT_THAT(LoadProviderCassette(files, "/s/story.textproto", missing), Not(IsOk()));
}

}  // namespace
}  // namespace agentrt::sim
