# Finds tinyxml2 (Debian: libtinyxml2-dev) for the compiler of the current project and sets the
# cache variables OF_TINYXML2_INCLUDE_DIR and OF_TINYXML2_LIBRARY (set them by hand to use
# another copy). Native builds ask pkg-config first; cross builds only search the target's
# root (CMAKE_FIND_ROOT_PATH, e.g. Debian multiarch libtinyxml2-dev:arm64), never the host's.
# Included by platform/CMakeLists.txt and by the nested host build of platform/tablegen/.
macro(of_find_tinyxml2)
  if(NOT CMAKE_CROSSCOMPILING)
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND)
      pkg_check_modules(OF_PC_TINYXML2 QUIET tinyxml2)
    endif()
  endif()
  find_path(OF_TINYXML2_INCLUDE_DIR tinyxml2.h HINTS ${OF_PC_TINYXML2_INCLUDE_DIRS}
            DOC "Directory of tinyxml2.h")
  find_library(OF_TINYXML2_LIBRARY NAMES tinyxml2 HINTS ${OF_PC_TINYXML2_LIBRARY_DIRS}
               DOC "The tinyxml2 library")
  if(OF_TINYXML2_INCLUDE_DIR AND OF_TINYXML2_LIBRARY)
    set(OF_TINYXML2_FOUND ON)
  else()
    set(OF_TINYXML2_FOUND OFF)
  endif()
endmacro()
