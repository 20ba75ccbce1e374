// runtime/base/temp_dir.h
//
// A folder of one's own under the system's temporary directory (mkdtemp: a fresh name, mode
// 0700), removed with everything in it when the object goes: where the test kit drives runs on
// real database files, and where `agentrt sim run --db URL` keeps the plays' files before they
// go to the server.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

namespace agentrt {

class TempDir {
 public:
  // Makes the folder, named `prefix` and six random characters. Errors: Internal naming the
  // folder and the OS reason.
  static absl::StatusOr<TempDir> Make(std::string_view prefix);
  TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, "")) {}
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string File(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace agentrt
