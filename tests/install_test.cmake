# Installs the build into a scratch prefix and profiles PROGRAM with the installed coz, which
# must find the installed runtime and viewer (not the build tree's).
set(prefix ${BUILD_DIR}/install-test)
file(REMOVE_RECURSE ${prefix})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
file(GLOB_RECURSE runtime ${prefix}/*/libcoz.so)
if(NOT runtime)
  message(FATAL_ERROR "libcoz.so was not installed")
endif()
execute_process(COMMAND ${prefix}/bin/coz run -v -o ${prefix}/p.coz --- ${PROGRAM} 1
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT err MATCHES "profile written to")
  message(FATAL_ERROR "installed coz failed (${rc}): ${err}")
endif()
# The installed coz writes its page with the installed viewer (a run this short may have nothing
# to show: exit 1, but the page is written and says why).
execute_process(COMMAND ${prefix}/bin/coz plot -o ${prefix}/p.html ${prefix}/p.coz
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc GREATER 1 OR NOT EXISTS ${prefix}/p.html OR NOT EXISTS ${prefix}/share/coz-amp/viewer/vega.min.js)
  message(FATAL_ERROR "installed coz plot failed (${rc}): ${err}")
endif()
if(NOT EXISTS ${prefix}/include/coz.h)
  message(FATAL_ERROR "coz.h was not installed")
endif()
message(STATUS "installed coz ran with ${runtime}")
