// `splatlab train` under mpirun (app/job_launch.h) as a user runs it, on the CPU: two processes train
// the very model that two rank threads of one process train, rank 0 alone speaking and writing; and a
// process that fails, before training or during it, stops the whole job within a bounded time with one
// message naming its rank, leaving nothing half made (no run folder, or the last checkpoint untouched).
// On the GPU ([gpu]): processes talk NCCL bootstrapped over MPI, one per GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/ply_io.h"
#include "kernels/device.h"
#include "tests/app/cli_runner.h"
#include "tests/app/planted_faults.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::test::CliResult;
using splat::test::count;

namespace {

constexpr int kJobSeconds = 240;  // the guard: a job that hangs ends here with 124, failing the test

// `mpirun -np 1 splatlab ARGS : -np 1 splatlab ARGS ...`, one program per rank (mpirun's MPMD form), or
// nullopt (a skip line printed) without mpirun. `env`: variable assignments for every process.
std::optional<CliResult> mpirun(const std::vector<std::string>& rank_args, const std::string& what,
                                const std::string& env = "") {
  const std::optional<std::string> prefix = splat::test::mpirun_or_skip(kJobSeconds, what);
  if (!prefix) return std::nullopt;
  std::string cmd = env.empty() ? *prefix : env + " " + *prefix;
  for (size_t r = 0; r < rank_args.size(); ++r)
    cmd += (r ? " : -np 1 " : "-np 1 ") + splat::test::splatlab_binary() + " " + rank_args[r];
  return splat::test::run_cli_command(cmd);
}

// A training under mpirun (`rank_args`, one program per rank) and the same training in one process
// (`one_args`), both required to succeed; nullopt without mpirun.
struct TwoRuns {
  CliResult job, one;
};
std::optional<TwoRuns> job_and_one_process(const std::vector<std::string>& rank_args, const std::string& one_args,
                                           const std::string& what) {
  std::optional<CliResult> job = mpirun(rank_args, what);
  if (!job) return std::nullopt;
  INFO(job->out);
  REQUIRE(job->code == 0);
  CliResult one = splat::test::run_cli(one_args);
  INFO(one.out);
  REQUIRE(one.code == 0);
  return TwoRuns{std::move(*job), std::move(one)};
}

std::vector<char> bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The metrics records without their clock fields (wall time, step times, the ranks' render and exchange
// times and their imbalance) and the ranks' traffic (processes send every exchanged row; rank threads
// leave out the pairs that cover no tile): what the training computed.
std::vector<nlohmann::json> records(const fs::path& metrics) {
  std::vector<nlohmann::json> out;
  std::ifstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    nlohmann::json r = nlohmann::json::parse(line);
    r.erase("step_ms");
    r.erase("wall_s");
    r.erase("render_imbalance");
    if (r.contains("ranks"))
      for (nlohmann::json& rank : r["ranks"])
        for (const char* field : {"step_ms", "render_ms", "wait_ms", "bytes_sent", "bytes_received"}) rank.erase(field);
    out.push_back(std::move(r));
  }
  return out;
}

// The figures of the "done:" line: images, steps, Gaussians and test PSNR.
std::string done_figures(const std::string& out) {
  std::smatch m;
  const std::regex done(R"(done: (\d+ images \(\d+ steps\)).* s, (\d+ Gaussians, test PSNR [0-9.]+ dB))");
  return std::regex_search(out, m, done) ? m[1].str() + " " + m[2].str() : "(no done line)";
}

const std::string kTrain = "train demo --device cpu --batch-size 2 --images 20 --log-every 10 --eval-every 10 ";

}  // namespace

TEST_CASE("cli: mpirun -np 2 on the CPU trains what --ranks 2 threads train, rank 0 alone writing", "[cli][dist]") {
  const fs::path dir = splat::test::scratch_dir("cli-mpi");
  const fs::path threads = dir / "threads", processes = dir / "processes";
  const std::string args = kTrain + "--out '" + processes.string() + "'";
  const std::optional<TwoRuns> runs =
      job_and_one_process({args, args}, kTrain + "--ranks 2 --out '" + threads.string() + "'", "mpirun -np 2 against --ranks 2");
  if (!runs) return;
  INFO(runs->job.out);
  CHECK(runs->job.out.find("2 ranks (mpirun processes)") != std::string::npos);
  CHECK(count(runs->job.out, "scene ") == 1);  // rank 1 prints nothing but errors
  CHECK(count(runs->job.out, "done: ") == 1);
  CHECK(done_figures(runs->job.out) == done_figures(runs->one.out));
  CHECK(done_figures(runs->one.out) != "(no done line)");
  const std::vector<nlohmann::json> mine = records(processes / "metrics.jsonl");
  CHECK(mine.size() == 2);  // one writer: a record every 10 images, with the loss and the test PSNR
  CHECK(mine == records(threads / "metrics.jsonl"));
  // The sums over two ranks are the same two additions in both backends: the model comes out bit for bit.
  CHECK(bytes_of(processes / "point_cloud.ply") == bytes_of(threads / "point_cloud.ply"));
  CHECK_FALSE(bytes_of(processes / "point_cloud.ply").empty());
  CHECK(bytes_of(processes / "checkpoint.ckpt") == bytes_of(threads / "checkpoint.ckpt"));

  // Resume works as it does for threads: the processes continue the run in its folder.
  const std::string more = "train --resume '" + processes.string() + "' --device cpu --images 30";
  const std::optional<CliResult> resumed = mpirun({more, more}, "resuming under mpirun");
  REQUIRE(resumed);
  INFO(resumed->out);
  CHECK(resumed->code == 0);
  CHECK(count(resumed->out, "resumed at image 20") == 1);
  CHECK(records(processes / "metrics.jsonl").size() == 3);
}

TEST_CASE("cli: OpenMPI's variables, malformed or incomplete, are refused naming the variable", "[cli][dist]") {
  const fs::path out = splat::test::scratch_dir("cli-mpi-environment") / "run";
  const std::string train = splat::test::splatlab_binary() + " " + kTrain + "--out '" + out.string() + "'";
  const CliResult malformed = splat::test::run_cli_command("OMPI_COMM_WORLD_SIZE=two " + train);
  CHECK(malformed.code == 1);
  CHECK(splat::test::last_line(malformed.out).find("error: OMPI_COMM_WORLD_SIZE='two': expected a whole number") == 0);
  const CliResult incomplete = splat::test::run_cli_command("OMPI_COMM_WORLD_SIZE=2 " + train);
  CHECK(incomplete.code == 1);
  CHECK(splat::test::last_line(incomplete.out).find("error: OMPI_COMM_WORLD_RANK is not set") == 0);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("cli: under mpirun a process that fails to set up stops every process, naming its rank", "[cli][dist]") {
  const fs::path dir = splat::test::scratch_dir("cli-mpi-setup");
  const fs::path out = dir / "run";
  const std::string missing = (dir / "no-such-scene").string();
  const auto start = std::chrono::steady_clock::now();
  // Rank 1 is given a scene that is not there (a folder not shared with its node, say).
  const std::optional<CliResult> job =
      mpirun({kTrain + "--out '" + out.string() + "'",
              "train '" + missing + "' --device cpu --batch-size 2 --images 20 --out '" + out.string() + "'"},
             "a process that fails to set up");
  if (!job) return;
  INFO(job->out);
  CHECK(job->code != 0);
  CHECK(job->code != 124);  // stopped by the failure, not by the guard
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(120));
  CHECK(count(job->out, "error: ") == 1);
  CHECK(job->out.find("error: rank 1 (CPU) on host ") != std::string::npos);
  CHECK(job->out.find(missing) != std::string::npos);
  CHECK(job->out.find("no rank started training") != std::string::npos);
  CHECK_FALSE(fs::exists(out));  // nothing made
}

TEST_CASE("cli: under mpirun a process that fails while training ends the job and the last checkpoint survives",
          "[cli][dist]") {
  const fs::path dir = splat::test::scratch_dir("cli-mpi-failure");
  const fs::path run = dir / "run", broken = dir / "broken";
  const std::string small = "train demo --device cpu --batch-size 2 --images 4 --out '" + run.string() + "'";
  const std::optional<CliResult> made = mpirun({small, small}, "a process that fails while training");
  if (!made) return;
  REQUIRE(made->code == 0);
  // Rank 1 resumes a copy whose checkpoint is damaged: it fails once the communicator is up, while rank 0
  // has resumed the good run in place and waits for it in the first collective.
  fs::copy(run, broken);
  std::vector<char> damaged = bytes_of(broken / "checkpoint.ckpt");
  REQUIRE(damaged.size() > 1000);
  damaged[damaged.size() / 2] ^= 0x5a;
  std::ofstream(broken / "checkpoint.ckpt", std::ios::binary).write(damaged.data(), std::streamsize(damaged.size()));
  const std::vector<char> checkpoint = bytes_of(run / "checkpoint.ckpt");

  const auto start = std::chrono::steady_clock::now();
  const std::optional<CliResult> job =
      mpirun({"train --resume '" + run.string() + "' --device cpu --images 8",
              "train --resume '" + broken.string() + "' --device cpu --images 8"},
             "a process that fails while training");
  REQUIRE(job);
  INFO(job->out);
  CHECK(job->code != 0);
  CHECK(job->code != 124);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(120));
  CHECK(count(job->out, "error: ") == 1);
  CHECK(job->out.find("error: rank 1 (CPU) on host ") != std::string::npos);
  CHECK(job->out.find((broken / "checkpoint.ckpt").string()) != std::string::npos);
  CHECK(bytes_of(run / "checkpoint.ckpt") == checkpoint);
}

// Under mpirun, rank 1 of two processes (placed by `device`) runs out of memory or kills itself as
// `kill -9` would, after the step that reached 6 images, two images after rank 0 wrote the checkpoint at
// 4: the job ends within 30 s, naming the rank (`who`, as the error line writes it), and the run
// continues from that checkpoint.
namespace {
void check_planted_faults_end_the_job(const std::string& device, const std::string& who, const std::string& memory,
                                      const std::string& scratch) {
  const fs::path dir = splat::test::scratch_dir(scratch);
  for (const std::string kind : {"oom", "exit"}) {
    INFO(kind);
    const fs::path run = dir / kind;
    const std::string args = "train demo " + device + " --batch-size 2 --images 12 --checkpoint-every 4 --out '" +
                             run.string() + "'";
    const auto start = std::chrono::steady_clock::now();
    const std::optional<CliResult> job = mpirun({args, args}, "a planted fault under mpirun",
                                                "SPLATLAB_FAULT=" + kind + ":1:6");
    if (!job) return;
    INFO(job->out);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("mpirun -np 2 (%s), planted %s on rank 1: ended with %d after %.1f s\n", device.c_str(), kind.c_str(),
                job->code, seconds);
    CHECK(job->code != 0);
    CHECK(job->code != 124);  // not the guard's timeout
    CHECK(seconds < 30);
    if (kind == "oom") {
      CHECK(count(job->out, "error: ") == 1);
      CHECK(job->out.find("error: rank 1 (" + who + ") on host ") != std::string::npos);
      CHECK(job->out.find("out of memory on " + memory + ", planted at 6 images") != std::string::npos);
    } else {
      CHECK(job->out.find("splatlab: rank 1 (" + who + ") on host ") != std::string::npos);
      CHECK(job->out.find("exiting now, planted at 6 images") != std::string::npos);
    }
    splat::test::check_resumes_at_4(run);
  }
}
}  // namespace

TEST_CASE("cli: under mpirun a process that runs out of memory or dies mid-run ends the job, the checkpoint kept",
          "[cli][dist][fault]") {
  check_planted_faults_end_the_job("--device cpu", "CPU", "CPU", "cli-mpi-planted");
}

TEST_CASE("cli: under mpirun on 2 GPUs a process out of memory or killed ends the NCCL job, the checkpoint kept",
          "[cli][dist][fault][gpu]") {
  if (!splat::test::gpu_or_skip("planted faults under mpirun on the GPU")) return;
  if (splat::kernels::cuda_device_count() < 2) {
    std::printf("skipped: planted faults under mpirun on 2 GPUs: this machine has 1 GPU\n");
    return;
  }
  check_planted_faults_end_the_job("--device cuda", "CUDA device 1", "CUDA device 1", "cli-mpi-planted-gpu");
}

// Two GPU runs as the same training up to the order of float sums (atomics and NCCL's reductions
// are not bit-reproducible across bootstraps): integers and strings equal, floating-point values within
// a relative 1e-4 (far below any difference of a different step or model), and the memory figures
// (the totals and the breakdown: buffers and workspaces are sized by each path's own needs, and no two
// runs share them), left out.
void check_close_json(const nlohmann::json& a, const nlohmann::json& b, const std::string& where) {
  INFO(where);
  if (a.is_number_float() || b.is_number_float()) {
    REQUIRE(a.is_number());
    REQUIRE(b.is_number());
    const double x = a.get<double>(), y = b.get<double>();
    CHECK(std::abs(x - y) <= 1e-4 * std::max({1.0, std::abs(x), std::abs(y)}));
  } else if (a.is_object()) {
    REQUIRE(b.is_object());
    for (const auto& [key, value] : a.items()) {
      if (key == "gpu_mem_mb" || key == "mem_mb" || key == "memory") continue;
      REQUIRE(b.contains(key));
      check_close_json(value, b.at(key), where + "." + key);
    }
    CHECK(a.size() == b.size());
  } else if (a.is_array()) {
    REQUIRE(b.is_array());
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) check_close_json(a[i], b[i], where + "[" + std::to_string(i) + "]");
  } else {
    CHECK(a == b);
  }
}

// The same for the trained models. Adam moves a parameter by about its learning rate whatever the size
// of its gradient, so where a gradient sums to nearly zero the order of the sums can flip a step's sign
// (seen: one quaternion value 0.005 apart after 10 steps on two H200s). So nearly every value must agree
// to 1e-3 and none may be further apart than ten such steps of the largest learning rate (opacity's
// 0.05) could take it; a wrong exchange or a different model moves most values, not a few.
void check_close_models(const fs::path& a, const fs::path& b) {
  const splat::GaussianModel x = splat::read_ply(a), y = splat::read_ply(b);
  REQUIRE(x.size() == y.size());
  for (splat::Group g : splat::kAllGroups) {
    INFO(splat::group_name(g));
    const std::vector<float>&u = x.column(g), &v = y.column(g);
    REQUIRE(u.size() == v.size());
    double worst = 0;
    size_t apart = 0;
    for (size_t i = 0; i < u.size(); ++i) {
      const double d = std::abs(double(u[i]) - double(v[i]));
      worst = std::max(worst, d);
      apart += d > 1e-3;
    }
    INFO(apart << " of " << u.size() << " values more than 1e-3 apart, the furthest " << worst);
    CHECK(apart * 200 <= u.size());
    CHECK(worst <= 0.5);
  }
}

TEST_CASE("cli: mpirun on the GPU, one process per GPU talking NCCL bootstrapped over MPI", "[cli][dist][gpu]") {
  if (!splat::test::gpu_or_skip("mpirun on the GPU")) return;
  const fs::path dir = splat::test::scratch_dir("cli-mpi-gpu");
  const std::string train = "train demo --device cuda --batch-size 2 --images 20 --log-every 10 --eval-every 10 ";
  const fs::path processes = dir / "processes", threads = dir / "threads";
  const std::string args = train + "--out '" + processes.string() + "'";
  if (splat::kernels::cuda_device_count() >= 2) {
    // Two GPUs: two processes against two rank threads, NCCL in both: the same training, up to the order
    // of the float sums.
    if (!job_and_one_process({args, args}, train + "--gpus 2 --out '" + threads.string() + "'", "mpirun -np 2 on 2 GPUs"))
      return;
    const std::vector<nlohmann::json> mine = records(processes / "metrics.jsonl");
    const std::vector<nlohmann::json> theirs = records(threads / "metrics.jsonl");
    REQUIRE(mine.size() == theirs.size());
    REQUIRE_FALSE(mine.empty());
    for (size_t i = 0; i < mine.size(); ++i) check_close_json(mine[i], theirs[i], "record " + std::to_string(i));
    check_close_models(processes / "point_cloud.ply", threads / "point_cloud.ply");
    return;
  }
  // One GPU: one process (a one-rank NCCL group over MPI, the sharded step) trains what one plain process
  // trains, up to the order of float sums; no densification happens in 20 images, so the counts agree.
  if (!job_and_one_process({args}, train + "--out '" + threads.string() + "'", "mpirun -np 1 on the GPU")) return;
  const std::vector<nlohmann::json> mine = records(processes / "metrics.jsonl"), plain = records(threads / "metrics.jsonl");
  REQUIRE(mine.size() == 2);
  REQUIRE(plain.size() == 2);
  CHECK(mine.back()["gaussians"] == plain.back()["gaussians"]);
  CHECK(mine.back()["psnr"].get<double>() == Approx(plain.back()["psnr"].get<double>()).margin(0.05));

  // Two processes on one GPU: refused before anything is made, naming the rank that has no GPU of its own.
  const fs::path refused = dir / "refused";
  const std::string two = train + "--out '" + refused.string() + "'";
  const std::optional<CliResult> both = mpirun({two, two}, "mpirun -np 2 on one GPU");
  REQUIRE(both);
  INFO(both->out);
  CHECK(both->code != 0);
  CHECK(both->code != 124);
  CHECK(both->out.find("error: rank 1 (CUDA device 1) on host ") != std::string::npos);
  CHECK(both->out.find("has 1 CUDA device(s)") != std::string::npos);
  CHECK_FALSE(fs::exists(refused));
}
