# Install rules: headers, the two libraries, and a CMake package so that another project
# can find_package(spillway) and link spillway::vfs and spillway::spill.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY vfs/include/ src/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(TARGETS spillway_vfs spillway_spill
        EXPORT spillwayTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT spillwayTargets NAMESPACE spillway::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/spillway)

configure_package_config_file(cmake/spillwayConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/spillwayConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/spillway)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/spillwayConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/spillwayConfig.cmake
              ${PROJECT_BINARY_DIR}/spillwayConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/spillway)

if(SPILLWAY_BUILD_TOOLS AND TARGET spillway)
  install(TARGETS spillway RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
