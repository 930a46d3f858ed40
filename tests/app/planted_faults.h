#pragma once
// What the planted-fault CLI tests share (test_cli_faults.cpp, test_cli_mpi.cpp): their runs write a
// checkpoint every 4 images and meet the fault at 6, so a run that kept its checkpoint continues at 4.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "tests/app/cli_runner.h"

namespace splat::test {

inline void check_resumes_at_4(const std::filesystem::path& run) {
  const CliResult resumed = run_cli("train --resume '" + run.string() + "' --images 8");
  INFO(resumed.out);
  CHECK(resumed.code == 0);
  CHECK(resumed.out.find("resumed at image 4 ") != std::string::npos);
}

}  // namespace splat::test
