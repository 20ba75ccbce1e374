# Precompiled headers: the standard library and Abseil headers that nearly every file of ours
# includes, parsed once per build instead of once per translation unit.
#
# Abseil's status.h brings cord, synchronization and time along: about 110,000 lines that every
# file parsed again, some 2 s of CPU each with g++ 12, often more than the file's own code.
# GoogleTest and GoogleMock add about as much again to every test file. Two precompiled
# headers, each built once and reused by every target with the same compile flags:
#   agentrt_pch        the libraries, the command and the programs the tests start
#   agentrt_test_pch   the same headers and GoogleTest with GoogleMock: the test suites
# The list holds only headers our files include anyway: it makes the build faster and changes
# nothing a file means. A file that forgot one of these includes still compiles with them on;
# -DAGENTRT_PRECOMPILED_HEADERS=OFF builds without them (docs/performance.md, build time).
# The example programs never use them: they are built as a product writes them.

set(AGENTRT_PCH_HEADERS
  <algorithm> <cstddef> <cstdint> <functional> <map> <memory> <optional> <string>
  <string_view> <utility> <vector>
  # In angle brackets: CMake would read a quoted name as a path in our source tree.
  <absl/status/status.h> <absl/status/statusor.h> <absl/strings/str_cat.h>
  <absl/synchronization/mutex.h> <absl/time/time.h>)

# agentrt_define_precompiled_headers(<name> [TESTS]): the target <name> that builds the
# precompiled header (an object library of one empty file); TESTS adds GoogleTest and
# GoogleMock, with their compile definitions.
function(agentrt_define_precompiled_headers name)
  cmake_parse_arguments(ARG "TESTS" "" "" ${ARGN})
  if(NOT AGENTRT_PRECOMPILED_HEADERS)
    return()
  endif()
  set(source ${PROJECT_BINARY_DIR}/pch/${name}.cc)
  file(CONFIGURE OUTPUT ${source}
       CONTENT "// Empty: ${name} only builds the precompiled header (cmake/AgentrtPrecompiledHeaders.cmake).\n")
  add_library(${name} OBJECT ${source})
  target_link_libraries(${name} PRIVATE absl::status absl::statusor absl::strings
                                        absl::synchronization absl::time)
  set(headers ${AGENTRT_PCH_HEADERS})
  if(ARG_TESTS)
    target_link_libraries(${name} PRIVATE GTest::gmock GTest::gtest)
    list(APPEND headers <gmock/gmock.h> <gtest/gtest.h>)
  endif()
  target_precompile_headers(${name} PRIVATE ${headers})
endfunction()

# agentrt_use_precompiled_headers(<pch> <targets...>): each target's files start from <pch>.
function(agentrt_use_precompiled_headers pch)
  if(NOT AGENTRT_PRECOMPILED_HEADERS)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    target_precompile_headers(${target} REUSE_FROM ${pch})
  endforeach()
endfunction()

# agentrt_precompile_own_headers(<target>): the same headers precompiled for <target> alone, for
# a target whose compile flags differ from agentrt_pch's in a way the compiler checks (a
# library's -pthread defines _REENTRANT, and a header built without it is refused).
function(agentrt_precompile_own_headers target)
  if(AGENTRT_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} PRIVATE ${AGENTRT_PCH_HEADERS})
  endif()
endfunction()
