#include "tests/support/test_store.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/records/schema.h"
#include "tests/support/test_folder.h"

namespace agentrt::test_support {
std::string ServerUrl() {
  const char* url = std::getenv("AGENTRT_TEST_POSTGRES");
  return url != nullptr ? url : "";
}

bool OnTestServer() { return !ServerUrl().empty(); }

std::string NewServerDatabase() {
  std::string url = ServerUrl();
  if (url.empty()) return "";
  static std::atomic<int> next{0};
  absl::StatusOr<std::string> made =
      store::CreateServerSchema(url, absl::StrCat("t", ::getpid(), "_", next.fetch_add(1)));
  if (!made.ok()) {
    throw std::runtime_error(
        absl::StrCat("the test server made no schema: ", made.status().message()));
  }
  return *made;
}

absl::StatusOr<std::unique_ptr<store::Store>> OpenTestStore(const world::Clock& clock) {
  if (!OnTestServer()) return records::OpenStoreInMemory(clock);
  return records::OpenStore(NewServerDatabase(), clock);
}

std::string TestDatabase(std::string_view name) {
  return OnTestServer() ? NewServerDatabase() : TestFile(name);
}

namespace {

constexpr char kScript[] = AGENTRT_SOURCE_DIR "/tools/dev/postgres ";

}  // namespace

OwnServer::OwnServer() {
  // The test server's socket folder is DIR/sock, which its URL's host names.
  std::string shared = ServerUrl();
  std::size_t host = shared.find("host=");
  std::size_t sock = shared.find("/sock", host);
  if (host == std::string::npos || sock == std::string::npos) return;
  static std::atomic<int> next{0};
  dir_ = absl::StrCat(shared.substr(host + 5, sock - host - 5), "-own-", ::getpid(), "-",
                      next.fetch_add(1));
  Start(/*durable=*/false);
}

OwnServer::OwnServer(std::string dir, bool durable) : dir_(std::move(dir)) { Start(durable); }

void OwnServer::Start(bool durable) {
  FILE* started =
      ::popen(absl::StrCat(kScript, "start ", dir_, durable ? " --durable" : "").c_str(), "r");
  if (started == nullptr) return;
  char line[512] = {};
  bool read = std::fgets(line, sizeof line, started) != nullptr;
  if (::pclose(started) != 0 || !read) return;
  url_ = line;
  while (!url_.empty() && url_.back() == '\n') url_.pop_back();
}

OwnServer::~OwnServer() {
  if (!url_.empty()) std::system(absl::StrCat(kScript, "stop ", dir_).c_str());
}

std::string OwnServer::NewSchema(std::string_view name) {
  absl::StatusOr<std::string> made = store::CreateServerSchema(url_, name);
  EXPECT_TRUE(made.ok()) << made.status();
  return made.ok() ? *made : "";
}

bool OwnServer::Crash() {
  return std::system(absl::StrCat(kScript, "restart ", dir_).c_str()) == 0;
}

}  // namespace agentrt::test_support
