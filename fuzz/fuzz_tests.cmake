# Included by the top-level CMakeLists.txt (SPLATLAB_FUZZ): builds fuzz/ with clang++ into
# <build>/fuzz and runs every fuzz target for SPLATLAB_FUZZ_SECONDS as a CTest test.
#
# An ExternalProject rather than a second build folder made by scripts/build.sh: `cmake --build
# build` (so scripts/build.sh, scripts/test and CI) builds the fuzz targets with everything else,
# `ctest --test-dir build` runs them with the other tests, and the clang set-up lives here alone.
# BUILD_ALWAYS because the outer build does not know the sub-build's sources; the sub-build's own
# Ninja decides what to recompile, and does nothing in well under a second when nothing changed.
find_program(SPLATLAB_FUZZ_CXX NAMES clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14
             DOC "clang++ that builds the libFuzzer targets")
if(NOT SPLATLAB_FUZZ_CXX)
  message(FATAL_ERROR "SPLATLAB_FUZZ needs clang++ with libFuzzer (Debian: clang libclang-rt-dev, which "
                      "scripts/deps.sh installs); or configure with -DSPLATLAB_FUZZ=OFF")
endif()
set(SPLATLAB_FUZZ_SECONDS 30 CACHE STRING "Seconds CTest fuzzes each target for")

include(ExternalProject)
include(${CMAKE_CURRENT_LIST_DIR}/targets.cmake)
set(fuzz_dir ${CMAKE_BINARY_DIR}/fuzz)
set(fuzz_args -DCMAKE_CXX_COMPILER=${SPLATLAB_FUZZ_CXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if(CCACHE_PROGRAM)
  list(APPEND fuzz_args -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE_PROGRAM})
endif()
ExternalProject_Add(splat_fuzz
  SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}
  BINARY_DIR ${fuzz_dir}
  CMAKE_ARGS ${fuzz_args}
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON)

# Each run starts from the checked-in seeds, the corpus the long campaign kept (campaign_corpus/<target>,
# run_long.sh) and the inputs that once failed (regressions/<target>, replayed at the start), all read
# only, and the inputs earlier runs in this build folder found (<build>/fuzz/corpus/<target>, where
# libFuzzer adds new ones). It fails on a crash,
# a sanitizer report, a refusal that breaks the message rules (fuzz_file.h), a leak, an input that
# runs longer than 10 s (a hang) or one malloc above 128 MB: the inputs are kilobytes, and
# a reader that allocates that much for them let a header field size the allocation. The input
# that failed is written to <build>/fuzz/crashes/<target>/ and its path printed.
foreach(target IN LISTS SPLATLAB_FUZZ_TARGETS)
  set(inputs ${fuzz_dir}/corpus/${target} ${CMAKE_CURRENT_LIST_DIR}/corpus/${target})
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/campaign_corpus/${target})
    list(APPEND inputs ${CMAKE_CURRENT_LIST_DIR}/campaign_corpus/${target})
  endif()
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/regressions/${target})
    list(APPEND inputs ${CMAKE_CURRENT_LIST_DIR}/regressions/${target})
  endif()
  add_test(NAME "fuzz: ${target}"
           COMMAND ${fuzz_dir}/fuzz_${target} -max_total_time=${SPLATLAB_FUZZ_SECONDS} -timeout=10
                   -rss_limit_mb=2048 -malloc_limit_mb=128 -print_final_stats=1 -create_missing_dirs=1
                   -artifact_prefix=${fuzz_dir}/crashes/${target}/ ${inputs})
  set_tests_properties("fuzz: ${target}" PROPERTIES LABELS "cpu;fuzz" TIMEOUT 600)
endforeach()
