#include "tools/agentrt/checked_stdout.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "tools/agentrt/command_line.h"

namespace agentrt::cli {

CheckedStdout::Buffer::Buffer(int fd, bool line_buffered) : fd_(fd), line_buffered_(line_buffered) {
  setp(bytes_, bytes_ + sizeof(bytes_));
}

bool CheckedStdout::Buffer::Drain() {
  const char* next = pbase();
  const char* end = pptr();
  setp(bytes_, bytes_ + sizeof(bytes_));
  if (error_ != 0) return false;  // nothing more is written after a failure
  while (next < end) {
    ssize_t n = ::write(fd_, next, static_cast<std::size_t>(end - next));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      return false;
    }
    next += n;
  }
  return true;
}

CheckedStdout::Buffer::int_type CheckedStdout::Buffer::overflow(int_type c) {
  if (!Drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize CheckedStdout::Buffer::xsputn(const char* s, std::streamsize n) {
  std::streamsize written = std::streambuf::xsputn(s, n);
  if (line_buffered_ && std::memchr(s, '\n', static_cast<std::size_t>(written)) != nullptr) {
    if (sync() != 0) return 0;
  }
  return written;
}

int CheckedStdout::Buffer::sync() { return Drain() ? 0 : -1; }

CheckedStdout::CheckedStdout(int fd)
    : buffer_(fd, ::isatty(fd) == 1), replaced_(std::cout.rdbuf(&buffer_)) {}

CheckedStdout::~CheckedStdout() {
  std::cout.flush();
  std::cout.rdbuf(replaced_);
}

int CheckedStdout::Finish(Io& io, std::string_view command, int exit) {
  std::cout.flush();
  if (std::cout.good() && buffer_.error() == 0) return exit;
  std::string reason = buffer_.error() != 0 ? std::strerror(buffer_.error()) : "a write failed";
  return Failure(io, command, absl::StrCat("cannot write to standard output: ", reason));
}

}  // namespace agentrt::cli
