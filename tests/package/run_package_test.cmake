# The package test (ctest: package_installed, package_subdirectory). Run with cmake -P:
#   -DMODE=installed|subdirectory -DAGENTRT_BUILD=<agentrt's build folder>
#   -DAGENTRT_SOURCE=<agentrt's source folder> -DWORK=<a scratch folder> -DCXX=<compiler>
#   [-DBUILD_TYPE=...] [-DSANITIZE=address,undefined]
# installed: stages `cmake --install` of the build into WORK/stage, then configures, builds
# and runs the consumer against it with find_package(agentrt CONFIG). subdirectory: configures
# the consumer with agentrt added as a subproject and compiles every public header through it.
foreach(var MODE AGENTRT_BUILD AGENTRT_SOURCE WORK CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_package_test.cmake needs -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(JOIN " " command ${ARGN})
    message(FATAL_ERROR "${command}\nexited ${rc}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=${SANITIZE}")
endif()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE RelWithDebInfo)
endif()

file(REMOVE_RECURSE ${WORK}/${MODE})
set(consumer_build ${WORK}/${MODE}/consumer)
set(configure ${CMAKE_COMMAND} -S ${AGENTRT_SOURCE}/tests/package -B ${consumer_build} -G Ninja
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}"
    -DAGENTRT_CONSUMER_MODE=${MODE})
if(MODE STREQUAL "installed")
  set(stage ${WORK}/${MODE}/stage)
  run(${CMAKE_COMMAND} --install ${AGENTRT_BUILD} --prefix ${stage})
  run(${configure} -DCMAKE_PREFIX_PATH=${stage})
  run(${CMAKE_COMMAND} --build ${consumer_build})
  run(${consumer_build}/consumer)
  message(STATUS "consumer: ${last_output}")
  if(NOT last_output MATCHES "^ok [0-9]+ [0-9a-f]+")
    message(FATAL_ERROR "the consumer printed ${last_output}")
  endif()
elseif(MODE STREQUAL "subdirectory")
  run(${configure} -DAGENTRT_SOURCE=${AGENTRT_SOURCE})
  run(${CMAKE_COMMAND} --build ${consumer_build} --target consumer)
else()
  message(FATAL_ERROR "MODE must be installed or subdirectory, not ${MODE}")
endif()
