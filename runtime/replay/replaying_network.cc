#include "runtime/replay/replaying_network.h"

#include <string>

#include "runtime/replay/internal/convert.h"
#include "runtime/replay/proto/cassette.pb.h"

namespace agentrt::replay {
namespace {

class ReplayingResponse final : public world::HttpResponse {
 public:
  ReplayingResponse(ReplayCursor& cursor, const v1::HttpSend& recorded)
      : cursor_(cursor),
        number_(recorded.response()),
        status_(recorded.status()),
        headers_(internal::FieldsOf(recorded.response_headers())) {}

  int status() const override { return status_; }
  const world::HttpFields& headers() const override { return headers_; }

  absl::StatusOr<std::string> Read(absl::Time deadline) override {
    v1::Exchange requested;
    requested.mutable_http()->mutable_read()->set_response(number_);
    requested.mutable_http()->mutable_read()->set_deadline(internal::NanosOf(deadline));
    absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, true);
    if (!served.ok()) return served.status();
    const v1::HttpRead& read = (*served)->http().read();
    if (read.has_error()) return internal::StatusOf(read.error());
    return read.data();
  }

  void Close() override {
    v1::Exchange requested;
    requested.mutable_http()->mutable_close()->set_response(number_);
    cursor_.Serve(requested, true).IgnoreError();  // the cursor keeps a mismatch
  }

 private:
  ReplayCursor& cursor_;
  const std::uint32_t number_;
  const int status_;
  const world::HttpFields headers_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<world::HttpResponse>> ReplayingNetwork::Send(
    const world::HttpRequest& request, absl::Time deadline) {
  v1::Exchange requested = internal::HttpSendOf(request, deadline);
  absl::StatusOr<const v1::Exchange*> served = cursor_.Serve(requested, /*safe=*/true);
  if (!served.ok()) return served.status();
  const v1::HttpSend& recorded = (*served)->http().send();
  if (recorded.has_error()) return internal::StatusOf(recorded.error());
  return std::unique_ptr<world::HttpResponse>(
      std::make_unique<ReplayingResponse>(cursor_, recorded));
}

}  // namespace agentrt::replay
