// runtime/world/curl_network.h
//
// The real Network (network.h), over libcurl: what the MCP client's HTTP transport and the
// provider adapters use in production. Its own library, agentrt::world_net, so that only what
// reaches the network links libcurl.
//
// What it promises beyond network.h's contract:
//  - Send returns as soon as the status and headers arrived; the body then streams: each
//    response runs its transfer on a thread of its own and keeps at most about 1 MiB that was
//    not read yet (past that the transfer pauses, so the server waits, until Read takes it).
//  - Deadlines are on the injected Clock: Send and Read wait with Clock::WaitUntil.
//  - No redirect is followed; no proxy is used unless proxy_from_environment says so; TLS
//    certificates and host names are always verified; no cookie, no .netrc, no compression (a
//    body is counted, and capped, in the bytes the server sent).
//  - A loopback-only network refuses, before connecting, every address that is not loopback,
//    checked on the address the name resolved to; it never uses a proxy (a proxy would reach
//    any address on its behalf), so a proxy in the environment changes nothing for it.
//  - No process-global handle: every response has its own, freed when it is.
//  - Error messages name the method and the URL (without user information), never a header
//    value or the body.
//
// Thread-safe: Send may be called from any number of threads at once. A response may be read
// from one thread at a time and closed from any. The clock must outlive the network and every
// response it returned.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/world/clock.h"
#include "runtime/world/network.h"

namespace agentrt::world {

struct CurlNetworkOptions {
  // Refuse every address that is not loopback (127.0.0.0/8, ::1) with PermissionDenied.
  bool loopback_only = false;
  // Honour http_proxy, https_proxy, all_proxy and no_proxy as libcurl reads them (lowercase
  // http_proxy only); false: never use a proxy.
  bool proxy_from_environment = true;
  // How long connecting (TCP and TLS) may take, in real time; Send's deadline still applies.
  absl::Duration connect_timeout = absl::Seconds(30);
  // A PEM file of the certificate authorities to trust; "" is the system's store. Verification
  // itself cannot be turned off.
  std::string ca_file;
};

class CurlNetwork final : public Network {
 public:
  // Create initializes libcurl (thread-safe in the libcurl this builds against) and checks the
  // options. Errors: InvalidArgument for a connect_timeout that is not positive or a ca_file
  // that cannot be read; FailedPrecondition for a libcurl that cannot be used from threads.
  static absl::StatusOr<std::unique_ptr<CurlNetwork>> Create(const Clock& clock,
                                                             CurlNetworkOptions options = {});

  absl::StatusOr<std::unique_ptr<HttpResponse>> Send(const HttpRequest& request,
                                                     absl::Time deadline) override;

 private:
  CurlNetwork(const Clock& clock, CurlNetworkOptions options);

  const Clock& clock_;
  const CurlNetworkOptions options_;
};

}  // namespace agentrt::world
