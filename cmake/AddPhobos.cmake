# Thin wrappers over MLIR's library helpers: the same libraries, installed
# into Phobos's own export set (PhobosTargets) instead of MLIR's, so that
# `cmake --install` gives other compilers an imported Phobos::Phobos.

function(phobos_install_library name)
  install(TARGETS ${name}
    EXPORT PhobosTargets
    ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX}
    LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX})
  set_property(GLOBAL APPEND PROPERTY PHOBOS_LIBRARIES ${name})
endfunction()

function(add_phobos_library name)
  add_mlir_library(${name} DISABLE_INSTALL ${ARGN})
  phobos_install_library(${name})
endfunction()

function(add_phobos_dialect_library name)
  add_mlir_dialect_library(${name} DISABLE_INSTALL ${ARGN})
  phobos_install_library(${name})
endfunction()

function(add_phobos_conversion_library name)
  add_mlir_conversion_library(${name} DISABLE_INSTALL ${ARGN})
  phobos_install_library(${name})
endfunction()
