# Moves BINARY's debug info to DEBUG_ROOT/.build-id/xx/rest.debug, leaving no .gnu_debuglink, so
# only a build-id search can find it.
execute_process(COMMAND readelf -n ${BINARY} OUTPUT_VARIABLE notes)
string(REGEX MATCH "Build ID: ([0-9a-f]+)" _ "${notes}")
set(id "${CMAKE_MATCH_1}")
if(NOT id)
  message(FATAL_ERROR "no build id in ${BINARY}")
endif()
string(SUBSTRING "${id}" 0 2 head)
string(SUBSTRING "${id}" 2 -1 rest)
file(MAKE_DIRECTORY ${DEBUG_ROOT}/.build-id/${head})
execute_process(COMMAND objcopy --only-keep-debug ${BINARY} ${DEBUG_ROOT}/.build-id/${head}/${rest}.debug
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND objcopy --strip-debug ${BINARY} COMMAND_ERROR_IS_FATAL ANY)
