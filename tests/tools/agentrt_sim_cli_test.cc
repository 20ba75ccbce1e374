// `agentrt sim record` and `agentrt sim replay`, run as an operator runs them: the built binary
// as a child process. The committed recording of the real filesystem server
// (fixtures/cassettes/filesystem.cassette) replays with nothing but the cassette; a recording
// made here against the real server (when node and the pinned servers are installed) replays
// to the same trace with its files and sandbox gone; a cassette changed by one byte, or by its
// chain head, fails naming what differs; a bad script is refused naming the file and the field.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/json/json_object.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"
#include "tests/support/test_folder.h"
#include "tests/tools/agentrt_binary.h"
#include "tests/tools/child_process.h"

namespace agentrt {
namespace {

using ::agentrt::testing::Agentrt;
using ::agentrt::testing::ProcessResult;

const std::string kCommitted =
    std::string(AGENTRT_SOURCE_DIR) + "/fixtures/cassettes/filesystem.cassette";

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::filesystem::path& path, const std::string& bytes, int mode = 0600) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  ::chmod(path.c_str(), mode);
}

// The committed cassette copied alone into this test's folder, so a replay that read any file
// beside it would fail.
std::string CopyOfCommitted() {
  std::string copy = test_support::TestFile("filesystem.cassette");
  std::filesystem::copy_file(kCommitted, copy);
  return copy;
}

replay::Cassette ReadOrDie(const std::string& path) {
  absl::StatusOr<replay::Cassette> cassette = replay::ReadCassette(test_support::RealFiles(), path);
  EXPECT_OK(cassette);
  return cassette.ok() ? *std::move(cassette) : replay::Cassette();
}

// `original` with exchange `index` replaced by what `edit` makes of it and the chain head
// `head`, written to `path`.
void WriteEdited(const replay::Cassette& original, const std::string& path, std::size_t index,
                 const std::function<void(replay::v1::Exchange&)>& edit,
                 const replay::ChainHead& head) {
  replay::Cassette edited;
  edited.StartSession(original.header());
  for (std::size_t i = 0; i < original.size(); ++i) {
    replay::v1::Exchange exchange = original.exchange(i);
    if (i == index) edit(exchange);
    ASSERT_OK(edited.Add(exchange));
  }
  ASSERT_OK(edited.SetChainHead(head));
  ASSERT_OK(replay::WriteCassette(test_support::RealFiles(), path, edited));
}

// The first exchange of the cassette for which `match` holds.
std::optional<std::size_t> Find(const replay::Cassette& cassette,
                                const std::function<bool(const replay::v1::Exchange&)>& match) {
  for (std::size_t i = 0; i < cassette.size(); ++i) {
    if (match(cassette.exchange(i))) return i;
  }
  return std::nullopt;
}

// What a record or a replay printed of the run itself: the load reports, the trace and the
// run's line, without the last lines that say what was recorded or replayed.
std::string RunPart(const std::string& out) {
  std::size_t end = out.find("\nrecorded every exchange");
  if (end == std::string::npos) end = out.find("\nreplayed ");
  return end == std::string::npos ? out : out.substr(0, end + 1);
}

TEST(SimReplayCliTest, TheCommittedFilesystemCassetteReplaysFromTheCassetteAloneToItsChainHead) {
  std::string cassette = CopyOfCommitted();
  replay::Cassette recorded = ReadOrDie(cassette);
  ASSERT_GT(recorded.chain_head().seq, 0);

  ProcessResult replayed = Agentrt({"sim", "replay", cassette});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_THAT(replayed.out, HasSubstr("fs: registered read_text_file as fs_read_text_file"));
  EXPECT_THAT(replayed.out, HasSubstr("fs_list_directory"));
  // The write the policy sends to an operator: the run pauses, nothing is written.
  EXPECT_THAT(replayed.out, HasSubstr("approval.requested"));
  EXPECT_THAT(replayed.out, HasSubstr(": WAITING_FOR_APPROVAL after 3 steps\n"));
  EXPECT_THAT(replayed.out, HasSubstr(absl::StrCat("chain head seq ", recorded.chain_head().seq,
                                                   " ", recorded.chain_head().hash,
                                                   ": the audit log is the recorded one")));
  EXPECT_THAT(replayed.err, IsEmpty());

  // Into a database that is kept, and through `agentrt replay`: the same run.
  std::string db = test_support::TestFile("replayed.db");
  ProcessResult kept = Agentrt({"replay", cassette, "--db", db});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(RunPart(kept.out), RunPart(replayed.out));
  ProcessResult verified =
      Agentrt({"verify", "--db", db, "--head",
               absl::StrCat(recorded.chain_head().seq, ":", recorded.chain_head().hash)});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  // A replay writes into a new database only: the chain head covers the whole audit log.
  ProcessResult again = Agentrt({"sim", "replay", cassette, "--db", db});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("already holds 16 events; use a new one"));
}

TEST(SimReplayCliTest, TheCommittedCassetteKeepsEveryFileItsRunReadAndNoPathOfTheMachine) {
  replay::Cassette cassette = ReadOrDie(kCommitted);
  ASSERT_EQ(cassette.sessions().size(), 1u);
  const replay::CassetteHeader& header = cassette.header();
  EXPECT_THAT(header.program,
              ::testing::ElementsAre("sim", "record", "--config", "filesystem.config.json",
                                     "--script", "filesystem.script.json"));
  std::vector<std::string> kept;
  for (const replay::CassetteInput& input : header.inputs) {
    kept.push_back(absl::StrCat(input.role, " ", input.key, " ", input.path));
    // Each is the committed file, byte for byte: re-recording after editing one updates both.
    EXPECT_EQ(input.data,
              ReadAll(std::string(AGENTRT_SOURCE_DIR) + "/fixtures/cassettes/" + input.path))
        << input.path;
  }
  EXPECT_THAT(kept, ::testing::ElementsAre("config  filesystem.config.json",
                                           "script  filesystem.script.json",
                                           "manifest fs filesystem.manifest.json"));
  std::string bytes = ReadAll(kCommitted);
  EXPECT_EQ(bytes.find(AGENTRT_SOURCE_DIR), std::string::npos);
}

TEST(SimReplayCliTest, CassetteDumpShowsTheFilesTheRecordingKept) {
  ProcessResult text = Agentrt({"cassette", "dump", kCommitted, "--bytes", "40"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("program \"sim record --config filesystem.config.json "
                                  "--script filesystem.script.json\"\n"
                                  "input: config read from \"filesystem.config.json\", "));
  EXPECT_THAT(text.out, HasSubstr("\ninput: script read from \"filesystem.script.json\", "));
  EXPECT_THAT(text.out,
              HasSubstr("\ninput: manifest \"fs\" read from \"filesystem.manifest.json\", "));
  ProcessResult json = Agentrt({"cassette", "dump", kCommitted, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::string first = json.out.substr(0, json.out.find('\n'));
  EXPECT_THAT(first, HasSubstr(R"("inputs":[{"bytes":)"));
  EXPECT_THAT(first,
              HasSubstr(R"("key":"fs","path":"filesystem.manifest.json","role":"manifest")"));
}

TEST(SimReplayCliTest, AChangedByteOfWhatTheClientSentFailsNamingTheExchange) {
  replay::Cassette recorded = ReadOrDie(kCommitted);
  // The tools/call that reads README.md, as the client wrote it to the server's stdin.
  std::optional<std::size_t> call = Find(recorded, [](const replay::v1::Exchange& e) {
    return e.has_stdio() && e.stdio().has_write() &&
           e.stdio().write().data().find("README.md") != std::string::npos;
  });
  ASSERT_TRUE(call.has_value());
  std::string tampered = test_support::TestFile("tampered.cassette");
  WriteEdited(
      recorded, tampered, *call,
      [](replay::v1::Exchange& e) {
        std::string* data = e.mutable_stdio()->mutable_write()->mutable_data();
        (*data)[data->find("README.md") + 8] = 'x';  // README.mx
      },
      recorded.chain_head());

  ProcessResult r = Agentrt({"sim", "replay", tampered});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(absl::StrCat("exchange ", *call + 1,
                                            " (stdin write) differs from the recording")));
  EXPECT_THAT(r.err, HasSubstr("README.mx"));
  EXPECT_THAT(r.out, Not(HasSubstr("the audit log is the recorded one")));
}

TEST(SimReplayCliTest, AChangedByteOfWhatTheServerAnsweredFailsAtTheChainHead) {
  replay::Cassette recorded = ReadOrDie(kCommitted);
  // The server's answer carrying the README's text.
  std::optional<std::size_t> answer = Find(recorded, [](const replay::v1::Exchange& e) {
    return e.has_stdio() && e.stdio().has_read() &&
           e.stdio().read().data().find("Reads are allowed") != std::string::npos;
  });
  ASSERT_TRUE(answer.has_value());
  std::string tampered = test_support::TestFile("tampered.cassette");
  WriteEdited(
      recorded, tampered, *answer,
      [](replay::v1::Exchange& e) {
        // The last copy: the structured content, which is what the run observes (the text
        // content before it carries the same words).
        std::string* data = e.mutable_stdio()->mutable_read()->mutable_data();
        (*data)[data->rfind("Reads are allowed")] = 'W';  // "Weads are allowed"
      },
      recorded.chain_head());

  // The client asks for the same things (the changed text is served, not compared), but the
  // run observed another README: its audit log is not the recorded one.
  ProcessResult r = Agentrt({"sim", "replay", tampered});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("the audit log differs from the recording"));
  EXPECT_THAT(r.err, HasSubstr(recorded.chain_head().hash));
  EXPECT_THAT(r.out, Not(HasSubstr("the audit log is the recorded one")));
}

TEST(SimReplayCliTest, AChangedChainHeadFailsNamingBothHeads) {
  replay::Cassette recorded = ReadOrDie(kCommitted);
  replay::ChainHead head = recorded.chain_head();
  head.hash[0] = head.hash[0] == '0' ? '1' : '0';
  std::string tampered = test_support::TestFile("tampered.cassette");
  WriteEdited(
      recorded, tampered, recorded.size(), [](replay::v1::Exchange&) {}, head);

  ProcessResult r = Agentrt({"sim", "replay", tampered});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(head.hash));
  EXPECT_THAT(r.err, HasSubstr(recorded.chain_head().hash));
}

TEST(SimReplayCliTest, AFlippedByteInTheFileIsRefusedNamingTheRecord) {
  std::string bytes = ReadAll(kCommitted);
  bytes[bytes.size() / 2] ^= 0x20;
  std::string damaged = test_support::TestFile("damaged.cassette");
  WriteAll(damaged, bytes);
  ProcessResult r = Agentrt({"sim", "replay", damaged});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not match its checksum: the file is damaged"));
}

TEST(SimReplayCliTest, ACassetteAnotherProgramRecordedIsRefusedNamingIt) {
  std::string path = test_support::TestFile("demo.cassette");
  {
    absl::StatusOr<std::unique_ptr<replay::CassetteRecorder>> recorder =
        replay::CassetteRecorder::Create(test_support::RealFiles(), path,
                                         {.created_by = "test", .program = {"demo", "x"}});
    ASSERT_OK(recorder);
  }
  ProcessResult r = Agentrt({"sim", "replay", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("was recorded by \"demo x\", not by agentrt sim record"));
  // A sim recording whose header lost the files it needs.
  std::string bare = test_support::TestFile("bare.cassette");
  {
    absl::StatusOr<std::unique_ptr<replay::CassetteRecorder>> recorder =
        replay::CassetteRecorder::Create(test_support::RealFiles(), bare,
                                         {.program = {"sim", "record"}});
    ASSERT_OK(recorder);
  }
  ProcessResult missing = Agentrt({"sim", "replay", bare});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("does not keep exactly one configuration and one script"));
}

class SimRecordCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_support::TestFolder(); }

  // A configuration with the filesystem server confined to `sandbox`, its manifest beside it,
  // reads and writes allowed (the default policy).
  std::string WriteConfig(const std::filesystem::path& sandbox) {
    std::string server = absl::StrCat(
        AGENTRT_SOURCE_DIR,
        "/fixtures/servers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    std::string config =
        json::JsonObject()
            .String("database", "unused.db")
            .String("session", "test")
            .Raw("servers",
                 "[" +
                     json::JsonObject()
                         .String("name", "fs")
                         .Raw("command", absl::StrCat("[\"node\",", json::JsonString(server), ",",
                                                      json::JsonString(sandbox.string()), "]"))
                         .String("connect_timeout", "30s")
                         .String("default_timeout", "10s")
                         .String("manifest", "fs.manifest.json")
                         .Raw("rules", R"({"read_text_file":{"side_effect":"read_only"},)"
                                       R"("write_file":{"side_effect":"local_mutation",)"
                                       R"("allow_hint_mismatch":true}})")
                         .Build() +
                     "]")
            .Build();
    WriteAll(dir_ / "config.json", config);
    return (dir_ / "config.json").string();
  }

  std::string WriteScript(const std::string& text, const std::string& name = "script.json") {
    WriteAll(dir_ / name, text, 0644);
    return (dir_ / name).string();
  }

  std::filesystem::path dir_;
};

// Whether `node` is on this process's PATH and the pinned servers are installed.
bool RealServersInstalled() {
  std::filesystem::path server = std::filesystem::path(AGENTRT_SOURCE_DIR) /
                                 "fixtures/servers/node_modules/@modelcontextprotocol/"
                                 "server-filesystem/dist/index.js";
  if (!std::filesystem::exists(server)) return false;
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path != nullptr ? path : "", ':')) {
    std::string node = absl::StrCat(dir, "/node");
    if (!dir.empty() && ::access(node.c_str(), X_OK) == 0) return true;
  }
  return false;
}

TEST_F(SimRecordCliTest, ARecordingOfTheRealFilesystemServerReplaysWithEverythingButItGone) {
  if (!RealServersInstalled()) {
    GTEST_SKIP() << "node or the pinned filesystem server is not installed "
                    "(cd fixtures/servers && npm ci --ignore-scripts)";
  }
  std::filesystem::path sandbox = dir_ / "sandbox";
  std::filesystem::create_directories(sandbox);
  WriteAll(sandbox / "README.md", "Write what you learn to notes.md.\n");
  std::string config = WriteConfig(sandbox);
  ProcessResult pin = Agentrt({"mcp", "pin", "--config", config});
  ASSERT_EQ(pin.exit_code, 0) << pin.err;
  std::string script = WriteScript(R"({
    "goal": "Read the README, then do what it says",
    "steps": [
      {"tool": "fs_read_text_file", "args": {"path": "README.md"}},
      {"tool": "fs_write_file", "args": {"path": "notes.md", "content": "recorded\n"}},
      {"tool": "fs_read_text_file", "args": {"path": "notes.md"}, "reason": "check"},
      {"complete": {"done": true}}
    ]
  })");
  std::string cassette = (dir_ / "run.cassette").string();

  ProcessResult recorded =
      Agentrt({"sim", "record", "--config", config, "--script", script, "--out", cassette});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_THAT(recorded.out, HasSubstr(": COMPLETED (goal_completed) after 4 steps\n"));
  EXPECT_THAT(recorded.out, HasSubstr("recorded every exchange with the world to " + cassette));
  EXPECT_EQ(ReadAll(sandbox / "notes.md"), "recorded\n");  // the write was real
  struct stat st;
  ASSERT_EQ(::stat(cassette.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // Everything the recording read or wrote is gone: the configuration, the manifest, the
  // script and the sandbox. The replay starts no server, so nothing is written again.
  for (const char* name : {"config.json", "fs.manifest.json", "script.json"}) {
    ASSERT_TRUE(std::filesystem::remove(dir_ / name)) << name;
  }
  std::filesystem::remove_all(sandbox);
  ProcessResult replayed = Agentrt({"sim", "replay", cassette});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_EQ(RunPart(replayed.out), RunPart(recorded.out));
  EXPECT_THAT(replayed.out, HasSubstr("the audit log is the recorded one, byte for byte"));
  EXPECT_FALSE(std::filesystem::exists(sandbox));
}

TEST_F(SimRecordCliTest, AScriptWithAMissingOrUnknownFieldIsRefusedNamingTheFileAndTheField) {
  std::string config = WriteConfig(dir_ / "sandbox");
  struct Row {
    std::string script;
    std::string error;
  } rows[] = {
      {R"({"steps":[{"tool":"fs_read_text_file"}]})", R"("goal" is required)"},
      {R"({"goal":"g"})", R"("steps" is required)"},
      {R"({"goal":"g","steps":[]})", R"("steps" is empty)"},
      {R"({"goal":"g","steps":[{"tool":"t"}],"max_step":3})", R"(unknown field "max_step")"},
      {R"({"goal":"g","steps":[{"tool":"t"},{"tol":"t"}]})", R"(steps[1]: unknown field "tol")"},
      {R"({"goal":"g","steps":[{"args":{}}]})",
       R"(steps[0]: exactly one of "tool", "complete" or "fail" is required)"},
      {R"({"goal":"g","steps":[{"tool":"t","complete":{}}]})",
       R"(steps[0]: exactly one of "tool", "complete" or "fail" is required)"},
      {R"({"goal":"g","steps":[{"tool":"t","args":"{}"}]})",
       R"(steps[0]: "args" is not a JSON object)"},
      {R"({"goal":"g","steps":[{"complete":{},"reason":"r"}]})",
       R"(steps[0]: "reason" is only for a tool call)"},
      {R"({"goal":"g","steps":[{"fail":1}]})", R"(steps[0]: "fail" is not a string)"},
      {R"({"goal":"g","steps":[{"tool":"t"}],"max_steps":0})",
       R"("max_steps" is not a positive integer)"},
      {R"({"goal":"g","steps":[{"tool":"t"}],"max_steps":2.5})",
       R"("max_steps" is not a positive integer)"},
      {R"({"goal":"g","goal":"h","steps":[{"tool":"t"}]})", "not usable JSON"},
      {R"(["goal"])", "the script is not a JSON object"},
  };
  std::string cassette = (dir_ / "never.cassette").string();
  for (const Row& row : rows) {
    SCOPED_TRACE(row.script);
    std::string script = WriteScript(row.script);
    ProcessResult r =
        Agentrt({"sim", "record", "--config", config, "--script", script, "--out", cassette});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, HasSubstr("script " + script + ": " + row.error));
    // Refused before anything started: no cassette.
    EXPECT_FALSE(std::filesystem::exists(cassette));
  }
}

TEST_F(SimRecordCliTest, AServerNotPinnedIsRefusedBeforeAnythingStarts) {
  std::string config = WriteConfig(dir_ / "sandbox");
  std::string script = WriteScript(R"({"goal":"g","steps":[{"complete":null}]})");
  std::string cassette = (dir_ / "never.cassette").string();
  ProcessResult r =
      Agentrt({"sim", "record", "--config", config, "--script", script, "--out", cassette});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err,
              HasSubstr("server \"fs\": no manifest at " + (dir_ / "fs.manifest.json").string()));
  EXPECT_THAT(r.err, HasSubstr("pin it first: agentrt mcp pin --config " + config));
  EXPECT_FALSE(std::filesystem::exists(cassette));
  ProcessResult no_script = Agentrt({"sim", "record", "--config", config, "--script",
                                     (dir_ / "nowhere.json").string(), "--out", cassette});
  EXPECT_EQ(no_script.exit_code, 1);
  EXPECT_THAT(no_script.err, HasSubstr("script: "));
  EXPECT_THAT(no_script.err, HasSubstr("nowhere.json"));
}

TEST(SimCliTest, UsageErrorsExitTwoNamingWhatIsWrong) {
  struct Row {
    std::vector<std::string> args;
    std::string error;
  } rows[] = {
      {{"sim"}, "missing subcommand"},
      {{"sim", "rekord"}, "unknown subcommand \"rekord\""},
      {{"sim", "record"}, "--config FILE, --script SCRIPT and --out CASSETTE are required"},
      {{"sim", "record", "--config", "c", "--script", "s"}, "are required"},
      {{"sim", "record", "--config", "c", "--script", "s", "--out", kCommitted}, "exists"},
      {{"sim", "record", "--tool", "x"}, "unknown flag --tool"},
      {{"sim", "record", "stray"}, "unexpected argument"},
      {{"sim", "replay"}, "expected one CASSETTE"},
      {{"sim", "replay", "a", "b"}, "expected one CASSETTE"},
      {{"sim", "replay", "a", "--config", "c"}, "unknown flag --config"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(::testing::PrintToString(row.args));
    ProcessResult r = Agentrt(row.args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr(row.error));
  }
  for (const char* sub : {"record", "replay"}) {
    ProcessResult help = Agentrt({"sim", sub, "--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_THAT(help.out, StartsWith(std::string("Usage: agentrt sim ") + sub));
  }
  EXPECT_EQ(Agentrt({"sim", "--help"}).exit_code, 0);
}

}  // namespace
}  // namespace agentrt
