// fake_browser: what $BROWSER runs in the `agentrt mcp login` tests. It opens the address it is
// given as a browser whose operator already consented would: GET, then follow each redirect
// (at most five), over loopback only, and exits 0 once a page answers 200. Test-only.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "runtime/world/clock.h"
#include "runtime/world/curl_network.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fake_browser URL\n";
    return 2;
  }
  agentrt::world::RealClock clock;
  auto network = agentrt::world::CurlNetwork::Create(
      clock, {.loopback_only = true, .proxy_from_environment = false});
  if (!network.ok()) return 1;
  std::string url = argv[1];
  for (int hop = 0; hop <= 5; ++hop) {
    agentrt::world::HttpRequest request;
    request.url = url;
    auto response = (*network)->Send(request, clock.Now() + absl::Seconds(10));
    if (!response.ok()) {
      std::cerr << "fake_browser: " << response.status() << "\n";
      return 1;
    }
    int status = (*response)->status();
    std::optional<std::string> location =
        agentrt::world::FindHeader((*response)->headers(), "Location");
    (*response)->Close();
    if (status == 200) return 0;
    if (status < 300 || status >= 400 || !location) {
      std::cerr << "fake_browser: HTTP " << status << "\n";
      return 1;
    }
    url = *location;
  }
  return 1;
}
