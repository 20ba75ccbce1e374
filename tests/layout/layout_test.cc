// The layout's plain facts, checked on the source tree itself (docs/architecture.md,
// runtime/README.md): nothing in the engine touches the operating system's time, threads,
// processes, sockets or files except through the injected world, nor the libraries files; every
// SQL statement lives in the records layer or the store; nothing outside the engine includes its
// internals and only the records layer reaches raw statements; dependencies point one way; public
// headers include only public headers; tests make their temporary folders through TestFolder; the
// driver session has no friends. Each rule names the file and line that breaks it, and each is
// proved against a planted violation.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <span>
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

// Each rule is a function from sources to the places that break it, so that a test can hold it
// on the tree and another can prove it finds a planted violation.

// What only the world may reach: time, threads, processes, sockets and randomness; files are
// listed apart (kFiles), for their rule reaches further (FilesOutsideTheWorld).
constexpr const char* kTimeThreadsProcessesRandomness[] = {"std::thread",
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
                                                           "std::random_device",
                                                           "rand",
                                                           "srand",
                                                           "getrandom",
                                                           "::getpid",
                                                           "::kill",
                                                           "::waitpid"};
constexpr const char* kFiles[] = {"std::filesystem::absolute",
                                  "std::filesystem::current_path",
                                  "::getcwd",
                                  "::open",
                                  "::openat",
                                  "::read",
                                  "::write",
                                  "::close",
                                  "::fsync",
                                  "::rename",
                                  "::unlink",
                                  "::stat",
                                  "::lstat",
                                  "::chmod",
                                  "::mkdir",
                                  "::opendir",
                                  "::geteuid",
                                  "mkostemps",
                                  "fopen",
                                  "std::ofstream",
                                  "std::ifstream",
                                  "std::fstream",
                                  "std::filesystem::exists",
                                  "std::filesystem::is_directory",
                                  "std::filesystem::is_regular_file",
                                  "std::filesystem::directory_iterator",
                                  "std::filesystem::create_directories",
                                  "std::filesystem::remove"};
// runtime/base's file helpers, which world::RealFilesystem is built on.
constexpr const char* kFileHelpers[] = {"runtime/base/file_util.h", "runtime/base/owned_file.h",
                                        "runtime/base/atomic_file.h", "runtime/base/append_file.h"};

// Where each token of `lists` appears in the sources `applies` selects, source by source.
std::vector<std::string> Found(const std::vector<Source>& sources,
                               const std::function<bool(const std::string&)>& applies,
                               std::initializer_list<std::span<const char* const>> lists) {
  std::vector<std::string> found;
  for (const Source& s : sources) {
    if (!applies(s.path)) continue;
    for (std::span<const char* const> tokens : lists) {
      for (const char* token : tokens) {
        for (int line : Find(s.code, token)) {
          found.push_back(s.path + ":" + std::to_string(line) + ": " + token);
        }
      }
    }
  }
  return found;
}

// Time, threads, processes, sockets and randomness: only runtime/world (the injected world),
// runtime/store (its SQLite file) and runtime/base may. The MCP client is held to the same rule:
// it reaches servers through the world only, so every session can be recorded, replayed and
// simulated.
std::vector<std::string> OperatingSystemOutsideTheWorld(const std::vector<Source>& sources) {
  auto applies = [](const std::string& path) {
    return (Under(path, "runtime") || Under(path, "mcp")) && !Under(path, "runtime/world") &&
           !Under(path, "runtime/store") && !Under(path, "runtime/base");
  };
  return Found(sources, applies, {kTimeThreadsProcessesRandomness});
}

// Files: the libraries (the runtime, the MCP client, the providers, the simulator) read and
// write them only through a world::Filesystem, so a test or a simulation decides what is on
// disk. Only runtime/base (the helpers) and runtime/world (RealFilesystem, the supervisor's
// reads of /proc) touch files themselves, and runtime/store, whose file SQLite opens: its
// checks must look at the very file SQLite will open, so they are made by name beside it
// (docs/decisions/0020-files-are-a-world-interface.md). The command line and the test kit are
// composition roots and build their RealFilesystem.
std::vector<std::string> FilesOutsideTheWorld(const std::vector<Source>& sources) {
  auto applies = [](const std::string& path) {
    return (Under(path, "runtime") || Under(path, "mcp") || Under(path, "providers") ||
            Under(path, "sim")) &&
           !Under(path, "runtime/world") && !Under(path, "runtime/store") &&
           !Under(path, "runtime/base");
  };
  std::vector<std::string> found = Found(sources, applies, {kFiles});
  for (const Source& s : sources) {
    if (!applies(s.path)) continue;
    for (const auto& [line, header] : s.includes) {
      if (std::find(std::begin(kFileHelpers), std::end(kFileHelpers), header) !=
          std::end(kFileHelpers)) {
        found.push_back(s.path + ":" + std::to_string(line) + ": includes " + header);
      }
    }
  }
  return found;
}

// The simulator (and the providers) start no thread or process and read no real clock or
// randomness: a play is one thread on the virtual clock, and a swarm's threads are the
// caller's (sim/swarm.h). The consumers' test kit (testkit/, beside the simulator) forks to
// crash a run for real, so it is not held to this.
std::vector<std::string> ThreadsClocksOrRandomnessInTheSimulator(
    const std::vector<Source>& sources) {
  auto applies = [](const std::string& path) {
    return Under(path, "sim") || Under(path, "providers");
  };
  return Found(sources, applies, {kTimeThreadsProcessesRandomness});
}

// No flag is global state: a command parses its own flags into its options (FlagSet,
// tools/agentrt/command_line.h), so it can be called in-process and two never share a value.
constexpr const char* kGlobalFlags[] = {"ABSL_FLAG", "ABSL_DECLARE_FLAG", "absl::GetFlag",
                                        "absl::SetFlag"};
std::vector<std::string> GlobalFlags(const std::vector<Source>& sources) {
  return Found(sources, [](const std::string& path) { return !Under(path, "tests"); },
               {kGlobalFlags});
}

// Every SQL statement, of any form, lives in the records layer (runtime/records/: the tables'
// statements) or the store (its connection, migrations and chain): a string literal that starts
// with a statement's keyword anywhere else in the product is one that escaped. Tests may plant
// what a hostile editor of the file would.
std::vector<std::string> SqlOutsideRecordsAndStore(const std::vector<Source>& sources) {
  static constexpr const char* kStatements[] = {
      "SELECT", "INSERT", "UPDATE", "DELETE",  "REPLACE", "UPSERT",   "CREATE",    "ALTER",
      "DROP",   "PRAGMA", "WITH",   "BEGIN",   "COMMIT",  "ROLLBACK", "SAVEPOINT", "RELEASE",
      "VACUUM", "ATTACH", "DETACH", "ANALYZE", "REINDEX", "EXPLAIN"};
  std::vector<std::string> found;
  for (const Source& s : sources) {
    if (Under(s.path, "runtime/records") || Under(s.path, "runtime/store") ||
        Under(s.path, "tests")) {
      continue;
    }
    for (const auto& [line, literal] : s.literals) {
      // Past leading blanks, written out or as escapes ("\n  DELETE ...").
      std::string_view text = literal;
      while (!text.empty()) {
        if (text.front() == ' ' || text.front() == '\t' || text.front() == '\n') {
          text.remove_prefix(1);
        } else if (text.starts_with("\\n") || text.starts_with("\\t")) {
          text.remove_prefix(2);
        } else {
          break;
        }
      }
      for (const char* verb : kStatements) {
        std::string_view v = verb;
        // A keyword and more (DELETE FROM, PRAGMA x), or a transaction's keyword alone; an
        // HTTP method's "DELETE" alone is no statement.
        bool more = text.size() > v.size() && (text[v.size()] == ' ' || text[v.size()] == '\n');
        bool alone = text == v && (v == "BEGIN" || v == "COMMIT" || v == "ROLLBACK" ||
                                   v == "VACUUM" || v == "ANALYZE" || v == "REINDEX");
        if (text.starts_with(v) && (more || alone)) {
          found.push_back(s.path + ":" + std::to_string(line) + ": " +
                          std::string(text.substr(0, 40)));
        }
      }
    }
  }
  return found;
}

// Tables are defined in the records layer alone (runtime/records/schema.cc: the migrations the
// store applies): a statement that makes or changes a table, an index, a trigger or a view
// anywhere else in the product is a second owner of the schema. The store's one exception is
// its own bookkeeping, the table of applied migrations.
std::vector<std::string> TablesDefinedOutsideTheRecordsLayer(const std::vector<Source>& sources) {
  std::vector<std::string> found;
  for (const Source& s : sources) {
    if (Under(s.path, "runtime/records") || Under(s.path, "tests")) continue;
    for (const auto& [line, literal] : s.literals) {
      for (const char* ddl :
           {"CREATE TABLE", "ALTER TABLE", "DROP TABLE", "CREATE INDEX", "CREATE UNIQUE INDEX",
            "DROP INDEX", "CREATE TRIGGER", "CREATE VIEW"}) {
        std::size_t at = literal.find(ddl);
        if (at == std::string::npos) continue;
        if (Under(s.path, "runtime/store") &&
            literal.find("TABLE IF NOT EXISTS schema_migrations") == at + 7) {
          continue;
        }
        found.push_back(s.path + ":" + std::to_string(line) + ": " + ddl);
      }
    }
  }
  return found;
}

// Only the store and the records layer reach raw statements (runtime/store/internal/sql.h), and
// in the tests only tests/support/tamper.h, which names what each statement plants; the engine's
// internals (runtime/engine/) are included by nothing outside it but the engine's own unit tests.
std::vector<std::string> PrivateHeadersIncluded(const std::vector<Source>& sources) {
  std::vector<std::string> found;
  for (const Source& s : sources) {
    for (const auto& [line, header] : s.includes) {
      bool sql = header == "runtime/store/internal/sql.h" && !Under(s.path, "runtime/store") &&
                 !Under(s.path, "runtime/records") && s.path != "tests/support/tamper.h";
      bool engine = Under(header, "runtime/engine") && !Under(s.path, "runtime/engine") &&
                    !Under(s.path, "tests/runtime/engine");
      if (sql || engine)
        found.push_back(s.path + ":" + std::to_string(line) + ": includes " + header);
    }
  }
  return found;
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
  for (const char* part : {"runtime/base", "runtime/json", "runtime/schema", "runtime/world",
                           "runtime/store", "runtime/records", "runtime/engine", "runtime/render",
                           "runtime/observe", "runtime/operator", "runtime/replay", "testkit",
                           "sim", "tools", "mcp", "providers", "tests", "fuzz"}) {
    if (Under(path, part)) return part;
  }
  if (Under(path, "runtime")) return "runtime";  // the public headers at its top
  return "";
}

// What each part may include (docs/architecture.md: base <- json <- schema <- world, store <-
// records <- runtime (engine, render) <- replay, operator, observe <- mcp, providers <- sim <-
// tools). The records layer sees the public types at the runtime's top but never the engine.
std::vector<std::string> DependenciesPointingBack(const std::vector<Source>& sources) {
  const std::set<std::string> below = {"runtime/base",  "runtime/json",  "runtime/schema",
                                       "runtime/world", "runtime/store", "runtime/records",
                                       "runtime"};
  auto with = [&](std::initializer_list<std::string> more) {
    std::set<std::string> s = below;
    s.insert(more);
    return s;
  };
  const std::set<std::string> core = with({"runtime/engine", "runtime/render"});
  auto core_with = [&](std::initializer_list<std::string> more) {
    std::set<std::string> s = core;
    s.insert(more);
    return s;
  };
  const std::map<std::string, std::set<std::string>> allowed = {
      {"runtime/base", {"runtime/base"}},
      {"runtime/json", {"runtime/base", "runtime/json"}},
      {"runtime/schema", {"runtime/base", "runtime/json", "runtime/schema"}},
      // The world may quote what it shows (json/sanitize.h): json is below it and sees no world.
      {"runtime/world", {"runtime/base", "runtime/json", "runtime/world"}},
      {"runtime/store", {"runtime/base", "runtime/json", "runtime/world", "runtime/store"}},
      {"runtime/records", below},
      {"runtime", core},
      {"runtime/engine", core},
      {"runtime/render", core},
      {"runtime/observe", core_with({"runtime/observe"})},
      {"runtime/operator", core_with({"runtime/operator"})},
      {"runtime/replay", core_with({"runtime/replay"})},
      {"mcp", core_with({"mcp"})},
      {"providers", core_with({"providers"})},
  };
  std::vector<std::string> found;
  for (const Source& s : sources) {
    auto may = allowed.find(PartOf(s.path));
    if (may == allowed.end()) continue;
    for (const auto& [line, header] : s.includes) {
      std::string part = PartOf(header);
      if (part.empty() || may->second.contains(part)) continue;
      found.push_back(s.path + ":" + std::to_string(line) + ": includes " + header);
    }
  }
  return found;
}

// Installed headers (cmake/AgentrtLibrary.cmake: outside engine/ and internal/ folders) must
// compile for a product that has only the installed ones.
// Generated protobuf headers are not installed, except the scenario's: a scenario is the
// simulator's public interface (sim/CMakeLists.txt installs its header).
bool IsPublic(const std::string& path) {
  return path.find("/engine/") == std::string::npos &&
         path.find("/internal/") == std::string::npos &&
         (path.find("proto/") == std::string::npos || path == "sim/proto/scenario.pb.h");
}

std::vector<std::string> PublicHeadersIncludingPrivateOnes(const std::vector<Source>& sources) {
  std::vector<std::string> found;
  for (const Source& s : sources) {
    if (!(Under(s.path, "runtime") || Under(s.path, "sim") || Under(s.path, "testkit")) ||
        s.path.ends_with(".cc") || !IsPublic(s.path)) {
      continue;
    }
    for (const auto& [line, header] : s.includes) {
      if (!IsPublic(header)) {
        found.push_back(s.path + ":" + std::to_string(line) + ": includes " + header);
      }
    }
  }
  return found;
}

// The driver session's state is its own (ADR 19): no class is a friend of it, so the gate and
// the driver reach it through its public methods and its states change only through
// SessionState::Apply.
std::vector<std::string> FriendsOfTheSession(const std::vector<Source>& sources) {
  std::vector<std::string> found;
  for (const Source& s : sources) {
    if (s.path != "runtime/engine/session.h" && s.path != "runtime/engine/session_state.h") {
      continue;
    }
    for (int line : Find(s.code, "friend")) {
      found.push_back(s.path + ":" + std::to_string(line) + ": friend");
    }
  }
  return found;
}

std::vector<Source> Tree() {
  return Sources({"runtime", "mcp", "providers", "sim", "testkit", "tools", "fuzz", "tests"});
}

TEST(LayoutTest, TheEngineReachesTheOperatingSystemOnlyThroughTheWorld) {
  EXPECT_THAT(OperatingSystemOutsideTheWorld(Tree()), ::testing::IsEmpty());
}

TEST(LayoutTest, TheLibrariesReachFilesOnlyThroughTheWorld) {
  EXPECT_THAT(FilesOutsideTheWorld(Tree()), ::testing::IsEmpty());
}

TEST(LayoutTest, TheSimulatorStartsNoThreadAndReadsNoRealClock) {
  EXPECT_THAT(ThreadsClocksOrRandomnessInTheSimulator(Tree()), ::testing::IsEmpty());
}

TEST(LayoutTest, NoFlagIsGlobalState) { EXPECT_THAT(GlobalFlags(Tree()), ::testing::IsEmpty()); }

TEST(LayoutTest, EverySqlStatementLivesInTheRecordsLayerOrTheStore) {
  EXPECT_THAT(SqlOutsideRecordsAndStore(Tree()), ::testing::IsEmpty());
}

TEST(LayoutTest, TablesAreDefinedInTheRecordsLayerAlone) {
  EXPECT_THAT(TablesDefinedOutsideTheRecordsLayer(Tree()), ::testing::IsEmpty());
}

TEST(LayoutTest, TheEngineAndRawStatementsArePrivate) {
  EXPECT_THAT(PrivateHeadersIncluded(Tree()), ::testing::IsEmpty());
}

TEST(LayoutTest, DependenciesPointOneWay) {
  EXPECT_THAT(DependenciesPointingBack(Tree()), ::testing::IsEmpty());
}

TEST(LayoutTest, PublicHeadersIncludeOnlyPublicHeaders) {
  EXPECT_THAT(PublicHeadersIncludingPrivateOnes(Tree()), ::testing::IsEmpty());
}

TEST(LayoutTest, TheDriverSessionHasNoFriends) {
  EXPECT_THAT(FriendsOfTheSession(Tree()), ::testing::IsEmpty());
}

// The checks see what they claim to: a planted violation of each kind is found.
TEST(LayoutTest, TheLexerSeesCodeNotCommentsAndKeepsLiterals) {
  Source s = Lex("x.cc",
                 "// std::thread in a comment\n"
                 "/* absl::Now() */ int a;\n"
                 "auto q = \"SELECT id FROM runs\";  // std::async\n"
                 "auto r = R\"sql(UPDATE runs SET x = 1)sql\";\n"
                 "std::thread t;  char c = '\"';\n"
                 "#include \"runtime/engine/session.h\"\n");
  EXPECT_THAT(Find(s.code, "std::thread"), ::testing::ElementsAre(5));
  EXPECT_TRUE(Find(s.code, "absl::Now").empty());
  EXPECT_TRUE(Find(s.code, "std::async").empty());
  EXPECT_TRUE(Find(s.code, "rand").empty());  // not inside another word
  EXPECT_THAT(
      Find(Lex("t.cc", "class TempDirTest {};\nauto d = ::testing::TempDir();\n").code, "TempDir"),
      ::testing::ElementsAre(2));
  ASSERT_EQ(s.literals.size(), 3u);  // the include's name is one too
  EXPECT_EQ(s.literals[0], std::make_pair(3, std::string("SELECT id FROM runs")));
  EXPECT_EQ(s.literals[1], std::make_pair(4, std::string("UPDATE runs SET x = 1")));
  EXPECT_THAT(s.includes, ::testing::ElementsAre(std::make_pair(6, "runtime/engine/session.h")));
  EXPECT_EQ(PartOf("runtime/engine/rows.h"), "runtime/engine");
  EXPECT_EQ(PartOf("runtime/records/rows.h"), "runtime/records");
  EXPECT_EQ(PartOf("runtime/driver.h"), "runtime");
  EXPECT_EQ(PartOf("testkit/report.h"), "testkit");
}

TEST(LayoutTest, APlantedOperatingSystemCallIsFound) {
  std::vector<Source> planted = {Lex("runtime/operator/x.cc", "\nauto t = absl::Now();\n"),
                                 Lex("mcp/y.cc", "pid_t p = ::fork();\n"),
                                 Lex("runtime/world/real.cc", "auto t = absl::Now();\n")};
  EXPECT_THAT(OperatingSystemOutsideTheWorld(planted),
              ::testing::ElementsAre("runtime/operator/x.cc:2: absl::Now", "mcp/y.cc:1: fork"));
}

TEST(LayoutTest, APlantedFileCallOrFileHelperOutsideTheWorldIsFound) {
  std::vector<Source> planted = {
      Lex("mcp/y.cc", "int fd = ::open(p, 0);\n"),
      Lex("sim/play.cc", "\nstruct stat st;\nint rc = ::lstat(p, &st);\n"),
      Lex("runtime/replay/x.cc", "#include \"runtime/base/atomic_file.h\"\n"),
      Lex("providers/z.cc", "bool d = std::filesystem::is_directory(p);\n"),
      Lex("mcp/w.cc", "auto where = std::filesystem::absolute(p);\n"),
      Lex("runtime/world/real_filesystem.cc", "#include \"runtime/base/owned_file.h\"\n"),
      Lex("runtime/store/file_security.cc", "int rc = ::lstat(p, &st);\n"),
      Lex("tools/agentrt/x.cc", "std::ifstream in(path);\n")};  // a composition root may
  EXPECT_THAT(FilesOutsideTheWorld(planted),
              ::testing::ElementsAre("mcp/y.cc:1: ::open", "sim/play.cc:3: ::lstat",
                                     "providers/z.cc:1: std::filesystem::is_directory",
                                     "mcp/w.cc:1: std::filesystem::absolute",
                                     "runtime/replay/x.cc:1: includes runtime/base/atomic_file.h"));
}

TEST(LayoutTest, APlantedThreadOrClockInTheSimulatorIsFound) {
  std::vector<Source> planted = {
      Lex("sim/swarm.cc", "\nstd::vector<std::thread> workers;\n"),
      Lex("sim/judge.cc", "auto t = std::chrono::steady_clock::now();\n"),
      Lex("providers/x.cc", "std::random_device seed;\n"),
      Lex("sim/play.cc", "int fd = ::open(p, 0);\n"),                // files: their own rule
      Lex("testkit/internal/child.cc", "pid_t pid = ::fork();\n")};  // the kit may fork
  EXPECT_THAT(ThreadsClocksOrRandomnessInTheSimulator(planted),
              ::testing::ElementsAre("sim/swarm.cc:2: std::thread",
                                     "sim/judge.cc:1: std::chrono::steady_clock",
                                     "providers/x.cc:1: std::random_device"));
}

TEST(LayoutTest, APlantedGlobalFlagIsFound) {
  std::vector<Source> planted = {
      Lex("tools/agentrt/x.cc", "\nABSL_FLAG(bool, json, false, \"json\");\n"),
      Lex("tools/agentrt/y.cc", "bool json = absl::GetFlag(FLAGS_json);\n"),
      Lex("tests/tools/z.cc", "ABSL_FLAG(bool, verbose, false, \"\");\n")};  // tests may
  EXPECT_THAT(GlobalFlags(planted), ::testing::ElementsAre("tools/agentrt/x.cc:2: ABSL_FLAG",
                                                           "tools/agentrt/y.cc:1: absl::GetFlag"));
}

TEST(LayoutTest, APlantedStatementOfAnyFormOutsideTheRecordsLayerIsFound) {
  std::vector<Source> planted = {
      Lex("runtime/operator/x.cc", "auto a = \"  PRAGMA writable_schema = ON\";\n"),
      Lex("sim/y.cc", "auto b = \"\\n  DROP TABLE events\";\n"),
      Lex("tools/agentrt/z.cc", "auto c = \"WITH t AS (SELECT 1) DELETE FROM runs\";\n"),
      Lex("fuzz/w.cc", "auto d = \"ALTER TABLE runs ADD x\";\n"),
      Lex("runtime/render/v.cc",
          "auto e = \"SELECTED tools\";  auto f = \"Begin the run\";  auto m = \"DELETE\";\n"),
      Lex("mcp/u.cc", "auto n = \"COMMIT\";\n"),
      Lex("runtime/records/rows.cc", "auto g = \"DELETE FROM runs\";\n"),
      Lex("tests/runtime/t.cc", "auto h = \"DELETE FROM events\";\n")};
  EXPECT_THAT(SqlOutsideRecordsAndStore(planted),
              ::testing::ElementsAre("runtime/operator/x.cc:1: PRAGMA writable_schema = ON",
                                     "sim/y.cc:1: DROP TABLE events",
                                     "tools/agentrt/z.cc:1: WITH t AS (SELECT 1) DELETE FROM runs",
                                     "fuzz/w.cc:1: ALTER TABLE runs ADD x", "mcp/u.cc:1: COMMIT"));
}

TEST(LayoutTest, APlantedTableDefinitionOutsideTheRecordsLayerIsFound) {
  std::vector<Source> planted = {
      Lex("runtime/store/x.cc", "auto a = R\"sql(\nCREATE TABLE leases (id TEXT);\n)sql\";\n"),
      Lex("runtime/store/y.cc", "auto b = \"ALTER TABLE events ADD COLUMN x\";\n"),
      Lex("sim/z.cc", "auto c = \"CREATE INDEX steps_by_status ON steps (status)\";\n"),
      Lex("runtime/store/w.cc",
          "auto d = \"CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER)\";\n"),
      Lex("runtime/records/schema.cc", "auto e = \"CREATE TABLE runs (id TEXT)\";\n"),
      Lex("tests/runtime/t.cc", "auto f = \"CREATE TABLE notes (text TEXT)\";\n")};
  EXPECT_THAT(
      TablesDefinedOutsideTheRecordsLayer(planted),
      ::testing::ElementsAre("runtime/store/x.cc:1: CREATE TABLE",
                             "runtime/store/y.cc:1: ALTER TABLE", "sim/z.cc:1: CREATE INDEX"));
}

TEST(LayoutTest, APlantedIncludeOfTheEngineOrOfRawStatementsIsFound) {
  std::vector<Source> planted = {
      Lex("runtime/operator/x.cc", "#include \"runtime/engine/session.h\"\n"),
      Lex("sim/y.cc", "\n#include \"runtime/store/internal/sql.h\"\n"),
      Lex("tests/runtime/driver_test.cc", "#include \"runtime/engine/session.h\"\n"),
      Lex("tests/runtime/engine/z_test.cc", "#include \"runtime/engine/session.h\"\n"),
      Lex("runtime/records/rows.cc", "#include \"runtime/store/internal/sql.h\"\n"),
      Lex("tests/support/tamper.h", "#include \"runtime/store/internal/sql.h\"\n"),
      Lex("tests/runtime/t.cc", "#include \"runtime/store/internal/sql.h\"\n")};
  EXPECT_THAT(
      PrivateHeadersIncluded(planted),
      ::testing::ElementsAre("runtime/operator/x.cc:1: includes runtime/engine/session.h",
                             "sim/y.cc:2: includes runtime/store/internal/sql.h",
                             "tests/runtime/driver_test.cc:1: includes "
                             "runtime/engine/session.h",
                             "tests/runtime/t.cc:1: includes runtime/store/internal/sql.h"));
}

TEST(LayoutTest, APlantedDependencyPointingBackIsFound) {
  std::vector<Source> planted = {
      Lex("runtime/records/x.cc", "#include \"runtime/engine/session.h\"\n"),
      Lex("runtime/store/y.cc", "#include \"runtime/records/rows.h\"\n"),
      Lex("runtime/engine/z.cc", "#include \"runtime/operator/recheck.h\"\n"),
      Lex("runtime/operator/w.cc", "#include \"runtime/records/rows.h\"\n")};
  EXPECT_THAT(DependenciesPointingBack(planted),
              ::testing::ElementsAre("runtime/records/x.cc:1: includes runtime/engine/session.h",
                                     "runtime/store/y.cc:1: includes runtime/records/rows.h",
                                     "runtime/engine/z.cc:1: includes runtime/operator/recheck.h"));
}

TEST(LayoutTest, APlantedPublicHeaderIncludingAPrivateOneIsFound) {
  std::vector<Source> planted = {
      Lex("runtime/records/x.h", "#include \"runtime/engine/session.h\"\n"),
      Lex("sim/y.h", "#include \"runtime/store/internal/sqlite.h\"\n"),
      Lex("runtime/engine/z.h", "#include \"runtime/engine/session.h\"\n"),
      Lex("runtime/records/w.cc", "#include \"runtime/store/internal/sqlite.h\"\n")};
  EXPECT_THAT(PublicHeadersIncludingPrivateOnes(planted),
              ::testing::ElementsAre("runtime/records/x.h:1: includes runtime/engine/session.h",
                                     "sim/y.h:1: includes runtime/store/internal/sqlite.h"));
}

TEST(LayoutTest, APlantedFriendOfTheDriverSessionIsFound) {
  std::vector<Source> planted = {
      Lex("runtime/engine/session.h",
          "class Driver::Session {\n  // a friend in a comment is no friend\n"
          "  friend class agentrt::GateSession;\n};\n"),
      Lex("runtime/engine/session_state.h", "class SessionState { friend class Driver; };\n"),
      Lex("runtime/driver.h", "class Driver { friend class GateSession; };\n"),
      Lex("runtime/engine/session.cc", "const char* kWord = \"friendly\";\n")};
  EXPECT_THAT(FriendsOfTheSession(planted),
              ::testing::ElementsAre("runtime/engine/session.h:3: friend",
                                     "runtime/engine/session_state.h:1: friend"));
}

}  // namespace
}  // namespace agentrt
