// A raw JSON-RPC MCP server over stdio for the client's tests: one program, one behaviour per
// mode (argv[1]), so the tests start a real child process and speak real bytes to it.
//
//   fake_mcp_server normal      initialize, tools/list (read_file, write_file), tools/call echoes
//   fake_mcp_server version V   as normal, but initialize answers protocol version V
//   fake_mcp_server chatty      before each answer: a ping and a sampling request (string ids),
//                               a log notification, a response with a wrong id and a line that
//                               is not JSON; the answers to its own requests are printed to
//                               stderr ("answer: <json>")
//   fake_mcp_server env         tools/call answers the environment it got, one NAME=value a line
//   fake_mcp_server fail-start  prints "oops: missing config" to stderr and exits 1 at once
//   fake_mcp_server flood N     prints N bytes of stderr, then "the end", and exits 1
//   fake_mcp_server die-on-list prints "listing refused: no licence" to stderr at tools/list
//                               and exits
//   fake_mcp_server hang-init   never answers initialize
//   fake_mcp_server noisy-init  at initialize prints three lines that are not JSON-RPC (the last
//                               a terminal escape and 500 x's), then never answers it
//   fake_mcp_server noisy-list  answers initialize; at tools/list prints those lines, then never
//                               answers it
//   fake_mcp_server hang-call   answers everything but tools/call
//   fake_mcp_server die-on-call exits (closing its pipes) at tools/call
//   fake_mcp_server errors      answers every request with a JSON-RPC error whose message holds
//                               terminal escapes
//   fake_mcp_server grandchild  as hang-call, and first starts a grandchild that ignores SIGTERM,
//                               SIGINT and SIGHUP, printing its pid to stderr ("grandchild N")
//   fake_mcp_server scripted D  answers from files the test writes in folder D, read at each
//                               request (so a test changes the server between pin and load):
//                               tools/list: D/tools.json (or D/tools-<cursor>.json), the whole
//                               `result`, or no answer when D/tools.hang exists; tools/call of T:
//                               D/call-T.json, the whole `result`, or no answer when D/call-T.hang
//                               exists, or an exit when D/call-T.exit exists, and only once the
//                               named pipe whose path D/call-T.wait holds was written to, when
//                               that file exists (a server the test holds mid-call);
//                               every call's params are appended to D/calls.log, one line each
// Test-only.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/json/canonical_json.h"
#include "runtime/json/intake.h"
#include "runtime/json/json_object.h"

extern char** environ;

namespace {

using agentrt::json::JsonObject;
using agentrt::json::JsonString;

std::string mode;
std::string version = "2025-11-25";
std::string script_dir;  // scripted mode

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

void Say(const std::string& line) {
  std::cout << line << "\n";
  std::cout.flush();
}

std::string Result(const std::string& id, const std::string& result) {
  return JsonObject().String("jsonrpc", "2.0").Raw("id", id).Raw("result", result).Build();
}

std::string Tools() {
  return R"({"tools":[{"name":"read_file","description":"Read a file.","annotations":)"
         R"({"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"path":)"
         R"({"type":"string"}},"required":["path"]}},{"name":"write_file","description":)"
         R"("Write a file.","inputSchema":{"type":"object","properties":{"path":{"type":)"
         R"("string"},"text":{"type":"string"}},"required":["path","text"]}}]})";
}

void Chatter() {
  Say(R"({"jsonrpc":"2.0","id":"srv-1","method":"ping"})");
  Say(R"({"jsonrpc":"2.0","id":"srv-2","method":"sampling/createMessage","params":{}})");
  Say(R"({"jsonrpc":"2.0","id":3,"method":""})");
  Say(R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}})");
  Say(R"({"jsonrpc":"2.0","id":987654,"result":{"stale":true}})");
  Say("this is not JSON-RPC");
}

// Lines a server that logs on stdout might print: none of them a JSON-RPC message.
void Noise() {
  Say("[info] starting up");
  Say(R"({"jsonrpc":"2.0",)");
  Say("\x1b]0;owned\x07" + std::string(500, 'x'));
}

void Serve(const std::string& line) {
  absl::StatusOr<agentrt::json::Document> doc = agentrt::json::Parse(line);
  if (!doc.ok() || !doc->root().is_object()) return;
  agentrt::json::Value root = doc->root();
  std::optional<agentrt::json::Value> id_value = root.Find("id");
  std::optional<agentrt::json::Value> method_value = root.Find("method");
  if (!method_value) {
    // An answer to one of our requests.
    std::cerr << "answer: " << agentrt::json::WriteCanonical(root) << std::endl;
    return;
  }
  std::string method(method_value->string_value());
  if (!id_value) return;  // a notification
  std::string id = agentrt::json::WriteCanonical(*id_value);
  if (mode == "errors") {
    Say(JsonObject()
            .String("jsonrpc", "2.0")
            .Raw("id", id)
            .Raw("error", JsonObject()
                              .Int("code", -32000)
                              .String("message", "\x1b[2K\rpinned 3 tools OK\x1b]0;owned\x07")
                              .Build())
            .Build());
    return;
  }
  if (mode == "chatty") Chatter();
  if (mode == "scripted" && method == "tools/list") {
    if (Exists(script_dir + "/tools.hang")) return;
    std::optional<agentrt::json::Value> params = root.Find("params");
    std::optional<agentrt::json::Value> cursor;
    if (params) cursor = params->Find("cursor");
    std::string file = cursor
                           ? script_dir + "/tools-" + std::string(cursor->string_value()) + ".json"
                           : script_dir + "/tools.json";
    Say(absl::StrCat(R"({"jsonrpc":"2.0","id":)", id, R"(,"result":)", ReadText(file), "}"));
    return;
  }
  if (mode == "scripted" && method == "tools/call") {
    std::optional<agentrt::json::Value> params = root.Find("params");
    std::string name;
    if (params) {
      std::ofstream(script_dir + "/calls.log", std::ios::app)
          << agentrt::json::WriteCanonical(*params) << "\n";
      if (std::optional<agentrt::json::Value> n = params->Find("name")) {
        name = std::string(n->string_value());
      }
    }
    std::string base = absl::StrCat(script_dir, "/call-", name);
    if (Exists(base + ".hang")) return;
    if (Exists(base + ".exit")) std::exit(5);
    if (Exists(base + ".wait")) {
      // Held until the test lets it go: opening the named pipe the file names blocks until the
      // test opens it for writing, and the read until it writes (or closes it).
      std::string fifo(absl::StripAsciiWhitespace(ReadText(base + ".wait")));
      int fd = ::open(fifo.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        char byte;
        (void)!::read(fd, &byte, 1);
        ::close(fd);
      }
    }
    Say(absl::StrCat(R"({"jsonrpc":"2.0","id":)", id, R"(,"result":)", ReadText(base + ".json"),
                     "}"));
    return;
  }
  if (method == "initialize") {
    if (mode == "hang-init") return;
    if (mode == "noisy-init") return Noise();
    Say(Result(id, JsonObject()
                       .String("protocolVersion", version)
                       .Raw("capabilities", R"({"tools":{}})")
                       .Raw("serverInfo", R"({"name":"fake","version":"1"})")
                       .Build()));
  } else if (method == "tools/list") {
    if (mode == "noisy-list") return Noise();
    if (mode == "die-on-list") {
      std::cerr << "listing refused: no licence" << std::endl;
      std::exit(3);
    }
    Say(Result(id, Tools()));
  } else if (method == "tools/call") {
    if (mode == "hang-call" || mode == "grandchild") return;
    if (mode == "die-on-call") std::exit(4);
    std::string text;
    if (mode == "env") {
      for (char** e = environ; *e != nullptr; ++e) absl::StrAppend(&text, *e, "\n");
    } else {
      std::optional<agentrt::json::Value> params = root.Find("params");
      text = params ? agentrt::json::WriteCanonical(*params) : "{}";
    }
    Say(Result(
        id, JsonObject()
                .Raw("content",
                     "[" + JsonObject().String("type", "text").String("text", text).Build() + "]")
                .Build()));
  } else {
    Say(JsonObject()
            .String("jsonrpc", "2.0")
            .Raw("id", id)
            .Raw("error", R"({"code":-32601,"message":"not here"})")
            .Build());
  }
}

}  // namespace

int main(int argc, char** argv) {
  mode = argc > 1 ? argv[1] : "normal";
  if (mode == "version" && argc > 2) version = argv[2];
  if (mode == "scripted" && argc > 2) script_dir = argv[2];
  if (mode == "fail-start") {
    std::cerr << "oops: missing config" << std::endl;
    return 1;
  }
  if (mode == "flood") {
    long n = 0;
    if (argc > 2) (void)absl::SimpleAtoi(argv[2], &n);
    std::string bytes(static_cast<std::size_t>(n), 'x');
    std::cerr << bytes << "the end" << std::endl;
    return 1;
  }
  if (mode == "grandchild") {
    pid_t pid = fork();
    if (pid == 0) {
      signal(SIGTERM, SIG_IGN);
      signal(SIGINT, SIG_IGN);
      signal(SIGHUP, SIG_IGN);
      for (;;) pause();
    }
    std::cerr << "grandchild " << pid << std::endl;
  }
  std::string line;
  while (std::getline(std::cin, line)) Serve(line);
  return 0;
}
