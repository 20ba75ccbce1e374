// runtime/world/internal/curl_response.h
//
// One HTTP exchange of CurlNetwork (curl_network.h): a libcurl easy handle driven by a multi
// handle of its own on a thread of its own, from the request to the end of the body. The thread
// fills a bounded buffer that Read empties; everything the two share is under one mutex, and
// every wait is on the injected Clock.
#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"
#include "runtime/world/network.h"

namespace agentrt::world::internal {

// Past this many bytes not yet read the transfer pauses; it resumes below half of it.
inline constexpr std::size_t kMaxUnreadBodyBytes = std::size_t{1} << 20;

class CurlResponse final : public HttpResponse {
 public:
  // Start sets up the exchange for a request CheckRequest accepted and starts its thread.
  // Errors: Internal when libcurl refuses a handle or an option.
  static absl::StatusOr<std::unique_ptr<CurlResponse>> Start(const Clock& clock,
                                                             const HttpRequest& request,
                                                             const CurlNetworkOptions& options);
  ~CurlResponse() override;  // Close, then waits for the thread

  // WaitForHead waits until the status and headers arrived (OK) or the exchange failed before
  // (its error), or returns DeadlineExceeded at `deadline`.
  absl::Status WaitForHead(absl::Time deadline);

  int status() const override { return status_; }
  const HttpFields& headers() const override { return headers_; }
  absl::StatusOr<std::string> Read(absl::Time deadline) override;
  void Close() override;

 private:
  CurlResponse(const Clock& clock, const HttpRequest& request, const CurlNetworkOptions& options);

  absl::Status Configure(const HttpRequest& request, const CurlNetworkOptions& options);
  void Run();  // the transfer thread
  void Finish(CURLcode code);
  absl::Status ErrorFor(CURLcode code) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // libcurl's callbacks, on the transfer thread.
  static std::size_t OnHeader(char* data, std::size_t size, std::size_t count, void* self);
  static std::size_t OnBody(char* data, std::size_t size, std::size_t count, void* self);
  static curl_socket_t OnOpenSocket(void* self, curlsocktype purpose, curl_sockaddr* address);
  std::size_t HeaderLine(std::string_view line);
  std::size_t Body(std::string_view bytes);
  void HeadArrived(absl::Status result);
  void WakeReaderLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Clock& clock_;
  const std::string what_;  // "<method> <url>" for messages
  const std::string body_;  // libcurl sends it from here
  const std::size_t max_body_bytes_;
  const bool loopback_only_;
  const bool head_request_;

  CURL* easy_ = nullptr;
  CURLM* multi_ = nullptr;
  curl_slist* header_list_ = nullptr;
  char error_buffer_[CURL_ERROR_SIZE] = {};
  std::thread thread_;

  // Only the transfer thread touches these until head_arrived_ is notified; after that status_
  // and headers_ are read-only.
  int status_ = 0;
  HttpFields headers_;
  bool head_done_ = false;
  absl::Status refused_;  // an address a loopback-only network would not connect to
  absl::Status head_result_;
  absl::Notification head_arrived_;

  absl::Mutex mu_;
  std::string buffer_ ABSL_GUARDED_BY(mu_);  // body bytes not read yet
  std::size_t received_ ABSL_GUARDED_BY(mu_) = 0;
  bool paused_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status end_ ABSL_GUARDED_BY(mu_);  // after the buffer: OK is the body's end
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Notification* waiter_ ABSL_GUARDED_BY(mu_) = nullptr;  // a Read waiting for bytes
};

}  // namespace agentrt::world::internal
