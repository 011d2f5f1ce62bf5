// Runs a fuzz target without libFuzzer: every file of the corpus directories
// given, then N deterministic mutations of each (byte flips, insertions,
// deletions, splices of JSON tokens), so CI exercises the target under the
// sanitizers with any compiler. Usage: kuota_fuzz_replay [-m N] DIR...
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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void Run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string Mutate(std::string s, std::mt19937_64& rng) {
  static const char* kTokens[] = {"1",    "-1",   "1e400",       "\"x\"",
                                  "null", "true", "[]",          "{}",
                                  "[[[[", "}}}",  "\"\\u0000\"", "99999999999999999999",
                                  ",",    ":"};
  const int edits = 1 + static_cast<int>(rng() % 4);
  // Keep the request line; mutate the rest.
  size_t body = s.find('\n');
  body = body == std::string::npos ? 0 : body + 1;
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
  int mutations = 50;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
      mutations = std::atoi(argv[++i]);
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
    for (int m = 0; m < mutations; ++m, ++runs) Run(Mutate(input, rng));
  }
  std::printf("replayed %zu inputs (%zu seeds, %d mutations each): no crash, no 5xx\n", runs,
              inputs.size(), mutations);
  return 0;
}
