// The progress bar: its line format, thread-safe counting, and sparse output off a terminal.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "core/util/progress.h"

TEST_CASE("progress line shows label, bar, counts, rate and ETA", "[progress]") {
  // 5 of 20 in 2 s: 2.5/s, 15 left -> 6 s; a quarter of the 20-character bar.
  CHECK(splat::format_progress("decoding", 5, 20, 2.0) == "decoding  [#####...............]  5/20  2.5/s  ETA 6s");
  CHECK(splat::format_progress("train", 10, 10, 125.0) == "train  [####################]  10/10  0.1/s  done in 2m05s");
  CHECK(splat::format_progress("x", 1, 100000, 1.0) == "x  [....................]  1/100000  1.0/s  ETA 27h46m");
}

TEST_CASE("progress counts every add from many threads and prints sparse lines off a TTY", "[progress]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  {
    splat::Progress p("work", 4000, log);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&p] {
        for (int i = 0; i < 1000; ++i) p.add();
      });
    for (auto& t : threads) t.join();
    CHECK(p.done() == 4000);
  }
  std::rewind(log);
  std::vector<std::string> lines;
  char buf[256];
  while (std::fgets(buf, sizeof buf, log)) lines.emplace_back(buf);
  std::fclose(log);
  // One line per 10 % step before the end (9) and the final line.
  REQUIRE(lines.size() == 10);
  CHECK(lines[0].rfind("work  [##....", 0) == 0);
  CHECK(lines.back().find("4000/4000") != std::string::npos);
  CHECK(lines.back().find("done in") != std::string::npos);
}
