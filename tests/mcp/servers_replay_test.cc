// Sessions with real servers, recorded into a cassette (runtime/replay) and replayed with the
// server gone: over stdio (the filesystem server) the replay starts no process, over streamable
// HTTP (the everything server) it reaches no server, yet each pins the same manifest, registers
// the same tools and gets the same call results, byte for byte, because the client asks the
// world for exactly what it asked while recording (docs/architecture.md, "Record and replay").
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp/load.h"
#include "mcp/pin.h"
#include "runtime/json/json_object.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/recording_world.h"
#include "runtime/replay/replaying_world.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/entropy.h"
#include "tests/mcp/http_everything.h"
#include "tests/mcp/real_servers.h"
#include "tests/support/process_gone.h"
#include "tests/support/status_matchers.h"
#include "tests/support/tap_launcher.h"
#include "tests/support/test_folder.h"

namespace agentrt::mcp {
namespace {

// What one session with the server gave: what a test compares between recording and replay.
struct Outcome {
  Manifest manifest;
  std::string report;
  std::vector<std::string> results;  // each call's content, or its error's message
};

std::string Text(const absl::StatusOr<ToolResult>& result) {
  return result.ok() ? result->content + " / " + result->summary
                     : std::string(result.status().message());
}

// Pin, Load, write a file, read it back, read outside the sandbox, Close: all through `w`.
Outcome Session(const world::World& w, const std::filesystem::path& sandbox) {
  Outcome out;
  Server server = real_servers::Filesystem(sandbox.string());
  absl::StatusOr<Manifest> manifest = Pin(server, w);
  EXPECT_OK(manifest);
  if (!manifest.ok()) return out;
  out.manifest = *manifest;
  Rules rules = real_servers::Classify({"read_text_file"}, SideEffect::kReadOnly);
  Rule write;
  write.side_effect = SideEffect::kLocalMutation;
  write.timeout = absl::Seconds(10);
  write.allow_hint_mismatch = true;
  rules.emplace("write_file", write);
  LoadResult loaded = Load(server, &out.manifest, rules, w);
  EXPECT_OK(loaded.status);
  if (!loaded.status.ok()) return out;
  out.report = loaded.report->Text();
  const std::string note = (sandbox / "note.txt").string();
  out.results.push_back(Text(real_servers::CallTool(
      *real_servers::Named(loaded, "fs_write_file"),
      json::JsonObject().String("path", note).String("content", "recorded\n").Build(), *w.clock)));
  out.results.push_back(
      Text(real_servers::CallTool(*real_servers::Named(loaded, "fs_read_text_file"),
                                  json::JsonObject().String("path", note).Build(), *w.clock)));
  out.results.push_back(Text(real_servers::CallTool(
      *real_servers::Named(loaded, "fs_read_text_file"),
      json::JsonObject().String("path", sandbox.parent_path().string()).Build(), *w.clock)));
  loaded.connection->Close();
  return out;
}

TEST(FilesystemReplayTest, ASessionReplaysWithTheServerGoneToTheSameManifestAndResults) {
  const std::filesystem::path sandbox = test_support::TestFolder() / "sandbox";
  std::filesystem::create_directories(sandbox);

  // Record: the real clock, real processes and this process's PATH; a manual clock as the
  // scheduler and seeded entropy, which the MCP client never asks for.
  real_servers::RealWorld real;
  world::ManualClock scheduler(absl::UnixEpoch());
  world::SeededEntropy entropy(7);
  replay::CassetteRecorder recorder({.created_by = "agentrt test"});
  Outcome recorded;
  std::vector<test_support::Tapped> recorded_processes;
  {
    replay::RecordingWorld recording({.clock = &real.clock(),
                                      .scheduler = &scheduler,
                                      .entropy = &entropy,
                                      .launcher = &real.launcher(),
                                      .environment = &real.environment()},
                                     recorder);
    test_support::TapLauncher tap(*recording.world().launcher);
    world::World w = recording.world();
    w.launcher = &tap;
    recorded = Session(w, sandbox);
    recorded_processes = tap.processes();
  }
  ASSERT_OK(recorder.status());
  EXPECT_EQ(recorded.manifest.tools.size(), 14u);
  EXPECT_THAT(recorded.report, HasSubstr("fs: registered write_file as fs_write_file"));
  ASSERT_EQ(recorded.results.size(), 3u);
  EXPECT_THAT(recorded.results[1], HasSubstr(R"({"content":"recorded\n"})"));
  EXPECT_THAT(recorded.results[2], HasSubstr("Access denied"));
  ASSERT_EQ(recorded_processes.size(), 2u);  // Pin's server, then Load's
  for (const test_support::Tapped& process : recorded_processes) {
    ASSERT_TRUE(test_support::ProcessGone(static_cast<pid_t>(process.pid)));
  }

  // Replay, with what the recording wrote undone: a replay that reached a real server would
  // write the file again.
  std::filesystem::remove(sandbox / "note.txt");
  replay::ReplayingWorld replaying(recorder.cassette());
  test_support::TapLauncher tap(*replaying.world().launcher);
  world::World w = replaying.world();
  w.launcher = &tap;
  Outcome replayed = Session(w, sandbox);
  EXPECT_OK(replaying.cursor().Finish());

  EXPECT_EQ(replayed.manifest, recorded.manifest);  // pinned_at included: the clock replayed
  EXPECT_EQ(replayed.report, recorded.report);
  EXPECT_EQ(replayed.results, recorded.results);
  // The processes the replay talked to are the recorded ones, long gone: the client wrote them
  // the same bytes and read the same bytes back.
  std::vector<test_support::Tapped> replayed_processes = tap.processes();
  ASSERT_EQ(replayed_processes.size(), recorded_processes.size());
  for (std::size_t i = 0; i < replayed_processes.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(replayed_processes[i].pid, recorded_processes[i].pid);
    EXPECT_TRUE(test_support::ProcessGone(static_cast<pid_t>(replayed_processes[i].pid)));
    EXPECT_EQ(replayed_processes[i].argv, recorded_processes[i].argv);
    EXPECT_EQ(replayed_processes[i].written, recorded_processes[i].written);
    EXPECT_EQ(replayed_processes[i].read, recorded_processes[i].read);
  }
  EXPECT_FALSE(std::filesystem::exists(sandbox / "note.txt"));
}

// Pin, Load, two calls and Close over streamable HTTP, through `w`.
Outcome HttpSession(const world::World& w, const Server& server) {
  Outcome out;
  absl::StatusOr<Manifest> manifest = Pin(server, w);
  EXPECT_OK(manifest);
  if (!manifest.ok()) return out;
  out.manifest = *manifest;
  LoadResult loaded =
      Load(server, &out.manifest,
           real_servers::Classify({"echo", "get-structured-content"}, SideEffect::kReadOnly), w);
  EXPECT_OK(loaded.status);
  if (!loaded.status.ok()) return out;
  out.report = loaded.report->Text();
  out.results.push_back(Text(real_servers::CallTool(*real_servers::Named(loaded, "everything_echo"),
                                                    R"({"message":"recorded"})", *w.clock)));
  out.results.push_back(
      Text(real_servers::CallTool(*real_servers::Named(loaded, "everything_get-structured-content"),
                                  R"({"location":"Chicago"})", *w.clock)));
  loaded.connection->Close();
  return out;
}

TEST(EverythingReplayTest, AStreamableHttpSessionReplaysWithTheServerGone) {
  real_servers::RealWorld real;
  real_servers::HttpEverything http(real.clock(), *real.environment().Get("PATH"));
  absl::Status started = http.Start(absl::Seconds(30));
  ASSERT_OK(started);
  absl::StatusOr<std::unique_ptr<world::CurlNetwork>> network =
      world::CurlNetwork::Create(real.clock(), {.loopback_only = true});
  ASSERT_OK(network);
  world::ManualClock scheduler(absl::UnixEpoch());
  world::SeededEntropy entropy(7);
  replay::CassetteRecorder recorder({.created_by = "agentrt test"});
  Outcome recorded;
  {
    replay::RecordingWorld recording({.clock = &real.clock(),
                                      .scheduler = &scheduler,
                                      .entropy = &entropy,
                                      .network = network->get(),
                                      .environment = &real.environment()},
                                     recorder);
    recorded = HttpSession(recording.world(), http.server());
  }
  ASSERT_OK(recorder.status());
  ASSERT_EQ(recorded.results.size(), 2u);
  EXPECT_THAT(recorded.results[0], HasSubstr(R"("Echo: recorded")"));
  pid_t pid = static_cast<pid_t>(http.pid());
  http.Close();
  ASSERT_TRUE(test_support::ProcessGone(pid));

  replay::ReplayingWorld replaying(recorder.cassette());
  Outcome replayed = HttpSession(replaying.world(), http.server());
  EXPECT_OK(replaying.cursor().Finish());
  EXPECT_EQ(replayed.manifest, recorded.manifest);
  EXPECT_EQ(replayed.report, recorded.report);
  EXPECT_EQ(replayed.results, recorded.results);
}

}  // namespace
}  // namespace agentrt::mcp
