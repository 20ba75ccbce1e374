#include "sim/provider_cassette.h"

#include <filesystem>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/replay/cassette.h"
#include "runtime/replay/cassette_file.h"
#include "runtime/replay/proto/cassette.pb.h"
#include "sim/scenario_limits.h"

namespace agentrt::sim {
namespace {

// The path a provider of `kind` answers its requests at.
std::string_view PathOf(std::string_view kind) {
  if (kind == "anthropic") return "/v1/messages";
  if (kind == "openai") return "/chat/completions";
  return "/api/chat";
}

// The path of `url`, without its query.
std::string_view UrlPath(std::string_view url) {
  std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return "";
  std::size_t path = url.find('/', scheme + 3);
  if (path == std::string_view::npos) return "";
  url.remove_prefix(path);
  return url.substr(0, url.find_first_of("?#"));
}

}  // namespace

absl::Status LoadProviderCassette(world::Filesystem& files, const std::string& scenario_path,
                                  v1::Provider& provider) {
  const std::string& name = provider.cassette();
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        scenario_path, ": agent.provider.cassette: ", json::Quoted(name, 200), " ", ToAbsl(why)));
  };
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return refuse("is not a file name in the scenario's folder");
  }
  if (provider.exchanges_size() > 0) return refuse("is given with exchanges: give one of them");
  std::string path =
      (std::filesystem::path(scenario_path).parent_path() / name).lexically_normal().string();
  AGENTRT_ASSIGN_OR_RETURN(replay::Cassette cassette, replay::ReadCassette(files, path));

  // Each provider request's answer, by the response's number: status, headers, body, cut.
  std::map<std::uint32_t, v1::ProviderExchange*> answers;
  const std::string_view wanted = PathOf(provider.kind());
  for (std::size_t i = 0; i < cassette.size(); ++i) {
    const replay::v1::Exchange& e = cassette.exchange(i);
    if (!e.has_http()) continue;
    if (e.http().has_send()) {
      const replay::v1::HttpSend& send = e.http().send();
      if (!UrlPath(send.url()).ends_with(wanted)) continue;
      if (provider.exchanges_size() == kMaxSteps) {
        return refuse(
            absl::StrCat("holds more than ", kMaxSteps, " provider requests (the limit)"));
      }
      v1::ProviderExchange* x = provider.add_exchanges();
      if (send.has_error()) {
        // No answer came: the connection broke before the head.
        x->set_status(200);
        x->set_cut(true);
        continue;
      }
      x->set_status(send.status());
      for (const replay::v1::Field& f : send.response_headers()) {
        v1::Header* h = x->add_headers();
        h->set_name(f.name());
        h->set_value(f.value());
      }
      answers[send.response()] = x;
    } else if (e.http().has_read()) {
      const replay::v1::HttpRead& read = e.http().read();
      auto it = answers.find(read.response());
      if (it == answers.end()) continue;
      if (read.has_error()) {
        it->second->set_cut(true);
      } else {
        it->second->mutable_body()->append(read.data());
      }
    }
  }
  if (provider.exchanges_size() == 0) {
    return refuse(absl::StrCat("holds no request to ", ToAbsl(wanted), " (a ", provider.kind(),
                               " provider's)"));
  }
  provider.clear_cassette();
  return absl::OkStatus();
}

}  // namespace agentrt::sim
