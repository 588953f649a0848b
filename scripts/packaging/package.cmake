# Installing locksim, and its Debian package (`cpack -G DEB` in the build folder, or
# scripts/package-deb.sh): what goes where, by Debian's layout under CMAKE_INSTALL_PREFIX
# (/usr for the package; the program looks for its library where it was built to be,
# cli/installed_files.hpp):
#   bin/locksim
#   share/man/man1/locksim.1.gz                   the man page, written by `locksim man`
#   share/bash-completion/completions/locksim     written by `locksim bash-completion`
#   share/locksim/scenarios/                      the scenario library, examples included
#   share/locksim/scenario.schema.json            the JSON Schema of scenario files
#   share/doc/locksim/                            README.md, docs/, copyright, changelog.gz
# docs/packaging.md says how it is built and checked.
include(GNUInstallDirs)

# The program is told where its installed files are (cli/installed_files.cpp, alone: another
# prefix recompiles one file).
set_source_files_properties(cli/installed_files.cpp PROPERTIES COMPILE_DEFINITIONS
  "LOCKSIM_DATA_DIR=\"${CMAKE_INSTALL_FULL_DATADIR}/locksim\";LOCKSIM_DOC_DIR=\"${CMAKE_INSTALL_FULL_DOCDIR}\"")

set(LOCKSIM_PACKAGE_MAINTAINER "Seed f9f8e86f maintainers <maintainers@users.noreply.a-seed-f9f8e86f.example>"
    CACHE STRING "Maintainer of the Debian package: name <address>")

# The man page, the completion, the changelog and the package's version, from the program
# after every link: they describe the binary beside them.
set(LOCKSIM_PACKAGE_FILES ${CMAKE_BINARY_DIR}/package)
set(LOCKSIM_GENERATED
    ${LOCKSIM_PACKAGE_FILES}/locksim.1 ${LOCKSIM_PACKAGE_FILES}/locksim.1.gz ${LOCKSIM_PACKAGE_FILES}/locksim.bash
    ${LOCKSIM_PACKAGE_FILES}/version.txt ${LOCKSIM_PACKAGE_FILES}/changelog.gz)
add_custom_command(
  OUTPUT ${LOCKSIM_GENERATED}
  COMMAND ${CMAKE_COMMAND} -DLOCKSIM=$<TARGET_FILE:locksim> -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DOUT=${LOCKSIM_PACKAGE_FILES} -DMAINTAINER=${LOCKSIM_PACKAGE_MAINTAINER}
          -P ${PROJECT_SOURCE_DIR}/scripts/packaging/generate.cmake
  DEPENDS locksim ${PROJECT_SOURCE_DIR}/scripts/packaging/generate.cmake
  COMMENT "Writing the man page, the bash completion and the changelog from locksim"
  VERBATIM)
add_custom_target(locksim_package_files ALL DEPENDS ${LOCKSIM_GENERATED})

# Scenario files name their schema beside them ("$schema": "scenario.schema.json", and
# "../scenario.schema.json" in examples/): a link keeps that true in the installed library.
file(MAKE_DIRECTORY ${LOCKSIM_PACKAGE_FILES}/links)
file(CREATE_LINK ../scenario.schema.json ${LOCKSIM_PACKAGE_FILES}/links/scenario.schema.json SYMBOLIC)

install(TARGETS locksim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${LOCKSIM_PACKAGE_FILES}/locksim.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${LOCKSIM_PACKAGE_FILES}/locksim.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME locksim)
# The library: scenario files and the files of samples they read; not scenarios/schema/,
# the C++ that reads them.
install(DIRECTORY scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/locksim/scenarios
        FILES_MATCHING PATTERN "*.json" PATTERN "*.txt"
        PATTERN "schema" EXCLUDE PATTERN "scenario.schema.json" EXCLUDE)
install(FILES scenarios/scenario.schema.json DESTINATION ${CMAKE_INSTALL_DATADIR}/locksim)
install(FILES ${LOCKSIM_PACKAGE_FILES}/links/scenario.schema.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/locksim/scenarios)
install(FILES README.md scripts/packaging/copyright ${LOCKSIM_PACKAGE_FILES}/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME locksim)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "deterministic simulator of distributed locks")
# Lines of at most 79 columns, as the control file holds them (lintian).
set(CPACK_PACKAGE_DESCRIPTION
    "locksim runs a small world of job servers, a lock store, a billing database
and a payment provider under pauses, clock jumps, crashes and network faults,
in every design of a scenario (no protection, fencing tokens, idempotency
keys, another store) under the same seed, and counts what went wrong:
customers charged twice, two holders at once, stale writes. The same file and
seed give the same output on any machine. It checks a scenario's expectations
for CI (JUnit XML), sweeps many seeds for rates with intervals, explores every
point where a fault can strike, and writes HTML reports. The scenario library
and its JSON Schema are in /usr/share/locksim.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${LOCKSIM_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: what the binary links, read from it by dpkg-shlibdeps (Debian's dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
# The package installs where the program was built to look (its library, its manual).
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_LOCKSIM_FILES ${LOCKSIM_PACKAGE_FILES})
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/scripts/packaging/cpack-version.cmake)
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_BINARY_DIR}/deb)
include(CPack)
