# CUTLASS (header-only, pinned to one release): its C++ headers come from the nvidia-cutlass wheel,
# which tools/fetch_cutlass.sh downloads with pip and unpacks into DGS_CUTLASS_DIR (build.sh runs
# it; here it runs at configure time when the folder lacks the headers). Nothing of Python is
# used at build or run time.
#
# Sets DGS_CUTLASS_FOUND, DGS_CUTLASS_INCLUDE_DIRS (include/, tools/util/include/ and the
# back-to-back fusion example folder) and DGS_CUTLASS_ARCHITECTURES: the CUDA architectures the
# CUTLASS kernels are compiled for, those of CMAKE_CUDA_ARCHITECTURES from 80 on (the kernels use
# Ampere's tensor-core and asynchronous-copy instructions; Hopper runs them too), 80 if none.
set(DGS_CUTLASS_VERSION 4.2.0.0)
set(DGS_CUTLASS_DIR "${CMAKE_BINARY_DIR}/_deps/cutlass-${DGS_CUTLASS_VERSION}"
    CACHE PATH "CUTLASS ${DGS_CUTLASS_VERSION} headers (tools/fetch_cutlass.sh unpacks them here)")

set(dgs_cutlass_files include/cutlass/cutlass.h include/cutlass/version.h
    tools/util/include/cutlass/util/device_memory.h
    examples/13_two_tensor_op_fusion/device/b2b_implicit_gemm_convolution.h)
function(dgs_cutlass_complete out)
  set(ok TRUE)
  foreach(f IN LISTS dgs_cutlass_files)
    if(NOT EXISTS "${DGS_CUTLASS_DIR}/${f}")
      set(ok FALSE)
    endif()
  endforeach()
  set(${out} ${ok} PARENT_SCOPE)
endfunction()

dgs_cutlass_complete(dgs_cutlass_ok)
if(NOT dgs_cutlass_ok)
  execute_process(COMMAND "${CMAKE_SOURCE_DIR}/tools/fetch_cutlass.sh" "${DGS_CUTLASS_DIR}"
                  RESULT_VARIABLE dgs_fetch_rc)
  dgs_cutlass_complete(dgs_cutlass_ok)
endif()

set(DGS_CUTLASS_FOUND FALSE)
if(dgs_cutlass_ok)
  # The pinned release, not whatever a user's DGS_CUTLASS_DIR holds.
  file(STRINGS "${DGS_CUTLASS_DIR}/include/cutlass/version.h" dgs_cutlass_version_lines
       REGEX "#define CUTLASS_(MAJOR|MINOR) ")
  string(REGEX REPLACE ".*CUTLASS_MAJOR ([0-9]+).*" "\\1" dgs_major "${dgs_cutlass_version_lines}")
  string(REGEX REPLACE ".*CUTLASS_MINOR ([0-9]+).*" "\\1" dgs_minor "${dgs_cutlass_version_lines}")
  if("${dgs_major}.${dgs_minor}" VERSION_EQUAL 4.2)
    set(DGS_CUTLASS_FOUND TRUE)
  else()
    message(WARNING "${DGS_CUTLASS_DIR} holds CUTLASS ${dgs_major}.${dgs_minor}, not the pinned "
                    "${DGS_CUTLASS_VERSION}")
  endif()
endif()

if(DGS_CUTLASS_FOUND)
  set(DGS_CUTLASS_INCLUDE_DIRS "${DGS_CUTLASS_DIR}/include" "${DGS_CUTLASS_DIR}/tools/util/include"
                               "${DGS_CUTLASS_DIR}/examples/13_two_tensor_op_fusion")
  if(NOT DEFINED DGS_CUTLASS_ARCHITECTURES)
    set(DGS_CUTLASS_ARCHITECTURES "")
    foreach(a IN LISTS CMAKE_CUDA_ARCHITECTURES)
      if(a MATCHES "^(native|all|all-major)$")
        set(DGS_CUTLASS_ARCHITECTURES ${a})
        break()
      endif()
      string(REGEX MATCH "^[0-9]+" num "${a}")
      if(num GREATER_EQUAL 80)
        list(APPEND DGS_CUTLASS_ARCHITECTURES ${a})
      endif()
    endforeach()
    if(NOT DGS_CUTLASS_ARCHITECTURES)
      set(DGS_CUTLASS_ARCHITECTURES 80)
    endif()
  endif()
  message(STATUS "CUTLASS ${DGS_CUTLASS_VERSION} headers in ${DGS_CUTLASS_DIR} "
                 "(kernels for ${DGS_CUTLASS_ARCHITECTURES})")
endif()
