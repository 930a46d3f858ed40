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

TEST_CASE("a resumed work's line counts from the very start, its rate from the resumption", "[progress]") {
  // 121 of 3001 done, 90 of them in the last 3 s: 30/s, 2880 left -> 96 s.
  CHECK(splat::fit_progress(splat::progress_pieces("train", 121, 3001, 3.0, 31), 0) ==
        "train  [....................]  121/3001  30.0/s  ETA 1m36s");
}

TEST_CASE("progress counts every add from many threads; quick work off a TTY prints its final line alone", "[progress]") {
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
  // Well under a second of work: no line per tenth, only the final one.
  REQUIRE(lines.size() == 1);
  CHECK(lines.back().find("4000/4000") != std::string::npos);
  CHECK(lines.back().find("done in") != std::string::npos);
}
