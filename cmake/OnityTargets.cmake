# Defines Onity's imported targets; used by the installed package (lib/cmake/Onity/OnityConfig.cmake,
# written by scripts/install-sdk.sh) and by the source tree's CMakeLists.txt (add_subdirectory).
#
#   onity_define_targets(INCLUDE_DIR <dir> [SHARED <lib>] [IMPLIB <lib>] [STATIC <lib>]
#                        [NATIVE_LIBS <lib>...] [GLOBAL])
#
#   Onity::onity         the shared library (IMPORTED_LOCATION, IMPORTED_IMPLIB on Windows); without
#                        SHARED (iOS, Android: static libraries only) an INTERFACE target that links
#                        Onity::onity_static, so that one CMakeLists serves every platform
#   Onity::onity_static  the static library and the system libraries it needs (NATIVE_LIBS)
#   Onity::cpp           onity.hpp, the C++11 wrapper: header-only, cxx_std_11 (link a library too)
#   Onity::coro          onity/coro.hpp, the C++20 coroutines: header-only, cxx_std_20 (idem)
#
# Sets Onity_SHARED_FOUND / Onity_STATIC_FOUND in the caller's scope.
include_guard(GLOBAL)

function(onity_define_targets)
  cmake_parse_arguments(A "GLOBAL" "INCLUDE_DIR;SHARED;IMPLIB;STATIC" "NATIVE_LIBS" ${ARGN})
  set(g)
  if(A_GLOBAL)
    set(g GLOBAL)
  endif()
  if(NOT A_SHARED AND NOT A_STATIC)
    message(FATAL_ERROR "Onity: neither a shared nor a static library was given")
  endif()

  if(A_STATIC)
    add_library(Onity::onity_static STATIC IMPORTED ${g})
    set_target_properties(Onity::onity_static PROPERTIES
      IMPORTED_LOCATION "${A_STATIC}"
      IMPORTED_LINK_INTERFACE_LANGUAGES C
      INTERFACE_INCLUDE_DIRECTORIES "${A_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${A_NATIVE_LIBS}")
    set(Onity_STATIC_FOUND TRUE PARENT_SCOPE)
  else()
    set(Onity_STATIC_FOUND FALSE PARENT_SCOPE)
  endif()

  if(A_SHARED)
    add_library(Onity::onity SHARED IMPORTED ${g})
    set_target_properties(Onity::onity PROPERTIES
      IMPORTED_LOCATION "${A_SHARED}"
      INTERFACE_INCLUDE_DIRECTORIES "${A_INCLUDE_DIR}")
    if(A_IMPLIB)
      set_target_properties(Onity::onity PROPERTIES IMPORTED_IMPLIB "${A_IMPLIB}")
    endif()
    if(APPLE)
      # rustc (and scripts/build-plugins.sh) name the dylib @rpath/libonity.dylib.
      get_filename_component(name "${A_SHARED}" NAME)
      set_target_properties(Onity::onity PROPERTIES IMPORTED_SONAME "@rpath/${name}")
    elseif(NOT WIN32)
      # cargo's cdylib has no DT_SONAME: link with -L/-lonity so that DT_NEEDED is "libonity.so"
      # and not the path the library had at link time (CMake still adds its directory as rpath).
      set_target_properties(Onity::onity PROPERTIES IMPORTED_NO_SONAME TRUE)
    endif()
    set(Onity_SHARED_FOUND TRUE PARENT_SCOPE)
  else()
    add_library(Onity::onity INTERFACE IMPORTED ${g})
    set_target_properties(Onity::onity PROPERTIES INTERFACE_LINK_LIBRARIES Onity::onity_static)
    set(Onity_SHARED_FOUND FALSE PARENT_SCOPE)
  endif()

  add_library(Onity::cpp INTERFACE IMPORTED ${g})
  set_target_properties(Onity::cpp PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${A_INCLUDE_DIR}"
    INTERFACE_COMPILE_FEATURES cxx_std_11)
  add_library(Onity::coro INTERFACE IMPORTED ${g})
  set_target_properties(Onity::coro PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${A_INCLUDE_DIR}"
    INTERFACE_COMPILE_FEATURES cxx_std_20)
endfunction()

# "-lpthread -lm -framework Foo" (rustc --print native-static-libs) -> "pthread;m;-framework Foo"
function(onity_native_libs_to_list out text)
  separate_arguments(words UNIX_COMMAND "${text}")
  set(libs)
  set(prev)
  foreach(w IN LISTS words)
    if(prev STREQUAL "-framework")
      list(APPEND libs "-framework ${w}")
    elseif(w MATCHES "^-l(.+)$")
      list(APPEND libs "${CMAKE_MATCH_1}")
    elseif(NOT w STREQUAL "-framework")
      list(APPEND libs "${w}")
    endif()
    set(prev "${w}")
  endforeach()
  set(${out} "${libs}" PARENT_SCOPE)
endfunction()
