# What the cluster runtime (phobos-sched, phobos-pod, phobos-tensor) builds
# on, from Debian's packages: gRPC and protobuf for every message
# (libgrpc++-dev, protobuf-compiler-grpc, libprotobuf-dev), Abseil
# (libabsl-dev) for status, flags and synchronisation, and OpenSSL's
# libcrypto (libssl-dev) to check credentials.
#
# phobos_cluster_deps carries them. With PHOBOS_STATIC_TOOLS it links
# Debian's static archives instead (the libraries pkg-config lists with
# --static: gRPC, protobuf, Abseil, OpenSSL, c-ares, re2, upb, zlib,
# libatomic), so the tools carried to the GPU machine need only the C
# library.

find_package(Protobuf REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(absl CONFIG REQUIRED)
find_program(PHOBOS_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
find_program(PHOBOS_PROTOC protoc REQUIRED)

add_library(phobos_cluster_deps INTERFACE)
if(PHOBOS_STATIC_TOOLS)
  find_package(PkgConfig REQUIRED)
  set(phobos_cluster_pkgs grpc++ protobuf absl_flags absl_flags_parse
      absl_flags_usage absl_statusor absl_status absl_synchronization
      absl_str_format absl_strings absl_time)
  execute_process(
    COMMAND ${PKG_CONFIG_EXECUTABLE} --static --libs ${phobos_cluster_pkgs}
    OUTPUT_VARIABLE phobos_cluster_static_libs
    OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE phobos_pkg_status)
  if(NOT phobos_pkg_status EQUAL 0)
    message(FATAL_ERROR "pkg-config --static --libs ${phobos_cluster_pkgs} failed")
  endif()
  separate_arguments(phobos_cluster_static_libs UNIX_COMMAND
    "${phobos_cluster_static_libs}")
  # Each -lNAME becomes the path of libNAME.a (no -Bstatic: the C library's
  # own parts, libpthread, libm, libdl and librt, stay shared, as for the
  # rest of the tools). libatomic.a lives with the compiler's runtime.
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libatomic.a
    OUTPUT_VARIABLE phobos_atomic OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET)
  set(phobos_cluster_archives "")
  foreach(item IN LISTS phobos_cluster_static_libs)
    if(NOT item MATCHES "^-l(.+)$")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    if(name MATCHES "^(pthread|m|dl|rt)$")
      continue()
    endif()
    if(name STREQUAL "atomic" AND EXISTS "${phobos_atomic}")
      list(APPEND phobos_cluster_archives "${phobos_atomic}")
      continue()
    endif()
    find_library(PHOBOS_STATIC_${name} NAMES lib${name}.a)
    if(NOT PHOBOS_STATIC_${name})
      message(FATAL_ERROR "PHOBOS_STATIC_TOOLS: lib${name}.a not found "
        "(the static archive of a library gRPC needs)")
    endif()
    list(APPEND phobos_cluster_archives "${PHOBOS_STATIC_${name}}")
  endforeach()
  list(REMOVE_DUPLICATES phobos_cluster_archives)
  target_link_libraries(phobos_cluster_deps INTERFACE
    "-Wl,--start-group" ${phobos_cluster_archives} "-Wl,--end-group"
    pthread dl m rt)
else()
  # OpenSSL's libcrypto: the credentials are checked (a key that is not the
  # certificate's, a certificate for another name) before gRPC sees them.
  find_package(OpenSSL REQUIRED)
  target_link_libraries(phobos_cluster_deps INTERFACE
    OpenSSL::Crypto
    gRPC::grpc++ protobuf::libprotobuf
    absl::flags absl::flags_parse absl::flags_usage absl::statusor
    absl::status absl::synchronization absl::str_format absl::strings
    absl::time)
endif()
