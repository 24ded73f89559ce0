# Installation for C++ users of the library (included at the end of the root CMakeLists.txt):
#
#   cmake --install build --prefix /opt/warpmatch
#
# installs the public headers (include/warpmatch/), the static library, the exported CMake
# package and a pkg-config file:
#
#   find_package(warpmatch CONFIG REQUIRED)               # CMAKE_PREFIX_PATH=/opt/warpmatch
#   target_link_libraries(app PRIVATE warpmatch::warpmatch)
#
#   c++ -std=c++20 app.cpp $(pkg-config --cflags --libs warpmatch)  # PKG_CONFIG_PATH=.../pkgconfig
#
# and the `warpmatch` command (component `cli`; the rest is component `dev`). The library is
# static, so its link dependencies travel with it: Threads, libdivsufsort and libdivsufsort64 (found again by the
# package's config) and, in a CUDA build, the static CUDA runtime (CUDA::cudart_static through
# find_dependency(CUDAToolkit)). fmt is header-only and private: consumers need nothing of it.
# tests/install_consumer/ builds a small program against an installed tree both ways.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(warpmatch::warpmatch ALIAS warpmatch)  # the same name in a build tree (add_subdirectory)
# The public headers are C++20 (std::span): say so to consumers.
target_compile_features(warpmatch INTERFACE cxx_std_20)
# In the build, the library links the target warpmatch_divsufsort (absolute paths found here);
# installed, targets the package's config makes from find_library() on the consumer's machine.
target_link_libraries(warpmatch INTERFACE $<INSTALL_INTERFACE:warpmatch::divsufsort> $<INSTALL_INTERFACE:warpmatch::divsufsort64>)

set(WARPMATCH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/warpmatch")

install(TARGETS warpmatch EXPORT warpmatchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/warpmatch DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
        FILES_MATCHING PATTERN "*.hpp")
install(EXPORT warpmatchTargets NAMESPACE warpmatch:: DESTINATION ${WARPMATCH_INSTALL_CMAKEDIR}
        COMPONENT dev)
install(TARGETS warpmatch_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)

# ---- CMake package: warpmatchConfig.cmake (+ version) ---------------------------------------
get_filename_component(WARPMATCH_DIVSUFSORT64_HINT "${DIVSUFSORT64_LIBRARY}" DIRECTORY)
configure_package_config_file(cmake/warpmatchConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/warpmatchConfig.cmake
                              INSTALL_DESTINATION ${WARPMATCH_INSTALL_CMAKEDIR})
# 0.x: minor versions may change the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/warpmatchConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/warpmatchConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/warpmatchConfigVersion.cmake
        DESTINATION ${WARPMATCH_INSTALL_CMAKEDIR} COMPONENT dev)

# ---- pkg-config: warpmatch.pc ------------------------------------------------------------
# Relocatable: the prefix is found from the .pc file's own directory. A static library, so its
# dependencies are in Libs (not Libs.private): `pkg-config --libs` alone links a program.
set(WARPMATCH_PC_LIBS "-lwarpmatch")
if(WARPMATCH_PORTABLE)
  string(APPEND WARPMATCH_PC_LIBS " -static-libstdc++ -static-libgcc")
endif()
if(WARPMATCH_DIVSUFSORT64_HINT AND NOT WARPMATCH_DIVSUFSORT64_HINT IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
  string(APPEND WARPMATCH_PC_LIBS " -L${WARPMATCH_DIVSUFSORT64_HINT}")
endif()
string(APPEND WARPMATCH_PC_LIBS " -ldivsufsort -ldivsufsort64")
if(WARPMATCH_HAVE_CUDA)
  string(APPEND WARPMATCH_PC_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
endif()
string(APPEND WARPMATCH_PC_LIBS " -pthread")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(WARPMATCH_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH WARPMATCH_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" WARPMATCH_PC_UP "${WARPMATCH_PC_UP}")
  set(WARPMATCH_PC_PREFIX "\${pcfiledir}/${WARPMATCH_PC_UP}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(WARPMATCH_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(WARPMATCH_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(WARPMATCH_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(WARPMATCH_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(cmake/warpmatch.pc.in ${CMAKE_CURRENT_BINARY_DIR}/warpmatch.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/warpmatch.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)
