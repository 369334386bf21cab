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
