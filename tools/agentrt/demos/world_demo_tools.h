// tools/agentrt/demos/world_demo_tools.h
//
// Two tools that touch the world, for `agentrt demo world` (and the tests and benchmark that
// record and replay such a run): count_words runs `wc -w` as a child process through the
// world's Launcher, fetch asks an HTTP server through the world's Network. Neither knows whether
// the world is real, recorded or replayed; that is the point.
#pragma once

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"
#include "runtime/json/members.h"
#include "runtime/tool.h"
#include "runtime/world/launcher.h"
#include "runtime/world/network.h"

namespace agentrt::cli {

// count_words {"text": "..."}: the number of words `wc -w` counts in the text.
class CountWordsTool final : public Tool {
 public:
  // `launcher` must outlive this. `path` is the child's PATH.
  explicit CountWordsTool(world::Launcher& launcher, std::string path = "/usr/bin:/bin")
      : launcher_(launcher), path_(std::move(path)) {}

  ToolSpec Spec() const override {
    return {"count_words",
            "Count the words of a text with wc.",
            R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"],)"
            R"("additionalProperties":false})",
            SideEffect::kReadOnly,
            absl::Seconds(10),
            false};
  }

  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    absl::StatusOr<json::Document> args = json::Parse(call.args);
    if (!args.ok()) return args.status();
    std::string text = json::MemberText(args->root(), "text");
    absl::StatusOr<std::unique_ptr<world::Process>> wc =
        launcher_.Start({.argv = {"wc", "-w"}, .env = {"PATH=" + path_, "LC_ALL=C"}});
    if (!wc.ok()) return wc.status();
    if (absl::Status s = (*wc)->Write(text, call.deadline); !s.ok()) return s;
    if (absl::Status s = (*wc)->CloseStdin(); !s.ok()) return s;
    std::string out;
    for (;;) {
      absl::StatusOr<std::string> chunk = (*wc)->Read(call.deadline);
      if (!chunk.ok()) return chunk.status();
      if (chunk->empty()) break;
      out += *chunk;
    }
    absl::StatusOr<world::ExitStatus> exit = (*wc)->Wait(call.deadline);
    if (!exit.ok()) return exit.status();
    if (exit->code != 0) {
      return absl::UnavailableError(absl::StrCat("wc ended with ", world::ToString(*exit)));
    }
    std::int64_t words = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(out), &words)) {
      return absl::InternalError("wc printed something other than a count");
    }
    return ToolResult{json::JsonObject().Int("words", words).Build(),
                      absl::StrCat(words, " words")};
  }

 private:
  world::Launcher& launcher_;
  const std::string path_;
};

// fetch {"path": "/..."}: GET base_url + path; the status and the body as text.
class FetchTool final : public Tool {
 public:
  // `network` must outlive this.
  FetchTool(world::Network& network, std::string base_url)
      : network_(network), base_url_(std::move(base_url)) {}

  ToolSpec Spec() const override {
    return {"fetch",
            "Fetch a page from the team's status server.",
            R"({"type":"object","properties":{"path":{"type":"string","pattern":"^/"}},)"
            R"("required":["path"],"additionalProperties":false})",
            SideEffect::kReadOnly,
            absl::Seconds(10),
            false};
  }

  absl::StatusOr<ToolResult> Call(const ToolCall& call) override {
    absl::StatusOr<json::Document> args = json::Parse(call.args);
    if (!args.ok()) return args.status();
    world::HttpRequest request;
    request.url = base_url_ + json::MemberText(args->root(), "path");
    request.headers = {{"Accept", "application/json"}};
    absl::StatusOr<std::unique_ptr<world::HttpResponse>> response =
        network_.Send(request, call.deadline);
    if (!response.ok()) return response.status();
    absl::StatusOr<std::string> body = world::ReadBody(**response, call.deadline);
    if (!body.ok()) return body.status();
    return ToolResult{
        json::JsonObject().Int("status", (*response)->status()).String("body", *body).Build(),
        absl::StrCat("HTTP ", (*response)->status(), ", ", body->size(), " bytes")};
  }

 private:
  world::Network& network_;
  const std::string base_url_;
};

}  // namespace agentrt::cli
