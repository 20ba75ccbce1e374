// tests/support/real_files.h
//
// The operating system's files as a world::Filesystem, for tests that read and write real
// ones (in their TestFolder) through a library call that takes a filesystem. Tests that plant
// what a disk cannot (a file another user owns, a write that fails) use MemoryFilesystem
// (memory_filesystem.h) instead.
#pragma once

#include "runtime/world/real_filesystem.h"

namespace agentrt::test_support {

// One per process: a RealFilesystem has no state.
inline world::Filesystem& RealFiles() {
  static world::RealFilesystem files;
  return files;
}

}  // namespace agentrt::test_support
