// Child process of CodeletExecutableTest: `codelet_executable_probe <executable> <tiles>`
// deserializes an executable whose graph this process never saw (a DotProductVertex from a
// codelet file), runs it on (1,2,3)·(4,5,6) and prints "out=<value>". Exit status 1 on any
// error (printed).
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/IPUModel.hpp>

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: codelet_executable_probe <executable> <tiles>\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1], std::ios::binary);
    poplar::Engine engine(poplar::Executable::deserialize(in));
    poplar::IPUModel model;
    model.tilesPerIPU = unsigned(std::stoul(argv[2]));
    engine.load(model.createDevice());
    const std::vector<float> a{1, 2, 3}, b{4, 5, 6};
    engine.writeTensor("a", a.data(), a.data() + a.size());
    engine.writeTensor("b", b.data(), b.data() + b.size());
    engine.run();
    float out = 0;
    engine.readTensor("out", &out, &out + 1);
    std::cout << "out=" << out << "\n";
  } catch (const std::exception &e) {
    std::cerr << "codelet_executable_probe: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
