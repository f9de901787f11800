# cmake -DLOCK=package-lock.json -DOUT=THIRD-PARTY-LICENSES.txt -P third_party_licenses.cmake
#
# Writes the licence of every npm package the viewer ships: each package of the lock file's
# production tree (not "dev": the browser-test tools stay out), with its name, version, SPDX
# identifier and the text of its own LICENSE file. A package without a licence file is an error,
# so a new dependency cannot slip in unlicensed.
#
# -DNOTICES="file|file|...": more licence texts appended as they are: the Debian copyright files
# of the C and C++ libraries compiled into coz-reader.wasm (wasi-libc, libc++, libc++abi and the
# compiler runtime for wasm32).
file(READ "${LOCK}" lock)
get_filename_component(root "${LOCK}" DIRECTORY)
string(JSON count LENGTH "${lock}" packages)
math(EXPR last "${count} - 1")
set(text "The coz-amp viewer bundles these npm packages (viewer/package-lock.json, production tree).\n")
foreach(i RANGE ${last})
  string(JSON path MEMBER "${lock}" packages ${i})
  if(path STREQUAL "")
    continue()
  endif()
  string(JSON dev ERROR_VARIABLE no_dev GET "${lock}" packages "${path}" dev)
  if(dev STREQUAL "ON" OR dev STREQUAL "true")
    continue()
  endif()
  string(JSON version GET "${lock}" packages "${path}" version)
  string(JSON spdx ERROR_VARIABLE no_spdx GET "${lock}" packages "${path}" license)
  file(GLOB candidates "${root}/${path}/LICEN[CS]E*" "${root}/${path}/licen[cs]e*")
  list(LENGTH candidates found)
  if(found EQUAL 0)
    message(FATAL_ERROR "${path} ${version} has no licence file: cannot ship it in the viewer")
  endif()
  list(GET candidates 0 license_file)
  file(READ "${license_file}" license)
  string(REGEX REPLACE "^node_modules/|/node_modules/" " " name "${path}")
  string(STRIP "${name}" name)
  string(APPEND text "\n================================================================================\n"
                     "${name} ${version} (${spdx})\n"
                     "================================================================================\n"
                     "${license}\n")
endforeach()
if(NOTICES)
  string(APPEND text "\n\ncoz-reader.wasm, the page's profile reader, is compiled with these libraries "
                     "linked in statically; their licences follow.\n")
  string(REPLACE "|" ";" notices "${NOTICES}")
  foreach(notice ${notices})
    if(NOT EXISTS "${notice}")
      message(FATAL_ERROR "${notice} is missing: the licence of a library in coz-reader.wasm")
    endif()
    file(READ "${notice}" license)
    string(APPEND text "\n================================================================================\n"
                       "${notice}\n"
                       "================================================================================\n"
                       "${license}\n")
  endforeach()
endif()
file(WRITE "${OUT}" "${text}")
