# Read by cpack when it starts (CPACK_PROJECT_CONFIG_FILE): the package's version is the one
# scripts/packaging/generate.cmake derived from the built program, so the .deb's name and its
# changelog say the same, and both name the commit `locksim --version` names.
file(STRINGS "${CPACK_LOCKSIM_FILES}/version.txt" CPACK_DEBIAN_PACKAGE_VERSION LIMIT_COUNT 1)
if(NOT CPACK_DEBIAN_PACKAGE_VERSION)
  message(FATAL_ERROR "no ${CPACK_LOCKSIM_FILES}/version.txt: build locksim first (cmake --build build)")
endif()
