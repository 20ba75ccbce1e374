// The cassette file: what is written reads back exactly, and what a replay could not trust
// is refused naming the file and the exchange (docs/formats/cassette.md).
#include "runtime/replay/cassette.h"

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/model_key.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "runtime/replay/replaying_model.h"
#include "tests/runtime/model_fixtures.h"

namespace agentrt::replay {
namespace {

using ::agentrt::model_fixtures::Answer;
using ::agentrt::model_fixtures::Ask;
using ::agentrt::model_fixtures::TempDirTest;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

ModelExchange Exchange(const std::string& question, const std::string& answer,
                       std::uint32_t ordinal = 1) {
  ModelExchange e;
  e.model = "m";
  e.request_json = ModelRequestJson(Ask(question));
  e.key = ModelKeyOfJson("m", e.request_json);
  e.ordinal = ordinal;
  e.response_json = ModelResponseJson(Answer(answer));
  e.raw = "raw:" + answer;
  return e;
}

v1::Cassette ValidProto() {
  v1::Cassette proto;
  proto.set_format_version(kCassetteFormatVersion);
  proto.set_created_by("test");
  ModelExchange e = Exchange("q", "a");
  v1::ModelExchange* m = proto.add_exchanges()->mutable_model();
  m->set_model(e.model);
  m->set_key(e.key);
  m->set_ordinal(e.ordinal);
  m->set_request_json(e.request_json);
  m->set_response_json(e.response_json);
  m->set_raw(e.raw);
  return proto;
}

class CassetteFileTest : public TempDirTest {
 protected:
  std::string WriteBytes(const std::string& name, const std::string& bytes) {
    std::ofstream(Path(name), std::ios::binary) << bytes;
    return Path(name);
  }
};

TEST_F(CassetteFileTest, WhatIsWrittenReadsBackExactly) {
  Cassette cassette;
  cassette.created_by = "agentrt test";
  cassette.notes = "two questions, one asked twice";
  for (const ModelExchange& e :
       {Exchange("q", "a1", 1), Exchange("other", "o", 1), Exchange("q", "a2", 2)}) {
    CassetteExchange& out = cassette.exchanges.emplace_back();
    out.model = e;
  }
  cassette.exchanges[1].model->raw = std::string("\xFF\x00<>&\n", 6);
  cassette.chain_head = {42, std::string(64, 'f')};

  ASSERT_TRUE(WriteCassette(Path("c.cassette"), cassette).ok());
  EXPECT_THAT(Files(), ElementsAre("c.cassette"));
  absl::StatusOr<Cassette> read = ReadCassette(Path("c.cassette"));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->created_by, cassette.created_by);
  EXPECT_EQ(read->notes, cassette.notes);
  EXPECT_EQ(read->chain_head.seq, 42);
  EXPECT_EQ(read->chain_head.hash, cassette.chain_head.hash);
  EXPECT_FALSE(read->from_newer_build);
  ASSERT_EQ(read->exchanges.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const ModelExchange& want = *cassette.exchanges[i].model;
    const ModelExchange& got = *read->exchanges[i].model;
    EXPECT_EQ(got.model, want.model);
    EXPECT_EQ(got.key, want.key);
    EXPECT_EQ(got.ordinal, want.ordinal);
    EXPECT_EQ(got.request_json, want.request_json);
    EXPECT_EQ(got.response_json, want.response_json);
    EXPECT_EQ(got.raw, want.raw);
  }
  // Writing again replaces the file whole.
  cassette.exchanges.pop_back();
  ASSERT_TRUE(WriteCassette(Path("c.cassette"), cassette).ok());
  EXPECT_EQ(ReadCassette(Path("c.cassette"))->exchanges.size(), 2u);
}

TEST_F(CassetteFileTest, CorruptTruncatedAndEmptyFilesAreRefusedNamingTheFile) {
  std::string valid = ValidProto().SerializeAsString();
  struct Case {
    std::string name;
    std::string bytes;
    absl::StatusCode code;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"garbage.cassette", "\xFF\xFF\xFF\xFF not a cassette", absl::StatusCode::kDataLoss,
            "bytes do not parse as agentrt.replay.v1.Cassette"},
           {"truncated.cassette", valid.substr(0, valid.size() - 5), absl::StatusCode::kDataLoss,
            "bytes do not parse as agentrt.replay.v1.Cassette"},
           {"empty.cassette", "", absl::StatusCode::kFailedPrecondition,
            "format version 0 is not one this build reads (1)"},
       }) {
    SCOPED_TRACE(c.name);
    std::string path = WriteBytes(c.name, c.bytes);
    absl::StatusOr<Cassette> read = ReadCassette(path);
    EXPECT_EQ(read.status().code(), c.code);
    EXPECT_THAT(read.status().message(), HasSubstr("cassette " + path + ": "));
    EXPECT_THAT(read.status().message(), HasSubstr(c.message));
    // A replay of it is refused before the first request, the same way, and a recorder
    // refuses to write over it.
    EXPECT_EQ(ReplayingModel::Open("m", path).status(), read.status());
    EXPECT_EQ(CassetteRecorder::Open(path).status(), read.status());
    std::ifstream in(path, std::ios::binary);
    std::stringstream after;
    after << in.rdbuf();
    EXPECT_EQ(after.str(), c.bytes);
  }
}

TEST_F(CassetteFileTest, AMissingFileIsNotFoundNamingThePath) {
  absl::StatusOr<Cassette> read = ReadCassette(Path("nope.cassette"));
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(read.status().message(), HasSubstr(Path("nope.cassette")));
}

TEST_F(CassetteFileTest, AnUnknownFormatVersionIsRefused) {
  v1::Cassette proto = ValidProto();
  proto.set_format_version(2);
  absl::StatusOr<Cassette> read = ParseCassette(proto.SerializeAsString(), "v2.cassette");
  EXPECT_EQ(read.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(read.status().message(),
            "cassette v2.cassette: format version 2 is not one this build reads (1)");
}

TEST_F(CassetteFileTest, ExchangesAReplayCouldNotTrustAreRefusedNamingTheExchange) {
  ModelExchange good = Exchange("q", "a");
  struct Case {
    std::string name;
    std::function<void(v1::Cassette&)> change;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"key of another request",
            [](v1::Cassette& p) {
              p.mutable_exchanges(0)->mutable_model()->set_key(ModelKey("m", Ask("other")));
            },
            "exchange 1 (model \"m\"): key " + std::string(KeyPrefix(ModelKey("m", Ask("other")))) +
                " is not the key of its request (" + std::string(KeyPrefix(good.key)) + ")"},
           {"request edited, key kept",
            [](v1::Cassette& p) {
              p.mutable_exchanges(0)->mutable_model()->set_request_json(
                  ModelRequestJson(Ask("edited")));
            },
            "is not the key of its request"},
           {"request not canonical",
            [](v1::Cassette& p) {
              p.mutable_exchanges(0)->mutable_model()->set_request_json(R"({ "messages": [] })");
            },
            "exchange 1 (model \"m\"): request_json is not in canonical form"},
           {"request not JSON",
            [](v1::Cassette& p) {
              p.mutable_exchanges(0)->mutable_model()->set_request_json("{\"messages\":");
            },
            "exchange 1 (model \"m\"): request_json is not JSON"},
           {"response not readable",
            [](v1::Cassette& p) {
              p.mutable_exchanges(0)->mutable_model()->set_response_json("[1]");
            },
            "exchange 1 (model \"m\"): response_json does not read back"},
           {"no model name",
            [](v1::Cassette& p) { p.mutable_exchanges(0)->mutable_model()->clear_model(); },
            "exchange 1 (model \"\"): no model name"},
           {"key not hex",
            [](v1::Cassette& p) { p.mutable_exchanges(0)->mutable_model()->set_key("abc"); },
            "the key is not 64 lowercase hex digits"},
           {"ordinal 0",
            [](v1::Cassette& p) { p.mutable_exchanges(0)->mutable_model()->set_ordinal(0); },
            "has ordinal 0 where its sequence needs 1"},
           {"ordinal gap",
            [](v1::Cassette& p) {
              *p.add_exchanges() = p.exchanges(0);
              p.mutable_exchanges(1)->mutable_model()->set_ordinal(3);
            },
            "exchange 2 (model \"m\"): key " + std::string(KeyPrefix(good.key)) +
                " has ordinal 3 where its sequence needs 2"},
           {"an exchange of no kind", [](v1::Cassette& p) { p.add_exchanges(); },
            "exchange 2: no kind is set"},
           {"chain head without hash", [](v1::Cassette& p) { p.mutable_chain_head()->set_seq(3); },
            "chain head: seq 3 has a hash that is not 64 lowercase hex digits"},
           {"negative chain head", [](v1::Cassette& p) { p.mutable_chain_head()->set_seq(-1); },
            "chain head: negative seq -1"},
       }) {
    SCOPED_TRACE(c.name);
    v1::Cassette proto = ValidProto();
    c.change(proto);
    absl::StatusOr<Cassette> read = ParseCassette(proto.SerializeAsString(), "bad.cassette");
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(read.status().message(), HasSubstr("cassette bad.cassette: "));
    EXPECT_THAT(read.status().message(), HasSubstr(c.message));
  }
}

TEST_F(CassetteFileTest, SerializeRefusesWhatParseWouldRefuse) {
  Cassette cassette;
  cassette.exchanges.emplace_back().model = Exchange("q", "a", /*ordinal=*/2);
  absl::StatusOr<std::string> bytes = SerializeCassette(cassette);
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bytes.status().message(), HasSubstr("where its sequence needs 1"));
  absl::Status write = WriteCassette(Path("x.cassette"), cassette);
  EXPECT_THAT(write.message(), HasSubstr("write cassette " + Path("x.cassette")));
  EXPECT_THAT(Files(), ::testing::IsEmpty());
}

TEST_F(CassetteFileTest, ANewerBuildsExchangesAreReadAndReplayedButNeverWrittenBack) {
  // A newer build's cassette: an exchange of kind 2 (a clock reading, say) between two model
  // exchanges, and a top-level field this build does not know.
  v1::Cassette proto = ValidProto();
  std::string bytes = proto.SerializeAsString();
  bytes += std::string("\x22\x04\x12\x02\x08\x01", 6);  // exchanges += {field 2: {1: 1}}
  bytes += std::string("\x50\x07", 2);                  // field 10 = 7
  absl::StatusOr<Cassette> read = ParseCassette(bytes, "newer.cassette");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->from_newer_build);
  ASSERT_EQ(read->exchanges.size(), 2u);
  EXPECT_TRUE(read->exchanges[0].model.has_value());
  EXPECT_FALSE(read->exchanges[1].model.has_value());
  EXPECT_EQ(read->exchanges[1].unknown_kind, 2);

  ReplayingModel replay("m", *read, ReplayOrder::kStrict);
  absl::StatusOr<ModelResponse> response = replay.Generate(Ask("q"), absl::InfiniteFuture());
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->raw, "raw:a");

  EXPECT_EQ(SerializeCassette(*read).status().code(), absl::StatusCode::kFailedPrecondition);
  std::string path = WriteBytes("newer.cassette", bytes);
  absl::StatusOr<std::unique_ptr<CassetteRecorder>> recorder = CassetteRecorder::Open(path);
  EXPECT_EQ(recorder.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(recorder.status().message(), HasSubstr("written by a newer build"));
  std::ifstream in(path, std::ios::binary);
  std::stringstream after;
  after << in.rdbuf();
  EXPECT_EQ(after.str(), bytes);  // untouched
}

}  // namespace
}  // namespace agentrt::replay
