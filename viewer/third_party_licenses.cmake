# cmake -DLOCK=package-lock.json -DOUT=THIRD-PARTY-LICENSES.txt -P third_party_licenses.cmake
#
# Writes the licence of every npm package the viewer ships: each package of the lock file's
# production tree (not "dev": the browser-test tools stay out), with its name, version, SPDX
# identifier and the text of its own LICENSE file. A package without a licence file is an error,
# so a new dependency cannot slip in unlicensed.
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
file(WRITE "${OUT}" "${text}")
