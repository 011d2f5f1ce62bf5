// Runs the fuzz targets without libFuzzer: every file of the corpus
// directories given, then N deterministic mutations of each (byte flips,
// insertions, deletions, splices of JSON/YAML/selector tokens), so CI
// exercises each target under the sanitizers with any compiler. Every target
// is linked in, its entry point renamed KuotaFuzz_<name> (fuzz/CMakeLists.txt).
// Usage: kuota_fuzz_replay TARGET [-m N] [--keep-first-line] DIR...
//   --keep-first-line: mutate only after the first line (http_json's request line).
// KUOTA_FUZZ_LAST=FILE keeps the input being run in FILE (for a hang or crash).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define KUOTA_FUZZ_TARGET(name) extern "C" int KuotaFuzz_##name(const uint8_t* data, size_t size);
#include "fuzz_targets.inc"
#undef KUOTA_FUZZ_TARGET

namespace {

using FuzzFn = int (*)(const uint8_t*, size_t);
struct Target {
  const char* name;
  FuzzFn fn;
};
#define KUOTA_FUZZ_TARGET(name) {#name, &KuotaFuzz_##name},
constexpr Target kTargets[] = {
#include "fuzz_targets.inc"
};
#undef KUOTA_FUZZ_TARGET

FuzzFn target_fn = nullptr;

// KUOTA_FUZZ_LAST=FILE: each input is written there before it runs, so the
// one that hangs or crashes is left behind.
const char* last_input_path = nullptr;

void Run(const std::string& input) {
  if (last_input_path != nullptr) {
    if (FILE* f = std::fopen(last_input_path, "wb")) {
      std::fwrite(input.data(), 1, input.size(), f);
      std::fclose(f);
    }
  }
  target_fn(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string Mutate(std::string s, std::mt19937_64& rng, bool keep_first_line) {
  static const char* kTokens[] = {"1",
                                  "-1",
                                  "1e400",
                                  "\"x\"",
                                  "null",
                                  "true",
                                  "[]",
                                  "{}",
                                  "[[[[",
                                  "}}}",
                                  "\"\\u0000\"",
                                  "99999999999999999999",
                                  ",",
                                  ":",
                                  "\n- ",
                                  "&a ",
                                  "*a",
                                  "!!str ",
                                  "\n---\n",
                                  "=",
                                  "!=",
                                  " in (",
                                  ")",
                                  "!",
                                  "\\",
                                  "/",
                                  "//",
                                  "Ki",
                                  "e9",
                                  ".5",
                                  "m",
                                  "\xff",
                                  "\\ud83d",
                                  "$patch",
                                  "\"$patch\":\"delete\"",
                                  "\"name\""};
  const int edits = 1 + static_cast<int>(rng() % 4);
  size_t body = 0;
  if (keep_first_line) {
    body = s.find('\n');
    body = body == std::string::npos ? 0 : body + 1;
  }
  for (int i = 0; i < edits && s.size() > body; ++i) {
    size_t at = body + rng() % (s.size() - body);
    switch (rng() % 8) {
      case 0:
        s[at] = static_cast<char>(rng() % 256);
        break;
      case 1:
        s.erase(at, 1 + rng() % 8);
        break;
      case 2:
        s.insert(at, kTokens[rng() % (sizeof(kTokens) / sizeof(kTokens[0]))]);
        break;
      default: {  // replace a scalar after a colon by a token
        size_t colon = s.find(':', at);
        if (colon == std::string::npos) break;
        size_t end = s.find_first_of(",}]", colon);
        if (end == std::string::npos) break;
        s.replace(colon + 1, end - colon - 1,
                  kTokens[rng() % (sizeof(kTokens) / sizeof(kTokens[0]))]);
      }
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kuota_fuzz_replay TARGET [-m N] [--keep-first-line] DIR...\n");
    return 2;
  }
  for (const Target& t : kTargets) {
    if (std::strcmp(t.name, argv[1]) == 0) target_fn = t.fn;
  }
  if (target_fn == nullptr) {
    std::fprintf(stderr, "unknown fuzz target %s; targets:", argv[1]);
    for (const Target& t : kTargets) std::fprintf(stderr, " %s", t.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  last_input_path = std::getenv("KUOTA_FUZZ_LAST");
  int mutations = 50;
  bool keep_first_line = false;
  std::vector<std::string> inputs;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
      mutations = std::atoi(argv[++i]);
      continue;
    }
    if (std::strcmp(argv[i], "--keep-first-line") == 0) {
      keep_first_line = true;
      continue;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(argv[i])) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      inputs.push_back(ss.str());
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "no corpus files\n");
    return 1;
  }
  std::mt19937_64 rng(15);
  size_t runs = 0;
  for (const std::string& input : inputs) {
    Run(input);
    ++runs;
    for (int m = 0; m < mutations; ++m, ++runs) Run(Mutate(input, rng, keep_first_line));
  }
  std::printf("%s: replayed %zu inputs (%zu files, %d mutations each): no crash\n", argv[1], runs,
              inputs.size(), mutations);
  return 0;
}
