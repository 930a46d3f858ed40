#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "tests/core/demo_fixture.h"
#include "tests/core/numbered_state.h"
#include "tests/support/test_support.h"
#include "tests/support/model_checks.h"

using namespace splat;
namespace fs = std::filesystem;

namespace {
std::vector<char> read_bytes(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const fs::path& f, const std::vector<char>& b) {
  std::ofstream(f, std::ios::binary).write(b.data(), std::streamsize(b.size()));
}

}  // namespace

TEST_CASE("checkpoint: round trip keeps parameters, moments and trainer state", "[checkpoint]") {
  const fs::path dir = test::scratch_dir("checkpoint_roundtrip");
  const fs::path file = dir / "a.ckpt";
  Checkpoint ck{{{"step", 42}, {"note", "x"}}, test::numbered_state(1, 7)};
  write_checkpoint(file, ck);
  CHECK_FALSE(fs::exists(dir / "a.ckpt.tmp"));  // written aside, then renamed
  const Checkpoint back = read_checkpoint(file);
  CHECK(back.trainer == ck.trainer);
  test::check_same_state(back.gaussians, ck.gaussians);
}

TEST_CASE("checkpoint: corrupt, truncated and foreign files are rejected with the file name", "[checkpoint]") {
  const fs::path dir = test::scratch_dir("checkpoint_corrupt");
  const fs::path file = dir / "c.ckpt";
  write_checkpoint(file, {{{"step", 1}}, test::numbered_state(1, 3)});
  const std::vector<char> good = read_bytes(file);
  auto expect_error = [&](std::vector<char> bytes, const std::string& what) {
    write_bytes(file, bytes);
    try {
      read_checkpoint(file);
      FAIL("no error for " << what);
    } catch (const CheckpointError& e) {
      const std::string msg = e.what();
      CHECK(msg.find(file.string()) != std::string::npos);
      CHECK(msg.find(what) != std::string::npos);
    }
  };
  std::vector<char> flipped = good;
  flipped[good.size() / 2] ^= 0x10;
  expect_error(flipped, "checksum");
  expect_error(std::vector<char>(good.begin(), good.begin() + 30), "truncated");
  std::vector<char> foreign = good;
  foreign[0] = 'X';
  expect_error(foreign, "not a splatlab checkpoint");
  std::vector<char> newer = good;
  newer[8] = char(kCheckpointVersion + 1);
  expect_error(newer, "version");
  CHECK_THROWS_AS(read_checkpoint(dir / "missing.ckpt"), CheckpointError);
}

TEST_CASE("camera sampler: a restored sampler continues with the same cameras", "[checkpoint]") {
  CameraSampler a({3, 5, 7, 9, 11}, 17);
  a.next(3);
  CameraSampler b({3, 5, 7, 9, 11}, 999);
  b.load_state(a.state());
  CHECK(a.next(12) == b.next(12));
  // Every epoch is a permutation of the pool.
  CameraSampler c({1, 2, 3, 4}, 5);
  std::vector<int> epoch = c.next(4);
  std::sort(epoch.begin(), epoch.end());
  CHECK(epoch == std::vector<int>{1, 2, 3, 4});
  CameraSampler wrong({1, 2}, 0);
  CHECK_THROWS(wrong.load_state(a.state()));
}

TEST_CASE("checkpoint: resuming gives the same cameras and identical parameters as an uninterrupted run",
          "[checkpoint][trainer]") {
  const Scene scene = test::small_demo_scene(48, 36, 300);
  TrainerOptions o;
  o.images = 60;  // 30 steps of 2
  o.batch_size = 2;
  o.cpu_threads = 2;
  // Refine early and often so that densification (and its RNG) acts inside the resumed window.
  o.default_strategy.refine_start = 4;
  o.default_strategy.refine_every = 5;
  o.default_strategy.reset_every = 12;
  o.default_strategy.grad_threshold = 1e-6f;
  const GaussianModel init = init_from_points(scene.points);
  const fs::path file = test::scratch_dir("checkpoint_resume") / "r.ckpt";

  Trainer full(scene, init, o);
  for (int i = 0; i < 13; ++i) full.step();
  save_trainer_checkpoint(full, file);
  for (int i = 0; i < 10; ++i) full.step();

  TrainerOptions other = o;
  other.seed = 12345;  // everything random must come from the checkpoint, not from the options
  Trainer resumed(scene, init, other);
  restore_trainer_checkpoint(resumed, file);
  CHECK(resumed.steps_done() == 13);
  CHECK(resumed.images_done() == 26);
  for (int i = 0; i < 10; ++i) resumed.step();
  CHECK(resumed.steps_done() == full.steps_done());
  CHECK(full.gaussians().size() != init.size());  // densification did act
  test::check_same_state(resumed.gaussians().download(), full.gaussians().download());
}

TEST_CASE("checkpoint: a bf16 column is stored as bf16 and reads back exactly", "[checkpoint][columns]") {
  const fs::path file = test::scratch_dir("checkpoint_bf16") / "b.ckpt";
  ColumnTable table = kParamColumns;
  table[static_cast<int>(Group::Quats)].storage = Precision::BF16;
  GaussianState s = GaussianState::from_model(test::numbered_state(1, 9).to_model(), table);
  for (Group g : kAllGroups) s.col(g).exp_avg.assign(s.col(g).value.size(), 0.375f);
  write_checkpoint(file, {{{"step", 3}}, s});
  // Magic, version, header length, header, payload, checksum: the payload is the state's storage.
  const std::vector<char> bytes = read_bytes(file);
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data() + 12, sizeof header_len);
  CHECK(bytes.size() == 8 + 4 + 8 + header_len + s.storage_bytes() + 8);
  const Checkpoint back = read_checkpoint(file);
  CHECK(back.gaussians.spec(Group::Quats).storage == Precision::BF16);
  CHECK(back.gaussians.spec(Group::Means).storage == Precision::F32);
  test::check_same_state(back.gaussians, s);
}

TEST_CASE("checkpoint: files from before the storage field load as fp32", "[checkpoint][columns]") {
  // Written here byte by byte in the version-1 layout as it was before columns had a storage
  // precision, so that the reader keeps accepting the checkpoints already on disk.
  const int64_t rows = 2;
  nlohmann::json header = {{"trainer", {{"step", 5}}}, {"sh_degree", 0}, {"rows", rows}};
  std::vector<float> payload;
  float x = 1.0f / 3.0f;
  for (Group g : kAllGroups) {
    const int64_t floats = rows * group_width(g, 0);
    header["columns"].push_back({{"group", group_name(g)}, {"floats", floats}});
    for (int64_t i = 0; i < 3 * floats; ++i) payload.push_back(x *= -1.1f);
  }
  const std::string text = header.dump();
  std::vector<char> file_bytes = {'S', 'P', 'L', 'A', 'T', 'C', 'K', 'P'};
  auto put = [&](const void* p, size_t n) { file_bytes.insert(file_bytes.end(), (const char*)p, (const char*)p + n); };
  const uint32_t version = 1;
  const uint64_t len = text.size();
  put(&version, 4);
  put(&len, 8);
  put(text.data(), text.size());
  put(payload.data(), payload.size() * sizeof(float));
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 of everything so far
  for (char c : file_bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  put(&h, 8);
  const fs::path file = test::scratch_dir("checkpoint_v1_f32") / "old.ckpt";
  write_bytes(file, file_bytes);

  const Checkpoint ck = read_checkpoint(file);
  CHECK(ck.trainer["step"] == 5);
  REQUIRE(ck.gaussians.size() == rows);
  size_t at = 0;
  for (Group g : kAllGroups) {
    CHECK(ck.gaussians.spec(g).storage == Precision::F32);
    const HostColumn& c = ck.gaussians.col(g);
    for (const std::vector<float>* v : {&c.value, &c.exp_avg, &c.exp_avg_sq})
      for (float f : *v) CHECK(f == payload[at++]);
  }
  CHECK(at == payload.size());
}

// Ranks on GPUs learn what each view costs to render and split batches by it; a resumed run starts
// from the learned table instead of splitting as drawn until it has measured every view again.
TEST_CASE("checkpoint: the views' learned render costs resume with the run", "[checkpoint][trainer]") {
  const Scene scene = test::small_demo_scene(24, 18, 80);
  TrainerOptions o;
  o.images = 10;
  o.cpu_threads = 2;
  const GaussianModel init = init_from_points(scene.points);
  const fs::path file = test::scratch_dir("checkpoint_render_costs") / "c.ckpt";
  Trainer first(scene, init, o);
  first.step();
  nlohmann::json state = first.state();
  // CPU ranks learn no costs: a table as GPU ranks would have learned it, every view known.
  const size_t views = scene.views.size();
  std::vector<double> cost_ms(views), weight(views, 2.5);
  for (size_t v = 0; v < views; ++v) cost_ms[v] = 0.5 + 0.25 * double(v % 7);
  state["render_costs"] = {{"cost_ms", cost_ms}, {"weight", weight}};

  Trainer resumed(scene, init, o);
  resumed.load_state(state);
  for (size_t v = 0; v < views; ++v) CHECK(resumed.render_costs().cost(int(v)) == cost_ms[v]);
  save_trainer_checkpoint(resumed, file);
  CHECK(read_checkpoint(file).trainer.at("render_costs") == state.at("render_costs"));

  // A file from before the table was kept resumes with every view unknown.
  state.erase("render_costs");
  Trainer older(scene, init, o);
  older.load_state(state);
  CHECK_FALSE(older.render_costs().cost(0).has_value());
}
