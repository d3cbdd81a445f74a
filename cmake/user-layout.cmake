# The files users meet besides the tool (docs/usage.md): the man page, the
# clang configuration file and the CMake package, in the build tree as in the
# install tree.  Included by CMakeLists.txt after the tool's own targets.

# --- the man page, written from the option table at build time ---------------
add_executable(offload-link-man tools/offload-link-man/main.c)
target_compile_options(offload-link-man PRIVATE ${OL_WARNINGS})
target_link_libraries(offload-link-man PRIVATE olcore)
set(OL_MAN_PAGE ${CMAKE_BINARY_DIR}/share/man/man1/offload-link.1)
add_custom_command(OUTPUT ${OL_MAN_PAGE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/share/man/man1
  COMMAND offload-link-man ${OL_MAN_PAGE}
  DEPENDS offload-link-man
  COMMENT "Writing the man page offload-link.1 from the option table")
add_custom_target(offload-link-man-page ALL DEPENDS ${OL_MAN_PAGE})
install(FILES ${OL_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# --- clang.cfg: clang --config=<it> finds the wrapper beside it --------------
# <CFGDIR> (the file's own directory) is read by clang 16, 19 and 22 alike, so
# the file stays right when the installed tree moves.
set(OL_INSTALL_WRAPPER_DIR ${CMAKE_INSTALL_LIBEXECDIR}/offload-link)
set(OL_INSTALL_CLANG_CONFIG ${CMAKE_INSTALL_DATADIR}/offload-link/clang.cfg)
file(RELATIVE_PATH OL_CFG_TO_WRAPPER_DIR
  ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/offload-link
  ${CMAKE_INSTALL_PREFIX}/${OL_INSTALL_WRAPPER_DIR})
set(OL_CLANG_CONFIG_TEXT "# clang --config=<this file>: the link step of an offloading build runs
# offload-link (<CFGDIR>/${OL_CFG_TO_WRAPPER_DIR}/clang-linker-wrapper).
# clang 16 uses the wrapper for OpenMP with --offload-new-driver only
# (clang16.cfg beside this file adds it).
-B<CFGDIR>/${OL_CFG_TO_WRAPPER_DIR}
")
# The build tree mirrors the installed layout (share/ and libexec/ under it),
# so the same file serves both.
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/share/offload-link/clang.cfg CONTENT "${OL_CLANG_CONFIG_TEXT}")
# clang 16 runs the wrapper for OpenMP only under --offload-new-driver (its
# default driver never does): clang16.cfg adds it to the file above, which it
# includes (@file in a configuration file is relative to that file).
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/share/offload-link/clang16.cfg CONTENT
"# clang-16 --config=<this file>, on the compile and the link lines: clang.cfg,
# and the offloading driver that runs the linker wrapper (clang 17 and later
# use it for OpenMP by default; there clang.cfg alone is the file to use).
@clang.cfg
--offload-new-driver
")
install(FILES ${CMAKE_BINARY_DIR}/share/offload-link/clang.cfg
  ${CMAKE_BINARY_DIR}/share/offload-link/clang16.cfg
  DESTINATION ${CMAKE_INSTALL_DATADIR}/offload-link)
# The distributors of partitioned device LTO's jobs (docs/usage.md).
install(PROGRAMS tools/distributors/local.py tools/distributors/slurm.py
  DESTINATION ${CMAKE_INSTALL_DATADIR}/offload-link/distributors)

# --- the CMake package: find_package(OffloadLink) ------------------------------
include(CMakePackageConfigHelpers)
set(OL_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/OffloadLink)
configure_package_config_file(cmake/OffloadLinkConfig.cmake.in
  ${CMAKE_BINARY_DIR}/install-files/OffloadLinkConfig.cmake
  INSTALL_DESTINATION ${OL_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR OL_INSTALL_WRAPPER_DIR OL_INSTALL_CLANG_CONFIG)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install-files/OffloadLinkConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install-files/OffloadLinkConfig.cmake
  ${CMAKE_BINARY_DIR}/install-files/OffloadLinkConfigVersion.cmake
  DESTINATION ${OL_PACKAGE_DIR})
