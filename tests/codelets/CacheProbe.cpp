// Child process of CodeletCacheTest: `codelet_cache_probe <DotProduct.cpp>` loads the file
// with addCodelets, runs DotProductVertex on (1,2,3)·(4,5,6) and prints the result and how long
// addCodelets took. Exit status 0 on success, 1 on any error (printed).
#include <chrono>
#include <iostream>

#include <poplar/exceptions.hpp>
#include <tessera/testing/RunVertex.hpp>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: codelet_cache_probe <codelet file>\n";
    return 2;
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    poplar::Graph graph(poplar::Target::createIPUTarget(1, "ipu2"));
    graph.addCodelets(argv[1]);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto r = tessera::testing::runVertex(
        "DotProductVertex",
        {{"a", std::vector<float>{1, 2, 3}}, {"b", std::vector<float>{4, 5, 6}}, {"out", 0.0f}});
    std::cout << "out=" << r.scalar<float>("out") << " addCodelets=" << seconds << "s\n";
  } catch (const std::exception &e) {
    std::cerr << "codelet_cache_probe: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
