# agentrt_add_library(<name> [OWN_PRECOMPILED_HEADERS] SOURCES <files...>): one of agentrt's
# static libraries, target agentrt_<name>, alias and exported name agentrt::<name>. Its files
# start from the shared precompiled header, or with OWN_PRECOMPILED_HEADERS from one of its own
# (cmake/AgentrtPrecompiledHeaders.cmake).
#
# Its own sources see the whole source tree (PRIVATE); what it offers others is only the
# public headers: in the build tree the staged folder of links to them (AGENTRT_STAGED_INCLUDE,
# so an add_subdirectory consumer cannot reach engine/, internal/ or tests/), once installed
# the include folder. Every such library is installed and exported (agentrt_install_package).
function(agentrt_add_library name)
  cmake_parse_arguments(ARG "OWN_PRECOMPILED_HEADERS" "" "SOURCES" ${ARGN})
  add_library(agentrt_${name} STATIC ${ARG_SOURCES})
  add_library(agentrt::${name} ALIAS agentrt_${name})
  set_target_properties(agentrt_${name} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(agentrt_${name}
    PRIVATE ${PROJECT_SOURCE_DIR}
    PUBLIC $<BUILD_INTERFACE:${AGENTRT_STAGED_INCLUDE}>
           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_property(GLOBAL APPEND PROPERTY AGENTRT_LIBRARIES agentrt_${name})
  if(ARG_OWN_PRECOMPILED_HEADERS)
    agentrt_precompile_own_headers(agentrt_${name})
  else()
    agentrt_use_precompiled_headers(agentrt_pch agentrt_${name})
  endif()
endfunction()

# agentrt_stage_public_headers(): links every public header into AGENTRT_STAGED_INCLUDE and
# installs it. Public: every header under runtime/, mcp/, providers/, sim/ and testkit/ outside engine/ and
# internal/ folders (runtime/README.md says why each is public). Re-run at every configure, so a removed
# header leaves no stale link.
function(agentrt_stage_public_headers)
  file(GLOB_RECURSE headers RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/runtime/*.h ${PROJECT_SOURCE_DIR}/mcp/*.h
       ${PROJECT_SOURCE_DIR}/providers/*.h ${PROJECT_SOURCE_DIR}/sim/*.h
       ${PROJECT_SOURCE_DIR}/testkit/*.h)
  list(FILTER headers EXCLUDE REGEX "(^|/)(engine|internal)/")
  file(REMOVE_RECURSE ${AGENTRT_STAGED_INCLUDE})
  foreach(header IN LISTS headers)
    get_filename_component(folder ${header} DIRECTORY)
    file(MAKE_DIRECTORY ${AGENTRT_STAGED_INCLUDE}/${folder})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${header} ${AGENTRT_STAGED_INCLUDE}/${header} SYMBOLIC)
    if(AGENTRT_INSTALL)
      install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${folder}
              COMPONENT development)
    endif()
  endforeach()
endfunction()

# agentrt_install_package(): installs every agentrt library and the `agentrt` command, and
# the CMake package (agentrtConfig.cmake, its version file and the exported targets) that
# `find_package(agentrt CONFIG)` reads.
function(agentrt_install_package)
  get_property(libraries GLOBAL PROPERTY AGENTRT_LIBRARIES)
  install(TARGETS ${libraries} EXPORT agentrtTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(TARGETS agentrt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/agentrt)
  install(EXPORT agentrtTargets NAMESPACE agentrt:: DESTINATION ${config_dir}
          COMPONENT development)
  include(CMakePackageConfigHelpers)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/agentrtConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/agentrtConfig.cmake
                                INSTALL_DESTINATION ${config_dir}
                                PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/agentrtConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/agentrtConfig.cmake
                ${PROJECT_BINARY_DIR}/agentrtConfigVersion.cmake
          DESTINATION ${config_dir} COMPONENT development)
endfunction()
