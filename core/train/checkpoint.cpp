#include "core/train/checkpoint.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/train/trainer.h"
#include "core/util/user_text.h"

namespace splat {
namespace {

constexpr char kMagic[8] = {'S', 'P', 'L', 'A', 'T', 'C', 'K', 'P'};

struct Fnv1a {
  uint64_t h = 0xcbf29ce484222325ull;
  void add(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  }
};

// Writes and hashes at once.
struct HashedWriter {
  std::ofstream& out;
  Fnv1a hash;
  void write(const void* p, size_t n) {
    out.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
    hash.add(p, n);
  }
};

// Reads from a whole-file buffer with bounds checks that name the file.
struct Reader {
  const std::vector<char>& data;
  const std::string& file;
  size_t pos = 0;
  size_t left() const { return data.size() - pos; }
  const char* take(size_t n, const char* what) {
    if (n > left())
      throw CheckpointError(file + ": truncated checkpoint (ends inside the " + std::string(what) + ")");
    const char* p = data.data() + pos;
    pos += n;
    return p;
  }
  template <class T>
  T pod(const char* what) {
    T v;
    std::memcpy(&v, take(sizeof(T), what), sizeof(T));
    return v;
  }
};

// A JSON value from the file, shown in a message: short and inert (core/util/user_text.h).
std::string shown(const nlohmann::json& v) {
  return quote_user_text(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Reads the fields of one JSON object from a checkpoint, each checked for presence, type and range
// before it is used, so that a damaged or hand-edited file gets one message naming the file and
// the field ("<file>: checkpoint header field 'rows' is -1: ...") instead of a library exception
// or an allocation sized by a bad number.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& obj, std::string file, std::string what, std::string suffix = "")
      : obj_(obj), file_(std::move(file)), what_(std::move(what)), suffix_(std::move(suffix)) {
    if (!obj_.is_object()) throw CheckpointError(file_ + ": " + what_ + " is " + shown(obj_) + ", not a JSON object" + suffix_);
  }

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw CheckpointError(file_ + ": " + what_ + " field '" + key + "' " + problem + suffix_);
  }
  const nlohmann::json& at(const std::string& key) const {
    const auto it = obj_.find(key);
    if (it == obj_.end()) fail(key, "is missing");
    return *it;
  }
  int64_t integer(const std::string& key, int64_t lo, int64_t hi, const std::string& why = "") const {
    const nlohmann::json& v = at(key);
    std::optional<int64_t> n;
    if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) n = static_cast<int64_t>(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      n = v.get<int64_t>();
    }
    if (!n || *n < lo || *n > hi)
      fail(key, "is " + shown(v) + ", expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                    (why.empty() ? "" : " (" + why + ")"));
    return *n;
  }
  bool boolean(const std::string& key) const {
    const nlohmann::json& v = at(key);
    if (!v.is_boolean()) fail(key, "is " + shown(v) + ", expected true or false");
    return v.get<bool>();
  }
  std::string text(const std::string& key) const {
    const nlohmann::json& v = at(key);
    if (!v.is_string()) fail(key, "is " + shown(v) + ", expected a string");
    return v.get<std::string>();
  }
  const nlohmann::json& object(const std::string& key) const {
    const nlohmann::json& v = at(key);
    if (!v.is_object()) fail(key, "is " + shown(v) + ", expected a JSON object");
    return v;
  }
  const nlohmann::json& array(const std::string& key) const {
    const nlohmann::json& v = at(key);
    if (!v.is_array()) fail(key, "is " + shown(v) + ", expected a JSON array");
    return v;
  }

 private:
  const nlohmann::json& obj_;
  std::string file_, what_, suffix_;
};

}  // namespace

void write_checkpoint(const std::filesystem::path& file, const Checkpoint& ckpt) {
  ckpt.gaussians.check_consistent();
  nlohmann::json header;
  header["trainer"] = ckpt.trainer;
  header["sh_degree"] = ckpt.gaussians.sh_degree();
  header["rows"] = ckpt.gaussians.size();
  for (Group g : kAllGroups)
    header["columns"].push_back({{"group", group_name(g)},
                                 {"floats", ckpt.gaussians.col(g).value.size()},
                                 {"storage", precision_name(ckpt.gaussians.spec(g).storage)}});
  const std::string text = header.dump();

  std::filesystem::path tmp = file;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw CheckpointError(file.string() + ": cannot open for writing");
    HashedWriter w{out, {}};
    w.write(kMagic, sizeof kMagic);
    const uint32_t version = kCheckpointVersion;
    w.write(&version, sizeof version);
    const uint64_t len = text.size();
    w.write(&len, sizeof len);
    w.write(text.data(), text.size());
    for (Group g : kAllGroups) {
      const HostColumn& c = ckpt.gaussians.col(g);
      const std::vector<unsigned char> values = encode_values(c.value, ckpt.gaussians.spec(g).storage);
      w.write(values.data(), values.size());
      for (const std::vector<float>* v : {&c.exp_avg, &c.exp_avg_sq}) w.write(v->data(), v->size() * sizeof(float));
    }
    const uint64_t digest = w.hash.h;
    out.write(reinterpret_cast<const char*>(&digest), sizeof digest);
    out.flush();
    if (!out) throw CheckpointError(file.string() + ": write failed (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) throw CheckpointError(file.string() + ": cannot move the finished checkpoint into place: " + ec.message());
}

Checkpoint read_checkpoint(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CheckpointError(name + ": cannot open checkpoint");
  // The whole file is in memory first, so every size the header claims is checked against it
  // before anything is allocated for it.
  const std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader r{data, name};
  if (std::memcmp(r.take(sizeof kMagic, "magic"), kMagic, sizeof kMagic) != 0)
    throw CheckpointError(name + ": not a splatlab checkpoint (bad magic)");
  const uint32_t version = r.pod<uint32_t>("version");
  if (version != kCheckpointVersion)
    throw CheckpointError(name + ": checkpoint format version " + std::to_string(version) + ", this build reads " +
                          std::to_string(kCheckpointVersion));
  // The checksum covers everything before its 8 bytes. It is reported last: a field out of range
  // names the field, a cut-off copy says "truncated", and only then do flipped bits elsewhere say
  // "corrupt"; the earlier messages say when the checksum fails too.
  bool checksum_ok = false;
  if (data.size() >= r.pos + sizeof(uint64_t)) {
    Fnv1a hash;
    hash.add(data.data(), data.size() - sizeof(uint64_t));
    uint64_t stored;
    std::memcpy(&stored, data.data() + data.size() - sizeof stored, sizeof stored);
    checksum_ok = stored == hash.h;
  }
  const std::string damaged = checksum_ok ? "" : " (and the checksum does not match: the file is damaged)";
  const uint64_t len = r.pod<uint64_t>("header length");
  const char* text = r.take(len, "header");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, text + len);
  } catch (const nlohmann::json::parse_error& e) {
    throw CheckpointError(name + ": checkpoint header is not valid JSON (error at byte " + std::to_string(e.byte) +
                          " of " + std::to_string(len) + ")" + damaged);
  } catch (const nlohmann::json::out_of_range&) {  // the parser's one other error: a number beyond a double
    throw CheckpointError(name + ": checkpoint header is not valid JSON (a number too large for a double)" + damaged);
  }

  const FieldReader h(header, name, "checkpoint header", damaged);
  const int sh_degree = static_cast<int>(h.integer("sh_degree", 0, 3, "spherical-harmonics degree"));
  const nlohmann::json& cols = h.array("columns");
  if (cols.size() != size_t(kGroupCount))
    h.fail("columns", "has " + std::to_string(cols.size()) + " entries, expected " + std::to_string(kGroupCount));
  // Each column's storage precision; files written before columns had one lack the field: f32.
  ColumnTable table = kParamColumns;
  std::vector<FieldReader> col_fields;
  col_fields.reserve(kGroupCount);
  for (Group g : kAllGroups) {
    const FieldReader& c = col_fields.emplace_back(cols[static_cast<size_t>(g)], name, "checkpoint header columns[" + std::to_string(static_cast<int>(g)) + "]", damaged);
    if (c.text("group") != group_name(g)) c.fail("group", "is " + shown(c.at("group")) + ", expected '" + group_name(g) + "'");
    if (cols[static_cast<size_t>(g)].contains("storage")) {
      const std::string storage = c.text("storage");
      if (storage == precision_name(Precision::BF16))
        table[static_cast<int>(g)].storage = Precision::BF16;
      else if (storage != precision_name(Precision::F32))
        c.fail("storage", "is " + quote_user_text(storage) + ", expected 'f32' or 'bf16'");
    }
  }
  // One row of the payload: each group's value in its storage precision and Adam's two fp32 moments.
  uint64_t row_bytes = 0;
  for (const ColumnSpec& spec : table)
    row_bytes += static_cast<uint64_t>(spec.width(sh_degree)) * (element_size(spec.storage) + 2 * sizeof(float));
  // The upper bound only keeps rows * row_bytes from overflowing; the file's length decides below.
  const int64_t rows = h.integer("rows", 0, std::numeric_limits<int64_t>::max() / static_cast<int64_t>(row_bytes));
  for (Group g : kAllGroups) {
    const int64_t floats = rows * group_width(g, sh_degree);
    col_fields[static_cast<size_t>(g)].integer("floats", floats, floats, "rows x " + std::to_string(group_width(g, sh_degree)) + " for " + group_name(g));
  }
  h.object("trainer");  // its fields are checked by restore_trainer_checkpoint, which knows them

  const uint64_t need = r.pos + static_cast<uint64_t>(rows) * row_bytes + sizeof(uint64_t);
  const std::string sizes = std::to_string(data.size()) + " bytes, its header's rows " + std::to_string(rows) +
                            " at sh_degree " + std::to_string(sh_degree) + " need " + std::to_string(need);
  if (data.size() < need) throw CheckpointError(name + ": truncated checkpoint (" + sizes + ")");
  if (data.size() > need) throw CheckpointError(name + ": unexpected bytes after the data (" + sizes + ")" + damaged);
  if (!checksum_ok) throw CheckpointError(name + ": checkpoint is corrupt (checksum mismatch)");

  Checkpoint ck{header["trainer"], GaussianState(sh_degree, rows, table)};
  for (Group g : kAllGroups) {
    HostColumn& col = ck.gaussians.col(g);
    const Precision storage = table[static_cast<int>(g)].storage;
    decode_values(r.take(col.value.size() * element_size(storage), group_name(g)), storage, col.value);
    for (std::vector<float>* v : {&col.exp_avg, &col.exp_avg_sq})
      decode_values(r.take(v->size() * sizeof(float), group_name(g)), Precision::F32, *v);
  }
  return ck;
}

namespace {

// The trainer state a checkpoint carries (Trainer::state()) checked before the trainer takes it:
// each field present, of its type and in range, so that a damaged or edited file is refused
// naming the field, instead of sizing every step's batch by it or starting past the end of its
// schedule. The nested states' own keys are checked by their owners as they load them.
void check_trainer_state(const std::string& file, const nlohmann::json& s, const Trainer& trainer) {
  const FieldReader f(s, file, "checkpoint trainer state");
  // A batch holds distinct training views (a larger one repeats views within one step), and every
  // view in it has full-image buffers on the device: the scene's training views bound it.
  const auto train_views = static_cast<int64_t>(trainer.scene().train_indices().size());
  const int64_t batch =
      f.integer("batch_size", 1, train_views, "views per step, at most the scene's " + std::to_string(train_views) + " training views");
  constexpr int64_t kMaxImages = std::numeric_limits<int>::max();
  if (s.contains("images")) {
    const int64_t budget = f.integer("total_images", 1, kMaxImages, "the run's image budget");
    const int64_t images = f.integer("images", 0, budget, "images done, at most the run's budget of " + std::to_string(budget));
    f.integer("step", 0, images, "steps done, at most one per image done");
  } else {  // written before images were counted: the trainer takes steps x batch size for them
    const int64_t steps = f.integer("steps", 1, kMaxImages / batch, "the run's schedule, in steps of its batch size");
    f.integer("step", 0, steps, "steps done, at most the " + std::to_string(steps) + " of the run's schedule");
  }
  f.integer("sh_degree_cap", 0, 3, "spherical-harmonics degree");
  f.boolean("packed");
  const std::string strategy = f.text("strategy");
  if (strategy != trainer.strategy().name())
    f.fail("strategy", "is " + quote_user_text(strategy) + ", but this run uses '" + trainer.strategy().name() +
                           "' (pass --strategy " + quote_user_text(strategy) + " to resume it)");
  f.object("strategy_state");
  const FieldReader sampler(f.object("sampler"), file, "checkpoint camera sampler state");
  sampler.text("rng");
  const nlohmann::json& order = sampler.array("order");
  for (const nlohmann::json& v : order)
    if (!v.is_number_integer()) sampler.fail("order", "holds " + shown(v) + ", expected view indices");
  sampler.integer("pos", 0, static_cast<int64_t>(order.size()), "position in 'order'");
  if (s.contains("render_costs")) {  // absent in files from before the table was kept
    const FieldReader costs(f.object("render_costs"), file, "checkpoint render costs");
    const size_t views = trainer.scene().views.size();
    for (const char* key : {"cost_ms", "weight"}) {
      const nlohmann::json& column = costs.array(key);
      if (column.size() != views)
        costs.fail(key, "holds " + std::to_string(column.size()) + " values for the scene's " + std::to_string(views) +
                            " views (another scene?)");
      for (const nlohmann::json& v : column)
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
          costs.fail(key, "holds " + shown(v) + ", expected a number >= 0");
    }
  }
}

}  // namespace

void save_trainer_checkpoint(const Trainer& trainer, const std::filesystem::path& file) {
  GaussianState whole = trainer.whole_state();  // every rank gathers; rank 0 writes the whole model
  if (trainer.is_root()) write_checkpoint(file, {trainer.state(), std::move(whole)});
}

void restore_trainer_checkpoint(Trainer& trainer, const std::filesystem::path& file) {
  Checkpoint ck = read_checkpoint(file);
  check_trainer_state(file.string(), ck.trainer, trainer);
  try {
    trainer.load_state(ck.trainer);
  } catch (const std::exception& e) {
    throw CheckpointError(file.string() + ": " + e.what());
  }
  trainer.load_whole_state(ck.gaussians);
}

}  // namespace splat
