#include "runtime/world/internal/look_path.h"

#include <sys/stat.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/base/string_view.h"

namespace agentrt::world::internal {
namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
}

}  // namespace

absl::StatusOr<std::string> LookPath(std::string_view program, std::string_view path_env) {
  if (program.find('/') != std::string_view::npos) return std::string(program);
  if (!program.empty()) {
    for (absl::string_view folder : absl::StrSplit(ToAbsl(path_env), ':')) {
      if (folder.empty() || folder.front() != '/') continue;
      std::string candidate =
          absl::StrCat(folder, folder.back() == '/' ? "" : "/", ToAbsl(program));
      if (IsExecutableFile(candidate)) return candidate;
    }
  }
  return absl::NotFoundError(
      absl::StrCat("program \"", absl::CHexEscape(ToAbsl(program)), "\" not found in PATH"));
}

}  // namespace agentrt::world::internal
