// pva_write_profile DIR: runs the pva test graph with every report written to DIR (for
// test_pva.py, which reads DIR/profile.pop through the Python module).
#include <cstdio>
#include <filesystem>

#include "PvaTestGraph.hpp"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: pva_write_profile DIRECTORY\n");
    return 2;
  }
  std::filesystem::remove_all(argv[1]);
  pvatest::profileGraph(argv[1]);
  return 0;
}
