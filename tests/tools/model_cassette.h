// tests/tools/model_cassette.h
//
// A small cassette for the cassette commands' tests, recorded in this process through the
// replay library as a product records one: three calls to a scripted model ("roll" twice, then
// "name"; the second answer's raw bytes are not UTF-8) and the chain head seq 12, hash 64 'c's.
// Header-only, test-only.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "runtime/model.h"
#include "runtime/replay/cassette_recorder.h"
#include "runtime/replay/recording_model.h"
#include "sim/scripted_model.h"
#include "tests/support/real_files.h"
#include "tests/support/status_matchers.h"

namespace agentrt::testing {

// The request that asks `text` as the user.
inline ModelRequest Ask(const std::string& text) {
  ModelRequest request;
  ContentBlock block;
  block.type = "text";
  block.text = text;
  request.messages.push_back({"user", {block}});
  return request;
}

inline ModelResponse Answer(const std::string& text, const std::string& raw) {
  ModelResponse response;
  response.text = text;
  response.stop_reason = "end_turn";
  response.raw = raw;
  return response;
}

// RecordModelCassette records the cassette at `path` (a new file), the model named `model`,
// its one session's notes `notes`.
inline void RecordModelCassette(const std::string& path, const std::string& model,
                                const std::string& notes = "") {
  sim::ScriptedModel inner(
      {Answer("4", R"({"t":"4"})"), Answer("2", "\xFF\xFE"), Answer("n", "<n>")}, {}, model);
  absl::StatusOr<std::unique_ptr<replay::CassetteRecorder>> recorder =
      replay::CassetteRecorder::Create(test_support::RealFiles(), path,
                                       {.created_by = "agentrt", .notes = notes});
  ASSERT_OK(recorder);
  replay::RecordingModel recording(inner, **recorder);
  for (const char* q : {"roll", "roll", "name"}) {
    ASSERT_OK(recording.Generate(Ask(q), absl::InfiniteFuture()));
  }
  ASSERT_OK((*recorder)->SetChainHead({12, std::string(64, 'c')}));
}

}  // namespace agentrt::testing
