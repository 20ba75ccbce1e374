// runtime/world/internal/unique_fd.h
//
// One owned file descriptor, closed when its owner lets go of it. The launcher's descriptors
// live in these so that no path (an early error return included) leaks one into a later child.
// Not thread-safe: the owner decides when no other thread can still use the descriptor.
#pragma once

#include <unistd.h>

#include <utility>

namespace agentrt::world::internal {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) Reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Reset closes what it held (errors ignored: the descriptor is gone either way on Linux) and
  // takes `fd`.
  void Reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace agentrt::world::internal
