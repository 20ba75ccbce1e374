// The layout's plain facts, checked on the source tree itself (docs/architecture.md,
// runtime/README.md): nothing in the engine touches the operating system's time, threads,
// processes, sockets or files except through the injected world; the runtime's SQL lives in one
// file; dependencies point one way; public headers include only public headers; tests make
// their temporary folders through TestFolder. Each rule names the file and line that breaks it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace agentrt {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = AGENTRT_SOURCE_DIR;

struct Source {
  std::string path;                                   // relative to the root, with '/'
  std::string code;                                   // comments removed, string literals kept
  std::vector<std::pair<int, std::string>> literals;  // (line, contents) of string literals
  std::vector<std::pair<int, std::string>> includes;  // (line, "a/b.h")
};

// Splits C++ text into code without comments, its string literals and its includes. Enough of
// a lexer for this tree: line and block comments, string and character literals with escapes,
// raw strings.
Source Lex(const std::string& path, const std::string& text) {
  Source s{path, "", {}, {}};
  int line = 1;
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return k < text.size() ? text[k] : '\0'; };
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      s.code += c;
      ++i;
    } else if (c == '/' && at(i + 1) == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && at(i + 1) == '*') {
      i += 2;
      while (i < text.size() && !(text[i] == '*' && at(i + 1) == '/')) {
        if (text[i] == '\n') {
          ++line;
          s.code += '\n';
        }
        ++i;
      }
      i += 2;
    } else if (c == 'R' && at(i + 1) == '"' &&
               (i == 0 ||
                !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_'))) {
      std::size_t open = text.find('(', i + 2);
      std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      std::size_t end = text.find(close, open);
      std::string body = text.substr(open + 1, end - open - 1);
      s.literals.emplace_back(line, body);
      s.code += "\"\"";
      line += static_cast<int>(std::count(body.begin(), body.end(), '\n'));
      i = end + close.size();
    } else if (c == '"' || c == '\'') {
      std::string body;
      ++i;
      while (i < text.size() && text[i] != c && text[i] != '\n') {
        if (text[i] == '\\') body += text[i++];
        body += text[i++];
      }
      ++i;
      if (c == '"') s.literals.emplace_back(line, body);
      s.code += c == '"' ? "\"\"" : "' '";
    } else {
      s.code += c;
      ++i;
    }
  }
  std::istringstream lines(text);
  std::string l;
  for (int n = 1; std::getline(lines, l); ++n) {
    std::size_t p = l.find("#include \"");
    if (p == std::string::npos || l.find_first_not_of(' ') != p) continue;
    std::size_t start = p + 10, end = l.find('"', start);
    s.includes.emplace_back(n, l.substr(start, end - start));
  }
  return s;
}

std::vector<Source> Sources(std::initializer_list<std::string> folders) {
  std::vector<Source> out;
  for (const std::string& folder : folders) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(kRoot / folder)) {
      std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      out.push_back(Lex(fs::relative(e.path(), kRoot).generic_string(), text.str()));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Source& a, const Source& b) { return a.path < b.path; });
  return out;
}

bool Under(const std::string& path, const std::string& folder) {
  return path.rfind(folder + "/", 0) == 0;
}

int LineOf(const std::string& code, std::size_t offset) {
  return 1 + static_cast<int>(std::count(code.begin(), code.begin() + offset, '\n'));
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Where `token` appears in `code` as a whole token (not inside a longer name).
std::vector<int> Find(const std::string& code, const std::string& token) {
  std::vector<int> lines;
  for (std::size_t p = code.find(token); p != std::string::npos; p = code.find(token, p + 1)) {
    bool starts = p == 0 || !IsWordChar(code[p - 1]) || !IsWordChar(token.front());
    bool ends = p + token.size() >= code.size() || !IsWordChar(code[p + token.size()]) ||
                !IsWordChar(token.back());
    if (starts && ends) lines.push_back(LineOf(code, p));
  }
  return lines;
}

TEST(LayoutTest, TheEngineReachesTheOperatingSystemOnlyThroughTheWorld) {
  // Time, threads, processes, sockets, files and randomness: only runtime/world (the injected
  // world), runtime/store (its SQLite file) and runtime/base (the shared file helpers) may. The
  // MCP client is held to the same rule: it reaches servers through the world only, so every
  // session can be recorded, replayed and simulated.
  const std::vector<std::string> forbidden = {"std::thread",
                                              "std::jthread",
                                              "std::async",
                                              "absl::Now",
                                              "absl::SleepFor",
                                              "RealClock",
                                              "RealScheduler",
                                              "OsEntropy",
                                              "std::chrono::system_clock",
                                              "std::chrono::steady_clock",
                                              "fork",
                                              "vfork",
                                              "posix_spawn",
                                              "execve",
                                              "execvp",
                                              "::socket",
                                              "::connect",
                                              "::bind",
                                              "::listen",
                                              "::accept",
                                              "::open",
                                              "::read",
                                              "::write",
                                              "::close",
                                              "::fsync",
                                              "::rename",
                                              "::unlink",
                                              "mkostemps",
                                              "fopen",
                                              "std::ofstream",
                                              "std::ifstream",
                                              "std::fstream",
                                              "std::random_device",
                                              "rand",
                                              "srand",
                                              "getrandom",
                                              "::getpid",
                                              "::kill",
                                              "::waitpid"};
  std::vector<std::string> found;
  for (const Source& s : Sources({"runtime", "mcp"})) {
    if (Under(s.path, "runtime/world") || Under(s.path, "runtime/store") ||
        Under(s.path, "runtime/base")) {
      continue;
    }
    for (const std::string& token : forbidden) {
      for (int line : Find(s.code, token)) {
        found.push_back(s.path + ":" + std::to_string(line) + ": " + token);
      }
    }
  }
  EXPECT_THAT(found, ::testing::IsEmpty());
}

TEST(LayoutTest, TheRuntimesSqlLivesInRowsAndTheStore) {
  std::vector<std::string> found;
  for (const Source& s : Sources({"runtime", "sim", "tools"})) {
    if (s.path == "runtime/engine/rows.cc" || Under(s.path, "runtime/store")) continue;
    for (const auto& [line, literal] : s.literals) {
      for (const char* verb : {"SELECT ", "UPDATE ", "INSERT ", "DELETE "}) {
        if (literal.rfind(verb, 0) == 0) {
          found.push_back(s.path + ":" + std::to_string(line) + ": " + literal.substr(0, 40));
        }
      }
    }
  }
  EXPECT_THAT(found, ::testing::IsEmpty());
}

TEST(LayoutTest, TestsMakeTheirFoldersThroughTestFolder) {
  // A folder made by hand is left behind when an assertion returns before its removal;
  // TestFolder's is removed when the test ends, however it ends. Benchmarks run no gtest test,
  // so they keep their own.
  std::vector<std::string> found;
  for (const Source& s : Sources({"tests"})) {
    if (s.path == "tests/support/test_folder.cc" || Under(s.path, "tests/bench")) continue;
    for (const char* token : {"TempDir", "temp_directory_path", "mkdtemp"}) {
      for (int line : Find(s.code, token)) {
        found.push_back(s.path + ":" + std::to_string(line) + ": " + token);
      }
    }
  }
  EXPECT_THAT(found, ::testing::IsEmpty());
}

// The part of the tree a file belongs to, for the dependency rule.
std::string PartOf(const std::string& path) {
  for (const char* part :
       {"runtime/base", "runtime/json", "runtime/schema", "runtime/world", "runtime/store",
        "runtime/engine", "runtime/render", "runtime/observe", "runtime/operator", "runtime/replay",
        "sim/testkit", "sim", "tools", "mcp", "providers", "tests", "fuzz"}) {
    if (Under(path, part)) return part;
  }
  if (Under(path, "runtime")) return "runtime";  // the public headers at its top
  return "";
}

TEST(LayoutTest, DependenciesPointOneWay) {
  // What each part may include (docs/architecture.md: base <- json <- schema <- world, store <-
  // runtime (engine, render) <- replay, operator, observe <- mcp, providers <- sim <- tools).
  const std::set<std::string> core = {"runtime/base",   "runtime/json",  "runtime/schema",
                                      "runtime/world",  "runtime/store", "runtime",
                                      "runtime/engine", "runtime/render"};
  auto with = [&](std::initializer_list<std::string> more) {
    std::set<std::string> s = core;
    s.insert(more);
    return s;
  };
  const std::map<std::string, std::set<std::string>> allowed = {
      {"runtime/base", {"runtime/base"}},
      {"runtime/json", {"runtime/base", "runtime/json"}},
      {"runtime/schema", {"runtime/base", "runtime/json", "runtime/schema"}},
      {"runtime/world", {"runtime/base", "runtime/world"}},
      {"runtime/store", {"runtime/base", "runtime/json", "runtime/world", "runtime/store"}},
      {"runtime", core},
      {"runtime/engine", core},
      {"runtime/render", core},
      {"runtime/observe", with({"runtime/observe"})},
      {"runtime/operator", with({"runtime/operator"})},
      {"runtime/replay", with({"runtime/replay"})},
      {"mcp", with({"mcp"})},
  };
  std::vector<std::string> found;
  for (const Source& s : Sources({"runtime", "mcp"})) {
    const std::set<std::string>& may = allowed.at(PartOf(s.path));
    for (const auto& [line, header] : s.includes) {
      std::string part = PartOf(header);
      if (part.empty() || may.contains(part)) continue;
      // Generated protobuf headers belong to the part that owns the .proto.
      found.push_back(s.path + ":" + std::to_string(line) + ": includes " + header);
    }
  }
  EXPECT_THAT(found, ::testing::IsEmpty());
}

TEST(LayoutTest, PublicHeadersIncludeOnlyPublicHeaders) {
  // Installed headers (cmake/AgentrtLibrary.cmake: outside engine/ and internal/ folders) must
  // compile for a product that has only the installed ones.
  // Generated protobuf headers are not installed, except the scenario's: a scenario is the
  // simulator's public interface (sim/CMakeLists.txt installs its header).
  auto is_public = [](const std::string& path) {
    return path.find("/engine/") == std::string::npos &&
           path.find("/internal/") == std::string::npos &&
           (path.find("proto/") == std::string::npos || path == "sim/proto/scenario.pb.h");
  };
  std::vector<std::string> found;
  for (const Source& s : Sources({"runtime", "sim"})) {
    if (s.path.ends_with(".cc") || !is_public(s.path)) continue;
    for (const auto& [line, header] : s.includes) {
      if (!is_public(header)) {
        found.push_back(s.path + ":" + std::to_string(line) + ": includes " + header);
      }
    }
  }
  EXPECT_THAT(found, ::testing::IsEmpty());
}

// The checks see what they claim to: a planted violation of each kind is found.
TEST(LayoutTest, TheLexerSeesCodeNotCommentsAndKeepsLiterals) {
  Source s = Lex("x.cc",
                 "// std::thread in a comment\n"
                 "/* absl::Now() */ int a;\n"
                 "auto q = \"SELECT id FROM runs\";  // std::async\n"
                 "auto r = R\"sql(UPDATE runs SET x = 1)sql\";\n"
                 "std::thread t;  char c = '\"';\n"
                 "#include \"runtime/engine/rows.h\"\n");
  EXPECT_THAT(Find(s.code, "std::thread"), ::testing::ElementsAre(5));
  EXPECT_TRUE(Find(s.code, "absl::Now").empty());
  EXPECT_TRUE(Find(s.code, "std::async").empty());
  EXPECT_TRUE(Find(s.code, "rand").empty());  // not inside another word
  EXPECT_THAT(
      Find(Lex("t.cc", "class TempDirTest {};\nauto d = ::testing::TempDir();\n").code, "TempDir"),
      ::testing::ElementsAre(2));
  ASSERT_EQ(s.literals.size(), 3u);           // the include's name is one too
  EXPECT_EQ(s.literals[0], std::make_pair(3, std::string("SELECT id FROM runs")));
  EXPECT_EQ(s.literals[1], std::make_pair(4, std::string("UPDATE runs SET x = 1")));
  EXPECT_THAT(s.includes, ::testing::ElementsAre(std::make_pair(6, "runtime/engine/rows.h")));
  EXPECT_EQ(PartOf("runtime/engine/rows.h"), "runtime/engine");
  EXPECT_EQ(PartOf("runtime/driver.h"), "runtime");
  EXPECT_EQ(PartOf("sim/testkit/report.h"), "sim/testkit");
}

}  // namespace
}  // namespace agentrt
