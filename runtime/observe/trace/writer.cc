#include "runtime/observe/trace/writer.h"

namespace agentrt::trace {

absl::Status LineOutput::WriteLine(std::string_view line) {
  absl::MutexLock lock(&mu_);
  if (!status_.ok()) return status_;
  out_.write(line.data(), static_cast<std::streamsize>(line.size()));
  out_.flush();
  if (!out_) status_ = absl::UnavailableError("trace: writing a line to the output failed");
  return status_;
}

absl::Status LineOutput::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

}  // namespace agentrt::trace
