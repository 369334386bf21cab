# Finds Debian's LLVM/MLIR 22 and makes its CMake helpers (add_mlir_dialect,
# add_mlir_library, add_lit_testsuite, ...) available to the project.

if(NOT MLIR_DIR AND EXISTS /usr/lib/llvm-22/lib/cmake/mlir)
  set(MLIR_DIR /usr/lib/llvm-22/lib/cmake/mlir)
endif()
find_package(MLIR REQUIRED CONFIG)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "Phobos needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "Using MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})

include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
link_directories(${LLVM_BUILD_LIBRARY_DIR})
separate_arguments(PHOBOS_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
add_definitions(${PHOBOS_LLVM_DEFINITIONS})

# Tools found next to the LLVM installation, used by the lit configuration.
set(PHOBOS_LLVM_TOOLS_DIR "${LLVM_TOOLS_BINARY_DIR}")

if(NOT LLVM_EXTERNAL_LIT AND EXISTS "${LLVM_TOOLS_BINARY_DIR}/lit")
  set(LLVM_EXTERNAL_LIT "${LLVM_TOOLS_BINARY_DIR}/lit" CACHE STRING "lit")
endif()

# Self-contained tools (phobos-compile, phobos-run) for machines without
# LLVM: Debian's MLIR libraries link the LLVM shared library, so the
# imported LLVM target is pointed at a linker script that groups the static
# LLVM archives instead (only the members the tools use are linked).
option(PHOBOS_STATIC_TOOLS "Link LLVM statically into the tools" OFF)
if(PHOBOS_STATIC_TOOLS)
  file(GLOB phobos_llvm_archives "${LLVM_LIBRARY_DIR}/libLLVM*.a")
  list(JOIN phobos_llvm_archives " " phobos_llvm_group)
  set(phobos_llvm_script "${CMAKE_BINARY_DIR}/libLLVM-static-group.so")
  file(WRITE "${phobos_llvm_script}" "GROUP ( ${phobos_llvm_group} )\n")
  get_target_property(phobos_llvm_configs LLVM IMPORTED_CONFIGURATIONS)
  foreach(config ${phobos_llvm_configs})
    set_target_properties(LLVM PROPERTIES
      IMPORTED_LOCATION_${config} "${phobos_llvm_script}"
      IMPORTED_SONAME_${config} "")
  endforeach()
  find_library(PHOBOS_STATIC_ZLIB NAMES libz.a REQUIRED)
  find_library(PHOBOS_STATIC_ZSTD NAMES libzstd.a REQUIRED)
  set_target_properties(LLVM PROPERTIES
    IMPORTED_LOCATION "${phobos_llvm_script}"
    INTERFACE_LINK_LIBRARIES "${PHOBOS_STATIC_ZLIB};${PHOBOS_STATIC_ZSTD};rt;dl;m;pthread")
  # Debian's LLVMSupport names the shared z3, zlib and zstd; a tool that
  # reaches it through an MLIR library would need them on the GPU machine
  # (which has no z3). The tools never call z3: link the static archives.
  if(TARGET LLVMSupport)
    set_target_properties(LLVMSupport PROPERTIES
      INTERFACE_LINK_LIBRARIES "${PHOBOS_STATIC_ZLIB};${PHOBOS_STATIC_ZSTD};rt;dl;m;LLVMDemangle")
  endif()
  add_link_options(-static-libstdc++ -static-libgcc)
endif()
