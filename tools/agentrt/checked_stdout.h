// tools/agentrt/checked_stdout.h
//
// Standard output that remembers why it failed. Every `agentrt` command the binary runs prints
// through std::cout (its Io's `out`, io.h); a command whose output did not arrive (a full disk,
// /dev/full, a closed pipe) has lost what it found, so it must not exit 0. The stream's own
// state says only that a write failed, and the C library forgets the reason with the bytes it
// drops, so CheckedStdout puts a buffer of its own under std::cout that writes the file
// descriptor itself and keeps the first error's errno.
//
// The dispatch (commands.cc) makes one around every command. Not for use by two threads at
// once (nor was std::cout's formatting).
#pragma once

#include <streambuf>
#include <string_view>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

class CheckedStdout {
 public:
  // Puts the buffer under std::cout, writing to `fd` (line by line when it is a terminal, as
  // the C library would, else in blocks).
  explicit CheckedStdout(int fd);
  // Flushes and gives std::cout its own buffer back.
  ~CheckedStdout();
  CheckedStdout(const CheckedStdout&) = delete;
  CheckedStdout& operator=(const CheckedStdout&) = delete;

  // Finish flushes, then returns `exit` when every byte was written; otherwise it prints
  // "agentrt <command>: cannot write to standard output: <reason>" to `io.err` and returns
  // kExitFailure, whatever the command found. A command that stops early on a failed write
  // returns kExitFailure and leaves the message to this.
  int Finish(Io& io, std::string_view command, int exit);

 private:
  class Buffer : public std::streambuf {
   public:
    Buffer(int fd, bool line_buffered);
    int error() const { return error_; }

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    // Writes what the buffer holds; false (and the buffer emptied) when a write failed.
    bool Drain();

    const int fd_;
    const bool line_buffered_;
    int error_ = 0;  // errno of the first write that failed
    char bytes_[1 << 16];
  };

  Buffer buffer_;
  std::streambuf* const replaced_;
};

}  // namespace agentrt::cli
