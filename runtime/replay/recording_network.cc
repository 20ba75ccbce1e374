#include "runtime/replay/recording_network.h"

#include <optional>
#include <string>
#include <utility>

#include "runtime/replay/internal/convert.h"
#include "runtime/replay/internal/secret_redactor.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {
namespace {

class RecordingResponse final : public world::HttpResponseWrapper {
 public:
  RecordingResponse(std::unique_ptr<world::HttpResponse> inner, CassetteRecorder& recorder,
                    std::uint32_t number, bool carries_secrets)
      : HttpResponseWrapper(std::move(inner)), recorder_(recorder), number_(number) {
    if (carries_secrets) redactor_.emplace();
  }

  absl::StatusOr<std::string> Read(absl::Time deadline) override {
    absl::StatusOr<std::string> bytes = HttpResponseWrapper::Read(deadline);
    v1::Exchange e;
    v1::HttpRead* read = e.mutable_http()->mutable_read();
    read->set_response(number_);
    read->set_deadline(internal::NanosOf(deadline));
    if (bytes.ok()) {
      read->set_data(redactor_.has_value() ? redactor_->Feed(*bytes) : *bytes);
    } else {
      *read->mutable_error() = internal::OutcomeOf(bytes.status());
    }
    if (absl::Status s = recorder_.Record(e); !s.ok()) return s;
    return bytes;
  }

  void Close() override {
    HttpResponseWrapper::Close();
    v1::Exchange e;
    e.mutable_http()->mutable_close()->set_response(number_);
    recorder_.Record(e).IgnoreError();  // kept by the recorder
  }

 private:
  CassetteRecorder& recorder_;
  const std::uint32_t number_;
  std::optional<internal::JsonRedactor> redactor_;  // the answer carries secrets
};

}  // namespace

absl::StatusOr<std::unique_ptr<world::HttpResponse>> RecordingNetwork::Send(
    const world::HttpRequest& request, absl::Time deadline) {
  absl::StatusOr<std::unique_ptr<world::HttpResponse>> response =
      NetworkWrapper::Send(request, deadline);
  v1::Exchange e = internal::HttpSendOf(request, deadline);
  v1::HttpSend* send = e.mutable_http()->mutable_send();
  if (!response.ok()) {
    *send->mutable_error() = internal::OutcomeOf(response.status());
    if (absl::Status s = recorder_.Record(e); !s.ok()) return s;
    return response.status();
  }
  std::uint32_t number = recorder_.Next(CassetteRecorder::Numbered::kResponse);
  send->set_response(number);
  send->set_status((*response)->status());
  internal::AddFields((*response)->headers(), send->mutable_response_headers());
  if (absl::Status s = recorder_.Record(e); !s.ok()) return s;
  return std::unique_ptr<world::HttpResponse>(std::make_unique<RecordingResponse>(
      *std::move(response), recorder_, number, request.carries_secrets));
}

}  // namespace agentrt::replay
