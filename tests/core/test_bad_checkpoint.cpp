// Damaged and hand-edited checkpoints: every header field and trainer-state field is checked for
// presence, type and range (and the sizes against the file's length) before anything is allocated
// or restored from it; each refusal is one line naming the file and the field.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "tests/core/demo_fixture.h"
#include "tests/core/numbered_state.h"
#include "tests/support/alloc_probe.h"
#include "tests/support/test_support.h"

using namespace splat;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// FNV-1a 64, the checksum core/train/checkpoint.h specifies: damaged files are re-checksummed with it
// the way a careless tool or a deliberate edit would, so that the checks behind the checksum are
// reached too.
uint64_t fnv1a(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

template <class T>
void append(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// A checkpoint file taken apart: its JSON header and the raw parameter payload.
struct Parts {
  nlohmann::json header;
  std::string payload;
};

std::string slurp(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Parts parts_of(const fs::path& file) {
  const std::string s = slurp(file);
  uint64_t len = 0;
  std::memcpy(&len, s.data() + 12, 8);
  return {nlohmann::json::parse(s.substr(20, len)), s.substr(20 + len, s.size() - 20 - len - 8)};
}

// Magic, version, header text and payload, then the checksum: right, or wrong by one bit.
std::string assemble(const std::string& header_text, const std::string& payload, bool rechecksum) {
  std::string s = "SPLATCKP";
  append<uint32_t>(s, kCheckpointVersion);
  append<uint64_t>(s, header_text.size());
  s += header_text + payload;
  append<uint64_t>(s, fnv1a(s) ^ (rechecksum ? 0 : 1));
  return s;
}

struct Outcome {
  std::string error;
  size_t largest_allocation = 0;
};

template <class Fn>
Outcome outcome_of(Fn&& fn) {
  Outcome o;
  test::AllocationProbe probe;
  try {
    fn();
  } catch (const CheckpointError& e) {
    o.error = e.what();
  }
  o.largest_allocation = probe.largest();
  return o;
}

// Writes `bytes` to `file` and returns read_checkpoint's error, checking its form on the way:
// one line that starts with the file, and no large allocation before it.
std::string read_error(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  const Outcome o = outcome_of([&] { read_checkpoint(file); });
  CHECK_THAT(o.error, StartsWith(file.string() + ": "));
  CHECK(o.error.find('\n') == std::string::npos);
  CHECK_THAT(o.error, !Contains("json.exception"));
  // The file is under 1 kB; file buffers aside, nothing the header claims may be allocated.
  CHECK(o.largest_allocation < 65536);
  return o.error;
}

}  // namespace

TEST_CASE("allocation probe: records the largest allocation made while it lives", "[checkpoint][bad]") {
  if (!test::AllocationProbe::enabled()) {
    std::printf("SKIPPED (operator new is not replaced in sanitizer builds): allocation probe\n");
    return;
  }
  test::AllocationProbe probe;
  { std::vector<char> big(3 << 20); CHECK(big.size() == size_t(3 << 20)); }
  { std::vector<char> small(100); CHECK(small.size() == 100); }
  CHECK(probe.largest() >= size_t(3 << 20));
}

TEST_CASE("bad checkpoint: header fields out of range are named, with or without a matching checksum",
          "[checkpoint][bad]") {
  const fs::path dir = test::scratch_dir("bad_checkpoint_header");
  const fs::path good_file = dir / "good.ckpt";
  write_checkpoint(good_file, {{{"step", 1}}, test::numbered_state(2, 2)});
  const Parts good = parts_of(good_file);
  const fs::path f = dir / "bad.ckpt";

  for (const bool rechecksum : {true, false}) {
    INFO("re-checksummed: " << rechecksum);
    auto with = [&](const std::string& key, const nlohmann::json& value) {
      nlohmann::json h = good.header;
      if (value.is_discarded()) h.erase(key);
      else h[key] = value;
      return read_error(f, assemble(h.dump(), good.payload, rechecksum));
    };
    const std::string checksum_note = rechecksum ? "" : "checksum does not match";
    CHECK_THAT(with("rows", -1), Contains("checkpoint header field 'rows' is '-1'") && Contains(checksum_note));
    CHECK_THAT(with("rows", "2"), Contains("field 'rows' is '\"2\"', expected an integer"));
    CHECK_THAT(with("rows", 2.5), Contains("field 'rows' is '2.5'"));
    CHECK_THAT(with("sh_degree", -1), Contains("field 'sh_degree' is '-1', expected an integer in 0..3"));
    CHECK_THAT(with("sh_degree", 4), Contains("field 'sh_degree' is '4'"));
    CHECK_THAT(with("sh_degree", nullptr), Contains("field 'sh_degree' is 'null'"));
    CHECK_THAT(with("columns", nullptr), Contains("field 'columns' is 'null', expected a JSON array"));
    CHECK_THAT(with("trainer", nlohmann::json::value_t::discarded), Contains("field 'trainer' is missing"));

    // Huge row counts in a file of a few hundred bytes: refused from the file's length.
    for (const int64_t rows : {int64_t(5'000'000), int64_t(1) << 40}) {
      nlohmann::json h = good.header;
      h["rows"] = rows;
      for (auto& c : h["columns"]) c["floats"] = rows * (c["floats"].get<int64_t>() / 2);
      CHECK_THAT(read_error(f, assemble(h.dump(), good.payload, rechecksum)),
                 Contains("truncated checkpoint") && Contains("rows " + std::to_string(rows)));
    }
    // A column that disagrees with rows.
    nlohmann::json h = good.header;
    h["columns"][3]["floats"] = 7;
    CHECK_THAT(read_error(f, assemble(h.dump(), good.payload, rechecksum)),
               Contains("checkpoint header columns[3] field 'floats' is '7'"));
    h = good.header;
    h["columns"][1]["group"] = nullptr;
    CHECK_THAT(read_error(f, assemble(h.dump(), good.payload, rechecksum)),
               Contains("columns[1] field 'group' is 'null', expected a string"));
  }

  // Whole-header faults.
  CHECK_THAT(read_error(f, assemble("null", good.payload, true)), Contains("checkpoint header is 'null', not a JSON object"));
  CHECK_THAT(read_error(f, assemble("{\"rows\": 2,", good.payload, true)), Contains("not valid JSON"));
  CHECK_THAT(read_error(f, assemble(good.header.dump(), good.payload + "xyz", true)),
             Contains("unexpected bytes after the data"));
  CHECK_THAT(read_error(f, assemble(good.header.dump(), good.payload.substr(8), false)), Contains("truncated checkpoint"));
  std::string flipped = good.payload;
  flipped[5] ^= 0x20;
  CHECK_THAT(read_error(f, assemble(good.header.dump(), flipped, false)), Contains("corrupt (checksum mismatch)"));
  // And the unharmed parts still make a readable file.
  std::ofstream(f, std::ios::binary) << assemble(good.header.dump(), good.payload, true);
  CHECK(read_checkpoint(f).gaussians.size() == 2);
}

TEST_CASE("bad checkpoint: trainer state fields are checked before the trainer takes them", "[checkpoint][bad]") {
  const Scene scene = test::small_demo_scene(24, 18, 80);
  TrainerOptions o;
  o.images = 10;
  o.cpu_threads = 2;
  const GaussianModel init = init_from_points(scene.points);
  const fs::path dir = test::scratch_dir("bad_checkpoint_trainer");
  const fs::path good_file = dir / "good.ckpt";
  {
    Trainer t(scene, init, o);
    t.step();
    t.step();
    save_trainer_checkpoint(t, good_file);
  }
  const Parts good = parts_of(good_file);
  const int train_views = static_cast<int>(scene.train_indices().size());
  const fs::path f = dir / "bad.ckpt";

  // The error restoring a checkpoint whose trainer state has trainer[key] = value (re-checksummed).
  auto restore_error = [&](const nlohmann::json::json_pointer& key, const nlohmann::json& value) {
    nlohmann::json h = good.header;
    h["trainer"][key] = value;
    std::ofstream(f, std::ios::binary) << assemble(h.dump(), good.payload, true);
    Trainer t(scene, init, o);
    const Outcome out = outcome_of([&] { restore_trainer_checkpoint(t, f); });
    CHECK_THAT(out.error, StartsWith(f.string() + ": "));
    CHECK(out.error.find('\n') == std::string::npos);
    CHECK(t.steps_done() == 0);  // nothing was taken over
    CHECK(t.options().batch_size == 1);
    // Model-sized allocations only (80 points): nothing sized by the damaged field.
    CHECK(out.largest_allocation < (1u << 20));
    return out.error;
  };
  using P = nlohmann::json::json_pointer;
  CHECK_THAT(restore_error(P("/images"), 20),
             Contains("checkpoint trainer state field 'images' is '20', expected an integer in 0..10"));
  CHECK_THAT(restore_error(P("/step"), 3), Contains("field 'step' is '3', expected an integer in 0..2"));
  CHECK_THAT(restore_error(P("/step"), -3), Contains("field 'step' is '-3'"));
  CHECK_THAT(restore_error(P("/step"), "2"), Contains("field 'step' is '\"2\"'"));
  CHECK_THAT(restore_error(P("/total_images"), 0), Contains("field 'total_images' is '0'"));
  CHECK_THAT(restore_error(P("/batch_size"), 2147483647),
             Contains("field 'batch_size' is '2147483647', expected an integer in 1.." + std::to_string(train_views)) &&
                 Contains("training views"));
  CHECK_THAT(restore_error(P("/sh_degree_cap"), 9), Contains("field 'sh_degree_cap' is '9'"));
  CHECK_THAT(restore_error(P("/packed"), "yes"), Contains("field 'packed' is '\"yes\"', expected true or false"));
  CHECK_THAT(restore_error(P("/strategy"), "mcmc"), Contains("field 'strategy' is 'mcmc', but this run uses 'default'"));
  CHECK_THAT(restore_error(P("/sampler"), nullptr), Contains("field 'sampler' is 'null', expected a JSON object"));
  CHECK_THAT(restore_error(P("/sampler/pos"), 100000), Contains("camera sampler state field 'pos' is '100000'"));
  CHECK_THAT(restore_error(P("/sampler/order/0"), nullptr), Contains("camera sampler state field 'order' holds 'null'"));
  CHECK_THAT(restore_error(P("/strategy_state"), 3), Contains("field 'strategy_state' is '3', expected a JSON object"));
  CHECK_THAT(restore_error(P("/render_costs"), 3), Contains("field 'render_costs' is '3', expected a JSON object"));
  CHECK_THAT(restore_error(P("/render_costs/weight"), nlohmann::json::array({1.0, 2.0})),
             Contains("checkpoint render costs field 'weight' holds 2 values for the scene's " +
                      std::to_string(scene.views.size()) + " views"));
  CHECK_THAT(restore_error(P("/render_costs/cost_ms/0"), -1.5),
             Contains("checkpoint render costs field 'cost_ms' holds '-1.5', expected a number >= 0"));
  CHECK_THAT(restore_error(P("/render_costs/cost_ms/1"), "fast"), Contains("field 'cost_ms' holds '\"fast\"'"));
  CHECK_THAT(restore_error(P(""), nullptr), Contains("checkpoint header field 'trainer' is 'null', expected a JSON object"));

  // The undamaged file restores.
  Trainer t(scene, init, o);
  restore_trainer_checkpoint(t, good_file);
  CHECK(t.steps_done() == 2);
}
