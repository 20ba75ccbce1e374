#include "tools/agentrt/mcp_shared.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mcp/load_all.h"
#include "mcp/manifest.h"
#include "mcp/pin.h"
#include "runtime/base/string_view.h"
#include "runtime/json/sanitize.h"
#include "runtime/json/utf8.h"
#include "runtime/world/real_filesystem.h"
#include "tools/agentrt/command_line.h"
#include "tools/agentrt/real_world.h"

namespace agentrt::cli {
namespace {

// Pads `text` to `width` characters (code points, not bytes), never cutting it.
std::string Pad(const std::string& text, std::size_t width) {
  std::size_t chars = 0;
  for (unsigned char c : text) chars += json::IsContinuationByte(c) ? 0 : 1;
  return chars >= width ? text : text + std::string(width - chars, ' ');
}

}  // namespace

std::string OneLine(std::string_view text, int max_bytes) {
  std::string collapsed;
  bool space = false;
  for (char c : text) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !collapsed.empty()) collapsed.push_back(' ');
    space = false;
    collapsed.push_back(c);
  }
  return json::Truncate(json::Sanitize(collapsed), max_bytes);
}

std::string HintsText(const std::optional<mcp::Annotations>& annotations) {
  if (!annotations.has_value()) return "no hints";
  std::vector<std::string> hints;
  if (annotations->read_only_hint == true) hints.push_back("read-only");
  if (annotations->destructive_hint == true) hints.push_back("destructive");
  if (annotations->destructive_hint == false) hints.push_back("not destructive");
  if (annotations->idempotent_hint == true) hints.push_back("idempotent");
  if (annotations->open_world_hint == true) hints.push_back("open-world");
  if (annotations->open_world_hint == false) hints.push_back("closed-world");
  return hints.empty() ? "no hints" : absl::StrJoin(hints, ", ");
}

std::string ListingLines(const std::vector<mcp::ListedTool>& tools,
                         const std::vector<std::string>& extra) {
  std::string out;
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const mcp::ListedTool& tool = tools[i];
    absl::StrAppend(&out, "  ", Pad(json::Sanitize(tool.name), 28), "  ",
                    Pad(HintsText(tool.annotations), 38), "  ");
    if (i < extra.size() && !extra[i].empty()) absl::StrAppend(&out, extra[i], "  ");
    absl::StrAppend(&out, OneLine(tool.description, 72), "\n");
  }
  return out;
}

std::optional<mcp::Config> LoadConfig(Io& io, std::string_view command, const std::string& path,
                                      int* exit) {
  if (path.empty()) {
    *exit = UsageError(io, command, "--config FILE is required");
    return std::nullopt;
  }
  world::RealFilesystem files;
  absl::StatusOr<mcp::Config> config = mcp::ReadConfig(files, path);
  if (!config.ok()) {
    *exit = Failure(io, command, ToStd(config.status().message()));
    return std::nullopt;
  }
  return *std::move(config);
}

int PinServers(Io& io, std::string_view command,
               const std::vector<const mcp::ServerConfig*>& servers, const world::World& world) {
  int status = kExitOk;
  for (const mcp::ServerConfig* s : servers) {
    absl::StatusOr<mcp::Manifest> manifest = mcp::Pin(mcp::ServerOf(*s), world);
    if (!manifest.ok()) {
      status = Failure(io, command, ToStd(manifest.status().message()));
      continue;
    }
    if (absl::Status written = mcp::WriteManifest(*world.filesystem, s->manifest, *manifest);
        !written.ok()) {
      status = Failure(io, command, ToStd(written.message()));
      continue;
    }
    std::vector<mcp::ListedTool> tools;
    for (const auto& [name, pinned] : manifest->tools) {
      tools.push_back({pinned.name, pinned.description, pinned.input_schema, pinned.annotations});
    }
    io.out << json::Sanitize(s->name) << ": pinned " << tools.size() << " tools to "
           << json::Sanitize(s->manifest)
           << ", with the server's own hints, which classify nothing:\n"
           << ListingLines(tools);
  }
  return status;
}

std::vector<const mcp::ServerConfig*> SelectServers(const mcp::Config& config,
                                                    const std::string& only, bool* unknown) {
  std::vector<const mcp::ServerConfig*> out;
  for (const mcp::ServerConfig& s : config.servers) {
    if (only.empty() || s.name == only) out.push_back(&s);
  }
  *unknown = !only.empty() && out.empty();
  return out;
}

int PinConfigured(Io& io, std::string_view command, const std::string& config_path,
                  const std::string& only, std::string_view next) {
  int exit = kExitOk;
  std::optional<mcp::Config> config = LoadConfig(io, command, config_path, &exit);
  if (!config) return exit;
  bool unknown = false;
  std::vector<const mcp::ServerConfig*> servers = SelectServers(*config, only, &unknown);
  if (unknown) return UsageError(io, command, "no configured server is named that");
  absl::StatusOr<std::unique_ptr<RealWorld>> world = RealWorld::Create();
  if (!world.ok()) return Failure(io, command, ToStd(world.status().message()));
  int status = PinServers(io, command, servers, (*world)->world());
  if (status == kExitOk) io.out << next << json::Sanitize(config_path) << "\n";
  return status;
}

}  // namespace agentrt::cli
