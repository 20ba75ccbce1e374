// runtime/replay/recording_model.h
//
// A Model that passes every call to a real one and records it into a cassette (docs/
// architecture.md, "Record and replay"): the request, the response and the provider's raw bytes,
// filed under the request's key with its ordinal among identical requests (see cassette_recorder.h
// for ordering and re-recording). A failed call is passed back unchanged (its error kind too) and
// recorded with its error, so a strict replay fails it again at the same point; keyed replay
// never serves it: by key, only what a model answered is served.
//
// A successful call whose recording fails returns the recording's error instead of the
// response: a run that goes on with a hole in its cassette could never be replayed.
//
// Thread-safe when the inner model is.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/model.h"
#include "runtime/replay/cassette_recorder.h"

namespace agentrt::replay {

class RecordingModel : public ModelWrapper {
 public:
  // `inner` and `recorder` must outlive this.
  RecordingModel(Model& inner, CassetteRecorder& recorder)
      : ModelWrapper(inner), recorder_(recorder) {}

  absl::StatusOr<ModelResponse> Generate(const ModelRequest& request, absl::Time deadline) override;

 private:
  CassetteRecorder& recorder_;
};

}  // namespace agentrt::replay
