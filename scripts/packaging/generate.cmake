# Writes what the package holds beside the program, from the program itself, into OUT:
#   locksim.1 and locksim.1.gz   the man page (`locksim man`), compressed as Debian wants
#   locksim.bash                 the bash completion (`locksim bash-completion`)
#   version.txt                  the package's version: the program's, and the commit it
#                                was built from with that commit's date, so newer sorts later
#   changelog.gz                 Debian's changelog of a native package: one entry, this build
# Run by the build after every link of locksim (scripts/packaging/package.cmake):
#   cmake -DLOCKSIM=… -DSOURCE_DIR=… -DOUT=… -DMAINTAINER=… -P scripts/packaging/generate.cmake
function(run_into file)
  execute_process(COMMAND ${ARGN} OUTPUT_FILE "${file}" RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "${ARGN} failed (${failed})")
  endif()
endfunction()

file(MAKE_DIRECTORY "${OUT}")
run_into("${OUT}/locksim.1" "${LOCKSIM}" man)
# -n: no name or time stamp in the header, so the same page gives the same bytes.
run_into("${OUT}/locksim.1.gz" gzip -9 -n -c "${OUT}/locksim.1")
run_into("${OUT}/locksim.bash" "${LOCKSIM}" bash-completion)

# "locksim 0.1.0 (commit d88f829aa123)", or "(commit d88f829aa123-dirty.1ee91d19)".
execute_process(COMMAND "${LOCKSIM}" --version OUTPUT_VARIABLE identity OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT identity MATCHES "^locksim ([0-9][0-9.]*) \\(commit ([0-9a-f]+|unknown)(-dirty\\.([0-9a-f]+))?\\)$")
  message(FATAL_ERROR "unexpected `locksim --version`: ${identity}")
endif()
set(version "${CMAKE_MATCH_1}")
set(commit "${CMAKE_MATCH_2}")
set(dirty "${CMAKE_MATCH_4}")
# The commit's own time, in UTC: a later commit sorts later, and no build clock is read.
set(date "Thu, 01 Jan 1970 00:00:00 +0000")
if(NOT commit STREQUAL "unknown")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TZ=UTC git -C "${SOURCE_DIR}" log -1 --format=%cd
                          --date=format-local:%Y%m%d%H%M%S ${commit}
                  OUTPUT_VARIABLE stamp OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TZ=UTC LC_ALL=C git -C "${SOURCE_DIR}" log -1 --format=%cd
                          "--date=format-local:%a, %d %b %Y %H:%M:%S +0000" ${commit}
                  OUTPUT_VARIABLE date OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(failed OR NOT stamp)
    message(FATAL_ERROR "cannot read the date of commit ${commit} in ${SOURCE_DIR}")
  endif()
  string(APPEND version "+git${stamp}.${commit}")
  if(dirty)
    string(APPEND version "+dirty.${dirty}")
  endif()
endif()
file(WRITE "${OUT}/version.txt" "${version}\n")

set(built_from "Built from commit ${commit} of the locksim repository.")
if(dirty)
  set(built_from "Built from commit ${commit} of the locksim repository, with uncommitted changes (${dirty}).")
endif()
file(WRITE "${OUT}/changelog" "locksim (${version}) unstable; urgency=medium

  * ${built_from}

 -- ${MAINTAINER}  ${date}
")
run_into("${OUT}/changelog.gz" gzip -9 -n -c "${OUT}/changelog")
