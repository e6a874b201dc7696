# Helpers shared by Tide's CMake files.

# Every Tide library links the one MLIR shared library (libMLIR.so), the same
# one stock mlir-opt-22 uses: binaries stay small, links take a fraction of a
# second, and plugins loaded into mlir-opt share its MLIR.
function(tide_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/dialects>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/dialects>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  # Consumers in the same build (add_subdirectory) need MLIR's headers too;
  # installed consumers get them from TideConfig.cmake.
  foreach(dir ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
    target_include_directories(${name} SYSTEM PUBLIC $<BUILD_INTERFACE:${dir}>)
  endforeach()
  add_library(Tide::${name} ALIAS ${name})
  install(TARGETS ${name} EXPORT TideTargets
    ARCHIVE DESTINATION lib LIBRARY DESTINATION lib RUNTIME DESTINATION bin)
  set_property(GLOBAL APPEND PROPERTY TIDE_LIBS ${name})
endfunction()

# Generated reference docs are copied to docs/generated/ by `tide-doc`.
function(tide_add_doc target file)
  set_property(GLOBAL APPEND PROPERTY TIDE_DOCS
    "${CMAKE_CURRENT_BINARY_DIR}/${file}")
  set_property(GLOBAL APPEND PROPERTY TIDE_DOC_TARGETS ${target})
endfunction()
