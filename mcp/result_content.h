// mcp/result_content.h
//
// What a tool call's result becomes in the run (docs/mcp.md, "What a call does"): the content
// recorded as the observation, bounded by a cap on its encoded size, and a one-line summary. Read
// from the RAW `result` bytes of the tools/call response, so structured content keeps its numbers'
// digits. Structured content is kept as JSON when it fits the cap; otherwise the text blocks
// stand in for it (images, audio and resources become placeholders), cut so that the JSON
// string recorded never exceeds the cap, with a visible marker. Structured content is kept
// whatever it holds: a server that copies an image's base64 into it (the filesystem server's
// read_media_file does) gets it to the model when it fits the cap.
//
// A result that asks for more input (the 2026-07-28 protocol's multi round-trip requests
// in MCP's specification) is never answered on the model's behalf: it is reported as
// input_required and the adapter refuses the call.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace agentrt::mcp {

inline constexpr std::size_t kDefaultMaxContentBytes = 65536;
// Newline then "[truncated]": 12 bytes, 13 JSON-escaped, 15 with the string's quotes, which is
// the smallest cap the marker fits.
inline constexpr std::string_view kTruncationMarker = "\n[truncated]";
inline constexpr std::size_t kSmallestCap = 15;
inline constexpr std::string_view kStructuredDropped = "[structured content dropped: too large]";

struct CappedText {
  std::string json;  // the JSON string literal recorded: at most max(cap, 15) bytes
  std::string text;  // what it holds: the text, or a prefix of it and the marker
  bool truncated = false;
};

// CapText is `text` as a canonical JSON string literal (json::JsonString: only `"`, `\` and
// control characters escaped; each run of bytes that is not UTF-8 one U+FFFD) when that fits in
// `cap` bytes. Otherwise the longest prefix that fits with kTruncationMarker after it (the cap
// raised to 15 when smaller), cut before a character, never inside one; the escapes count as
// the bytes they take (a U+0001 takes 6).
CappedText CapText(std::string_view text, std::size_t cap);

struct MappedResult {
  std::string content;     // the recorded JSON: the structured content, or a JSON string
  std::string summary;     // `<server>/<tool>: <n> bytes[, truncated][, structured content of <d>
                           // bytes dropped for the text]`
  bool is_error = false;   // the server said isError: the call failed with error_text
  std::string error_text;  // `<summary>, error: <text>` when is_error
  bool input_required = false;  // the server asked for input; nothing else is set
};

// MapCallResult maps a tools/call result. `cap` bounds the recorded content (0 means
// kDefaultMaxContentBytes). Content blocks: text as is; image, audio, resource_link and
// resource as `[image omitted]`, `[audio omitted]`, `[resource link omitted]`,
// `[embedded resource omitted]`; any other type `[content omitted]`; joined with "\n".
// input_required when the result has `resultType` "input_required" or carries
// `inputRequests`. Errors, InvalidArgument:
//   `the tools/call result: <intake error>`, `the tools/call result is not a JSON object`,
//   `the tools/call result's "content" is not an array`, `... "isError" is not a boolean`,
//   `... content[<i>] is not a JSON object`, `... content[<i>] is a text block without text`.
absl::StatusOr<MappedResult> MapCallResult(std::string_view result_json, std::string_view server,
                                           std::string_view remote_tool, std::size_t cap);

}  // namespace agentrt::mcp
