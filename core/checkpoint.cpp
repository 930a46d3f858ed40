#include "core/checkpoint.h"

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/trainer.h"

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
  const char* take(size_t n, const char* what) {
    if (n > data.size() - pos)
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

}  // namespace

void write_checkpoint(const std::filesystem::path& file, const Checkpoint& ckpt) {
  ckpt.gaussians.check_consistent();
  nlohmann::json header;
  header["trainer"] = ckpt.trainer;
  header["sh_degree"] = ckpt.gaussians.sh_degree();
  header["rows"] = ckpt.gaussians.size();
  for (Group g : kAllGroups)
    header["columns"].push_back({{"group", group_name(g)}, {"floats", ckpt.gaussians.col(g).value.size()}});
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
      for (const std::vector<float>* v : {&c.value, &c.exp_avg, &c.exp_avg_sq})
        w.write(v->data(), v->size() * sizeof(float));
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
  const std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader r{data, name};
  if (std::memcmp(r.take(sizeof kMagic, "magic"), kMagic, sizeof kMagic) != 0)
    throw CheckpointError(name + ": not a splatlab checkpoint (bad magic)");
  const uint32_t version = r.pod<uint32_t>("version");
  if (version != kCheckpointVersion)
    throw CheckpointError(name + ": checkpoint format version " + std::to_string(version) + ", this build reads " +
                          std::to_string(kCheckpointVersion));
  // The checksum covers everything before its 8 bytes; the error it gives depends on what else is
  // wrong: a cut-off file says "truncated", anything else "corrupt".
  bool checksum_ok = false;
  if (data.size() >= r.pos + sizeof(uint64_t)) {
    Fnv1a hash;
    hash.add(data.data(), data.size() - sizeof(uint64_t));
    uint64_t stored;
    std::memcpy(&stored, data.data() + data.size() - sizeof stored, sizeof stored);
    checksum_ok = stored == hash.h;
  }
  const CheckpointError corrupt(name + ": checkpoint is corrupt (checksum mismatch)");
  const uint64_t len = r.pod<uint64_t>("header length");
  const char* text = r.take(len, "header");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, text + len);
  } catch (const nlohmann::json::exception& e) {
    if (!checksum_ok) throw corrupt;
    throw CheckpointError(name + ": bad checkpoint header: " + e.what());
  }
  try {
    Checkpoint ck{header.at("trainer"),
                  GaussianState(header.at("sh_degree").get<int>(), header.at("rows").get<int64_t>())};
    // Size first (a cut-off copy says "truncated"), then the checksum (flipped bits say "corrupt").
    size_t payload = 0;
    for (Group g : kAllGroups) payload += 3 * ck.gaussians.col(g).value.size() * sizeof(float);
    if (data.size() < r.pos + payload + sizeof(uint64_t))
      throw CheckpointError(name + ": truncated checkpoint (" + std::to_string(data.size()) + " bytes, the header needs " +
                            std::to_string(r.pos + payload + sizeof(uint64_t)) + ")");
    if (!checksum_ok) throw corrupt;
    const auto& cols = header.at("columns");
    if (cols.size() != size_t(kGroupCount)) throw CheckpointError(name + ": wrong number of columns");
    for (Group g : kAllGroups) {
      const auto& c = cols.at(static_cast<int>(g));
      HostColumn& col = ck.gaussians.col(g);
      if (c.at("group").get<std::string>() != group_name(g) || c.at("floats").get<size_t>() != col.value.size())
        throw CheckpointError(name + ": column " + std::string(group_name(g)) + " does not match the header");
      for (std::vector<float>* v : {&col.value, &col.exp_avg, &col.exp_avg_sq})
        std::memcpy(v->data(), r.take(v->size() * sizeof(float), group_name(g)), v->size() * sizeof(float));
    }
    if (r.pos + sizeof(uint64_t) != data.size()) throw CheckpointError(name + ": unexpected bytes after the data");
    return ck;
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(name + ": bad checkpoint header: " + e.what());
  }
}

void save_trainer_checkpoint(const Trainer& trainer, const std::filesystem::path& file) {
  write_checkpoint(file, {trainer.state(), trainer.gaussians().download()});
}

void restore_trainer_checkpoint(Trainer& trainer, const std::filesystem::path& file) {
  Checkpoint ck = read_checkpoint(file);
  try {
    trainer.load_state(ck.trainer);
  } catch (const std::exception& e) {
    throw CheckpointError(file.string() + ": " + e.what());
  }
  trainer.gaussians().upload(ck.gaussians);
}

}  // namespace splat
