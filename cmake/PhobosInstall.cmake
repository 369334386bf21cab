# What `cmake --install build --prefix P` puts under P: the headers (with
# the generated .inc files and the .td sources, for projects that extend
# the dialects), every Phobos library, and a CMake package:
#
#   find_package(Phobos CONFIG REQUIRED)   # CMAKE_PREFIX_PATH=P
#   target_link_libraries(my-opt PRIVATE Phobos::Phobos)
#
# Phobos::Phobos carries every Phobos library and, through them, what they
# need from MLIR 22 (found again by the package).

include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/Phobos
                  ${PROJECT_SOURCE_DIR}/include/phobos-c
  DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/Phobos
  DESTINATION include
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.h"
  PATTERN "CMakeFiles" EXCLUDE)

get_property(phobos_libraries GLOBAL PROPERTY PHOBOS_LIBRARIES)
add_library(Phobos INTERFACE)
target_link_libraries(Phobos INTERFACE ${phobos_libraries})
target_include_directories(Phobos INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:include>)
install(TARGETS Phobos EXPORT PhobosTargets)

set(PHOBOS_INSTALL_CMAKE_DIR lib${LLVM_LIBDIR_SUFFIX}/cmake/phobos)
install(EXPORT PhobosTargets
  NAMESPACE Phobos::
  DESTINATION ${PHOBOS_INSTALL_CMAKE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/PhobosConfig.cmake.in
  ${PROJECT_BINARY_DIR}/PhobosConfig.cmake
  INSTALL_DESTINATION ${PHOBOS_INSTALL_CMAKE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/PhobosConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/PhobosConfig.cmake
              ${PROJECT_BINARY_DIR}/PhobosConfigVersion.cmake
  DESTINATION ${PHOBOS_INSTALL_CMAKE_DIR})
