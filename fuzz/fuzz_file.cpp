#include "fuzz/fuzz_file.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <typeinfo>

namespace splat::fuzz {
namespace fs = std::filesystem;

namespace {

// A refusal names the file, says what is wrong and quotes at most about 80 characters of each
// piece of the input it shows (core/util/user_text.h). The longest honest messages (an unsupported
// camera model with the supported list, a checkpoint field with its range and the checksum
// remark) stay under 400 characters with the scratch path; an input token echoed whole would
// not, once it is longer than this bound.
constexpr size_t kMaxMessageChars = 768;

fs::path make_scratch_folder() {
  std::error_code ec;
  fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
  fs::path folder = base / ("splatlab-fuzz-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  return folder;
}

const fs::path& scratch_folder() {
  static const fs::path folder = [] {
    fs::path f = make_scratch_folder();
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch_folder(), ec);
    });
    return f;
  }();
  return folder;
}

[[noreturn]] void fail(const fs::path& file, const std::string& what, std::string_view message) {
  std::fprintf(stderr, "\nsplatlab fuzz: %s reading %s\n  message (%zu bytes): %.*s\n", what.c_str(),
               file.c_str(), message.size(), static_cast<int>(std::min<size_t>(message.size(), 2000)),
               message.data());
  std::abort();
}

// Why a refusal's message breaks the promise, or "" when it keeps it.
std::string message_fault(const fs::path& file, std::string_view message) {
  const std::string prefix = file.string() + ": ";
  if (message.substr(0, prefix.size()) != prefix) return "a refusal that does not start with the file";
  if (message.size() > kMaxMessageChars)
    return "a refusal message longer than " + std::to_string(kMaxMessageChars) + " characters";
  for (const char c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "a refusal message with a control byte";
  return "";
}

}  // namespace

fs::path scratch_file(const std::string& name) { return scratch_folder() / name; }

void write_file(const fs::path& file, std::span<const uint8_t> bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::perror(file.c_str());
    std::abort();  // the harness's own failure, not the reader's: stop rather than fuzz nothing
  }
}

void expect_accept_or_refuse(const fs::path& file, const std::function<void()>& read) {
  try {
    read();
  } catch (const std::runtime_error& e) {
    const std::string fault = message_fault(file, e.what());
    if (!fault.empty()) fail(file, fault, e.what());
  } catch (const std::exception& e) {
    fail(file, std::string("an exception other than a refusal (") + typeid(e).name() + ")", e.what());
  } catch (...) {
    fail(file, "an exception that is not a std::exception", "");
  }
}

}  // namespace splat::fuzz

// UBSan reports with their stack, as ASan's come (UBSan's own default prints none).
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }
