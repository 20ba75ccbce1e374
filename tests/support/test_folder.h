// tests/support/test_folder.h
//
// Every test works in a temporary folder of its own, removed when the test ends, pass or fail
// (after the fixture is destroyed, and even when the test left part of it read-only): a run of
// the suite leaves nothing behind in the machine's temporary folder. TestFolder() is
// the folder of the test running now (gtest's TempDir()/agentrt_<pid>_<suite>_<test>, created
// on first use); TestFile(name) a path inside it. Test-only.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace agentrt::test_support {

std::filesystem::path TestFolder();
std::string TestFile(std::string_view name);

}  // namespace agentrt::test_support
