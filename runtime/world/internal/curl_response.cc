#include "runtime/world/internal/curl_response.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/base/string_view.h"
#include "runtime/world/internal/request_text.h"

namespace agentrt::world::internal {
namespace {

// How long the transfer thread sleeps at most when nothing happens; it is woken at once by its
// sockets, libcurl's own timers, a Read that made room and Close.
constexpr int kPollSliceMs = 200;

bool IsLoopback(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  }
  if (address->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
  }
  return false;
}

std::string AddressText(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text,
              sizeof text);
  }
  return text;
}

std::string_view TrimLineEnd(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CurlResponse>> CurlResponse::Start(
    const Clock& clock, const HttpRequest& request, const CurlNetworkOptions& options) {
  std::unique_ptr<CurlResponse> response(new CurlResponse(clock, request, options));
  absl::Status configured = response->Configure(request, options);
  if (!configured.ok()) return configured;
  response->thread_ = std::thread([r = response.get()] { r->Run(); });
  return response;
}

CurlResponse::CurlResponse(const Clock& clock, const HttpRequest& request,
                           const CurlNetworkOptions& options)
    : clock_(clock),
      what_(RequestText(request)),
      body_(request.body),
      max_body_bytes_(request.max_body_bytes),
      loopback_only_(options.loopback_only),
      head_request_(request.method == "HEAD") {}

CurlResponse::~CurlResponse() {
  Close();
  if (thread_.joinable()) thread_.join();
  if (multi_ != nullptr && easy_ != nullptr) curl_multi_remove_handle(multi_, easy_);
  if (easy_ != nullptr) curl_easy_cleanup(easy_);
  if (multi_ != nullptr) curl_multi_cleanup(multi_);
  curl_slist_free_all(header_list_);
}

absl::Status CurlResponse::Configure(const HttpRequest& request,
                                     const CurlNetworkOptions& options) {
  easy_ = curl_easy_init();
  multi_ = curl_multi_init();
  if (easy_ == nullptr || multi_ == nullptr) {
    return absl::InternalError(absl::StrCat(what_, ": libcurl could not make a handle"));
  }
  bool has_expect = false;
  bool has_content_type = false;
  for (const auto& [name, value] : request.headers) {
    has_expect |= absl::EqualsIgnoreCase(name, "Expect");
    has_content_type |= absl::EqualsIgnoreCase(name, "Content-Type");
    // "Name;" is how libcurl is told to send a header with an empty value.
    std::string line = value.empty() ? absl::StrCat(name, ";") : absl::StrCat(name, ": ", value);
    header_list_ = curl_slist_append(header_list_, line.c_str());
  }
  // libcurl would add "Expect: 100-continue" to large bodies (a round trip of waiting) and a
  // form Content-Type to every body: a body goes as the caller made it.
  if (!has_expect) header_list_ = curl_slist_append(header_list_, "Expect:");
  if (!has_content_type) header_list_ = curl_slist_append(header_list_, "Content-Type:");

  CURLcode rc = CURLE_OK;
  auto set = [&](CURLoption option, auto value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(easy_, option, value);
  };
  set(CURLOPT_URL, request.url.c_str());
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_FOLLOWLOCATION, 0L);
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_FORBID_REUSE, 1L);  // one exchange per handle: the connection ends with it
  set(CURLOPT_CONNECTTIMEOUT_MS,
      static_cast<long>(absl::ToInt64Milliseconds(options.connect_timeout)));
  set(CURLOPT_SSL_VERIFYPEER, 1L);
  set(CURLOPT_SSL_VERIFYHOST, 2L);
  set(CURLOPT_PROXY_SSL_VERIFYPEER, 1L);
  set(CURLOPT_PROXY_SSL_VERIFYHOST, 2L);
  if (!options.ca_file.empty()) {
    set(CURLOPT_CAINFO, options.ca_file.c_str());
    set(CURLOPT_PROXY_CAINFO, options.ca_file.c_str());
  }
  // An empty proxy turns off the environment's proxies too.
  if (!options.proxy_from_environment || options.loopback_only) set(CURLOPT_PROXY, "");
  set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);  // a proxy's CONNECT answer is not the response
  set(CURLOPT_HTTPHEADER, header_list_);
  set(CURLOPT_ERRORBUFFER, error_buffer_);
  set(CURLOPT_HEADERFUNCTION, &CurlResponse::OnHeader);
  set(CURLOPT_HEADERDATA, this);
  set(CURLOPT_WRITEFUNCTION, &CurlResponse::OnBody);
  set(CURLOPT_WRITEDATA, this);
  set(CURLOPT_OPENSOCKETFUNCTION, &CurlResponse::OnOpenSocket);
  set(CURLOPT_OPENSOCKETDATA, this);
  if (request.method == "GET" && request.body.empty()) {
    set(CURLOPT_HTTPGET, 1L);
  } else if (head_request_ && request.body.empty()) {
    set(CURLOPT_NOBODY, 1L);
  } else {
    if (!request.body.empty() || request.method == "POST") {
      set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body_.size()));
      set(CURLOPT_POSTFIELDS, body_.data());
    }
    if (request.method != "POST") set(CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (rc != CURLE_OK) {
    return absl::InternalError(
        absl::StrCat(what_, ": libcurl refused an option: ", curl_easy_strerror(rc)));
  }
  if (CURLMcode mc = curl_multi_add_handle(multi_, easy_); mc != CURLM_OK) {
    return absl::InternalError(absl::StrCat(what_, ": libcurl: ", curl_multi_strerror(mc)));
  }
  return absl::OkStatus();
}

void CurlResponse::Run() {
  bool done = false;
  CURLcode result = CURLE_OK;
  while (!done) {
    bool resume = false;
    {
      absl::MutexLock lock(&mu_);
      if (closed_) break;
      if (paused_ && buffer_.size() < kMaxUnreadBodyBytes / 2) {
        paused_ = false;
        resume = true;
      }
    }
    // Outside the lock: resuming delivers the held bytes to OnBody at once.
    if (resume) curl_easy_pause(easy_, CURLPAUSE_CONT);
    int running = 0;
    if (CURLMcode mc = curl_multi_perform(multi_, &running); mc != CURLM_OK) {
      result = CURLE_RECV_ERROR;
      done = true;
      break;
    }
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
      if (message->msg == CURLMSG_DONE) {
        result = message->data.result;
        done = true;
      }
    }
    if (!done) curl_multi_poll(multi_, nullptr, 0, kPollSliceMs, nullptr);
  }
  // Dropping the handle drops the connection: for a stream that is how the server learns the
  // client lost interest.
  curl_multi_remove_handle(multi_, easy_);
  curl_easy_cleanup(easy_);
  easy_ = nullptr;
  Finish(done ? result : CURLE_ABORTED_BY_CALLBACK);
}

void CurlResponse::Finish(CURLcode code) {
  absl::Status head_result;
  {
    absl::MutexLock lock(&mu_);
    finished_ = true;
    if (end_.ok()) {
      if (closed_) {
        end_ = absl::CancelledError(absl::StrCat(what_, ": the response was closed"));
      } else if (code != CURLE_OK) {
        end_ = ErrorFor(code);
      } else if (!head_done_) {
        end_ = absl::UnavailableError(absl::StrCat(what_, ": the server sent no response head"));
      }
    }
    head_result = end_;
    WakeReaderLocked();
  }
  if (!head_done_) HeadArrived(head_result);
  clock_.Wake();
}

absl::Status CurlResponse::ErrorFor(CURLcode code) {
  if (code == CURLE_COULDNT_CONNECT && !refused_.ok()) return refused_;
  std::string reason = curl_easy_strerror(code);
  if (error_buffer_[0] != '\0') absl::StrAppend(&reason, " (", error_buffer_, ")");
  if (code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL) {
    return absl::InvalidArgumentError(absl::StrCat(what_, ": ", reason));
  }
  // Asking again will not help: no such host, or a certificate this network does not trust.
  if (code == CURLE_COULDNT_RESOLVE_HOST) {
    return absl::FailedPreconditionError(
        absl::StrCat(what_, ": the host name does not resolve: ", reason));
  }
  if (code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE) {
    return absl::FailedPreconditionError(
        absl::StrCat(what_, ": the server's certificate is not trusted: ", reason));
  }
  if (head_done_) {
    return absl::UnavailableError(
        absl::StrCat(what_, ": the connection broke after ", received_, " body bytes: ", reason));
  }
  return absl::UnavailableError(absl::StrCat(what_, ": no response: ", reason));
}

absl::Status CurlResponse::WaitForHead(absl::Time deadline) {
  if (!clock_.WaitUntil(head_arrived_, deadline)) {
    return absl::DeadlineExceededError(
        absl::StrCat(what_, ": the response's status and headers had not arrived by the deadline"));
  }
  return head_result_;
}

absl::StatusOr<std::string> CurlResponse::Read(absl::Time deadline) {
  for (;;) {
    absl::Notification arrived;
    std::string bytes;
    bool wake_transfer = false;
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return absl::CancelledError(absl::StrCat(what_, ": the response was closed"));
      if (buffer_.empty() && finished_) {
        if (!end_.ok()) return end_;
        return std::string();
      }
      if (buffer_.empty()) {
        waiter_ = &arrived;
      } else {
        bytes.swap(buffer_);
        wake_transfer = paused_;
      }
    }
    if (!bytes.empty()) {
      if (wake_transfer) curl_multi_wakeup(multi_);  // there is room again: resume the transfer
      return bytes;
    }
    bool notified = clock_.WaitUntil(arrived, deadline);
    absl::MutexLock lock(&mu_);
    if (waiter_ == &arrived) waiter_ = nullptr;
    if (!notified && buffer_.empty() && !finished_ && !closed_) {
      // Nothing is lost: bytes that arrive later wait in the buffer for the next Read.
      return absl::DeadlineExceededError(
          absl::StrCat(what_, ": no body bytes arrived by the deadline"));
    }
  }
}

void CurlResponse::Close() {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
    WakeReaderLocked();
  }
  clock_.Wake();
  if (multi_ != nullptr) curl_multi_wakeup(multi_);
}

void CurlResponse::WakeReaderLocked() {
  if (waiter_ != nullptr) {
    waiter_->Notify();
    waiter_ = nullptr;
  }
}

void CurlResponse::HeadArrived(absl::Status result) {
  head_done_ = true;
  head_result_ = std::move(result);
  head_arrived_.Notify();
  clock_.Wake();
}

std::size_t CurlResponse::OnHeader(char* data, std::size_t size, std::size_t count, void* self) {
  return static_cast<CurlResponse*>(self)->HeaderLine(std::string_view(data, size * count));
}

std::size_t CurlResponse::HeaderLine(std::string_view raw) {
  if (head_done_) return raw.size();  // trailers after a chunked body: not part of the head
  std::string_view line = TrimLineEnd(raw);
  if (line.substr(0, 5) == "HTTP/") {
    // A status line: the first, or the final one after an interim 1xx answer.
    headers_.clear();
    std::size_t space = line.find(' ');
    int status = 0;
    if (space == std::string_view::npos ||
        !absl::SimpleAtoi(ToAbsl(line.substr(space + 1, 3)), &status)) {
      return 0;
    }
    status_ = status;
    return raw.size();
  }
  if (!line.empty()) {
    if ((line.front() == ' ' || line.front() == '\t') && !headers_.empty()) {
      absl::StrAppend(&headers_.back().second, " ", ToAbsl(TrimSpace(line)));  // obsolete fold
    } else if (std::size_t colon = line.find(':'); colon != std::string_view::npos) {
      headers_.emplace_back(std::string(line.substr(0, colon)),
                            std::string(TrimSpace(line.substr(colon + 1))));
    }
    return raw.size();
  }
  if (status_ < 200) return raw.size();  // the end of an interim answer's head
  // The end of the final head: a declared length over the limit is refused before any body.
  std::optional<std::string> length = FindHeader(headers_, "Content-Length");
  std::uint64_t declared = 0;
  if (!head_request_ && status_ != 204 && status_ != 304 && length.has_value() &&
      !FindHeader(headers_, "Transfer-Encoding").has_value() &&
      absl::SimpleAtoi(*length, &declared) && declared > max_body_bytes_) {
    absl::Status over = absl::ResourceExhaustedError(
        absl::StrCat(what_, ": response body of ", declared, " bytes exceeds ", max_body_bytes_));
    {
      absl::MutexLock lock(&mu_);
      end_ = over;
    }
    return 0;  // ends the transfer; Finish reports end_
  }
  HeadArrived(absl::OkStatus());
  return raw.size();
}

std::size_t CurlResponse::OnBody(char* data, std::size_t size, std::size_t count, void* self) {
  return static_cast<CurlResponse*>(self)->Body(std::string_view(data, size * count));
}

std::size_t CurlResponse::Body(std::string_view bytes) {
  std::size_t taken = bytes.size();
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return 0;  // ends the transfer
    if (buffer_.size() >= kMaxUnreadBodyBytes) {
      paused_ = true;
      return CURL_WRITEFUNC_PAUSE;  // libcurl keeps these bytes and offers them again
    }
    std::size_t room = max_body_bytes_ - received_;
    if (bytes.size() > room) {
      // The bytes up to the limit are still read; the Read after them fails, never a silent cut.
      bytes = bytes.substr(0, room);
      end_ = absl::ResourceExhaustedError(
          absl::StrCat(what_, ": response body exceeds ", max_body_bytes_, " bytes"));
      taken = 0;  // ends the transfer
    }
    buffer_.append(bytes);
    received_ += bytes.size();
    WakeReaderLocked();
  }
  clock_.Wake();
  return taken;
}

curl_socket_t CurlResponse::OnOpenSocket(void* self, curlsocktype purpose, curl_sockaddr* address) {
  auto* response = static_cast<CurlResponse*>(self);
  if (response->loopback_only_ && !IsLoopback(&address->addr)) {
    response->refused_ = absl::PermissionDeniedError(
        absl::StrCat(response->what_, ": address ", AddressText(&address->addr),
                     " is not loopback, and this network reaches only loopback addresses"));
    return CURL_SOCKET_BAD;
  }
  // Close-on-exec: a process the launcher starts must not hold our connections open.
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

}  // namespace agentrt::world::internal
