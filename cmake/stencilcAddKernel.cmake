# stencilc_add_kernel(TARGET SOURCE file.st [STENCIL name] [TYPE float|double]
#                     [CONFIG spec | AUTOTUNE [BUDGET 60s]] [NAME file]
#                     [DISTRIBUTED [PROCS PXxPYxPZ] [LINK nvlink|GBPS]] [OPTIONS ...])
#
# Makes TARGET, a static library of the CUDA source that stencilc writes from SOURCE, with the
# folder of the generated header (NAME.h) as a public include directory and CUDA::cudart as a
# public dependency. The .cu and .h are written again when SOURCE or the stencilc program
# changes. Compiled with CMake's CUDA language, so CMAKE_CUDA_ARCHITECTURES (or the target's
# CUDA_ARCHITECTURES) decides the GPUs. NAME is the generated files' name (default: STENCIL, else
# SOURCE's name without .st); the C functions are always prefixed by the stencil's name.
# DISTRIBUTED adds the multi-GPU API (--distributed; PROCS and LINK choose the exchange depth and
# overlap for that process grid and link, docs/distributed.md) and NCCL as a public dependency
# (stencilc::nccl, found by _stencilc_nccl below). OPTIONS passes further stencilc options (e.g.
# --fast-math, --grid 512x512x512).

# stencilc::nccl: NCCL's header and library, which a DISTRIBUTED kernel's header includes and its
# code calls. Looked for under NCCL_ROOT (a CMake or environment variable), $ENV{NCCL_HOME}, the
# CUDA toolkit and the system; the cache variables NCCL_INCLUDE_DIR and NCCL_LIBRARY override.
function(_stencilc_nccl target)
  if(TARGET stencilc::nccl)
    return()
  endif()
  set(hints ${NCCL_ROOT} $ENV{NCCL_ROOT} $ENV{NCCL_HOME} ${CUDAToolkit_LIBRARY_ROOT})
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY nccl HINTS ${hints} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib lib64)
  if(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY)
    message(FATAL_ERROR "stencilc_add_kernel(${target}): DISTRIBUTED needs NCCL (nccl.h: "
                        "${NCCL_INCLUDE_DIR}, libnccl: ${NCCL_LIBRARY}); set NCCL_ROOT, or "
                        "NCCL_INCLUDE_DIR and NCCL_LIBRARY")
  endif()
  add_library(stencilc::nccl UNKNOWN IMPORTED GLOBAL)
  set_target_properties(stencilc::nccl PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endfunction()

function(stencilc_add_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "AUTOTUNE;DISTRIBUTED" "SOURCE;STENCIL;TYPE;CONFIG;BUDGET;NAME;PROCS;LINK"
                        "OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "stencilc_add_kernel: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "stencilc_add_kernel(${target}): SOURCE file.st is required")
  endif()
  if(ARG_CONFIG AND ARG_AUTOTUNE)
    message(FATAL_ERROR "stencilc_add_kernel(${target}): CONFIG and AUTOTUNE exclude each other")
  endif()
  if(ARG_BUDGET AND NOT ARG_AUTOTUNE)
    message(FATAL_ERROR "stencilc_add_kernel(${target}): BUDGET needs AUTOTUNE")
  endif()
  if((ARG_PROCS OR ARG_LINK) AND NOT ARG_DISTRIBUTED)
    message(FATAL_ERROR "stencilc_add_kernel(${target}): PROCS and LINK need DISTRIBUTED")
  endif()
  if(ARG_LINK AND NOT ARG_PROCS)
    message(FATAL_ERROR "stencilc_add_kernel(${target}): LINK needs PROCS (the process grid it is for)")
  endif()
  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST _languages)
    message(FATAL_ERROR "stencilc_add_kernel(${target}): enable CUDA first "
                        "(project(... LANGUAGES C CUDA) or enable_language(CUDA))")
  endif()

  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(name "${ARG_NAME}")
  if(NOT name)
    set(name "${ARG_STENCIL}")
  endif()
  if(NOT name)
    get_filename_component(name "${source}" NAME_WE)
  endif()
  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/stencilc/${target}")
  set(args "${source}" -o "${outdir}/${name}.cu" -q)
  foreach(pair STENCIL:--stencil TYPE:--type CONFIG:--config BUDGET:--budget PROCS:--procs LINK:--link)
    string(REPLACE ":" ";" pair "${pair}")   # an argument with a value, and its option
    list(GET pair 0 key)
    list(GET pair 1 option)
    if(ARG_${key})
      list(APPEND args ${option} "${ARG_${key}}")
    endif()
  endforeach()
  if(ARG_AUTOTUNE)
    list(APPEND args --autotune)
  endif()
  if(ARG_DISTRIBUTED)
    _stencilc_nccl(${target})
    list(APPEND args --distributed)
  endif()
  list(APPEND args ${ARG_OPTIONS})

  file(MAKE_DIRECTORY "${outdir}")
  add_custom_command(
    OUTPUT "${outdir}/${name}.cu" "${outdir}/${name}.h"
    COMMAND stencilc::stencilc ${args}
    DEPENDS "${source}" "${STENCILC_EXECUTABLE}"
    COMMENT "stencilc ${ARG_SOURCE} -> ${name}.cu, ${name}.h"
    VERBATIM)
  add_library(${target} STATIC "${outdir}/${name}.cu" "${outdir}/${name}.h")
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${outdir}>")
  target_link_libraries(${target} PUBLIC CUDA::cudart)
  if(ARG_DISTRIBUTED)
    target_link_libraries(${target} PUBLIC stencilc::nccl)
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
