# Checks an example program by its output, as Go checks an Example test (ctest: example.<name>):
#   cmake -DPROGRAM=<the example program> -DSOURCE=<its .cc> -P check_output.cmake
# The program must exit 0, and its standard output must be exactly the `// Output:` block that
# ends its source: every line after the last line that is exactly "// Output:", each with its
# leading "// " (or a bare "//", for an empty line) removed. Trailing newlines are ignored on
# both sides; nothing else is (spaces count). On a mismatch both texts are printed, with the
# first line that differs.
cmake_minimum_required(VERSION 3.25)
foreach(var PROGRAM SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_output.cmake needs -D${var}=...")
  endif()
endforeach()

# The expected text. Lines are taken apart with string(FIND), never as CMake lists, so a ';' or
# a '[' in an expected line is just text.
file(READ ${SOURCE} source)
string(REPLACE "\r\n" "\n" source "${source}")
set(marker "// Output:\n")
string(FIND "\n${source}\n" "\n${marker}" at REVERSE)
if(at EQUAL -1)
  message(FATAL_ERROR "${SOURCE} has no `// Output:` block (a line that is exactly \"// Output:\")")
endif()
string(LENGTH "${marker}" marker_length)
math(EXPR block_start "${at} + ${marker_length}")
string(SUBSTRING "${source}\n" ${block_start} -1 block)
string(REGEX REPLACE "\n+$" "" block "${block}")

set(expected "")
set(rest "${block}")
set(line_number 0)
while(NOT rest STREQUAL "")
  math(EXPR line_number "${line_number} + 1")
  string(FIND "${rest}" "\n" newline)
  if(newline EQUAL -1)
    set(line "${rest}")
    set(rest "")
  else()
    string(SUBSTRING "${rest}" 0 ${newline} line)
    math(EXPR next "${newline} + 1")
    string(SUBSTRING "${rest}" ${next} -1 rest)
  endif()
  if(line STREQUAL "//")
    set(line "")
  elseif(line MATCHES "^// ")
    string(SUBSTRING "${line}" 3 -1 line)
  else()
    message(FATAL_ERROR "${SOURCE}: line ${line_number} of the `// Output:` block is not a "
                        "`// ` comment: ${line}")
  endif()
  string(APPEND expected "${line}\n")
endwhile()
string(REGEX REPLACE "\n+$" "" expected "${expected}")

execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE actual
                ERROR_VARIABLE errors)
string(REPLACE "\r\n" "\n" actual "${actual}")
string(REGEX REPLACE "\n+$" "" actual "${actual}")
# The texts go out verbatim (message without a mode); FATAL_ERROR would re-wrap them.
if(NOT rc STREQUAL "0")
  message("--- stderr\n${errors}\n--- stdout\n${actual}")
  message(FATAL_ERROR "${PROGRAM} exited ${rc}")
endif()

if(NOT actual STREQUAL expected)
  # The first line that differs, to point the reader at it.
  set(want "${expected}\n")
  set(got "${actual}\n")
  set(line_number 1)
  while(TRUE)
    string(FIND "${want}" "\n" want_end)
    string(FIND "${got}" "\n" got_end)
    set(want_line "(no more lines)")
    set(got_line "(no more lines)")
    if(NOT want_end EQUAL -1)
      string(SUBSTRING "${want}" 0 ${want_end} want_line)
    endif()
    if(NOT got_end EQUAL -1)
      string(SUBSTRING "${got}" 0 ${got_end} got_line)
    endif()
    if(NOT want_line STREQUAL got_line OR want_end EQUAL -1 OR got_end EQUAL -1)
      break()
    endif()
    math(EXPR want_end "${want_end} + 1")
    math(EXPR got_end "${got_end} + 1")
    string(SUBSTRING "${want}" ${want_end} -1 want)
    string(SUBSTRING "${got}" ${got_end} -1 got)
    math(EXPR line_number "${line_number} + 1")
  endwhile()
  message("first difference, line ${line_number}:\n"
          "  want: ${want_line}\n"
          "  got:  ${got_line}\n"
          "--- want\n${expected}\n"
          "--- got\n${actual}\n")
  message(FATAL_ERROR "the output of ${PROGRAM} is not the `// Output:` block of ${SOURCE}")
endif()
