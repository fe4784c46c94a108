// The core demo: y = A·x on a 1472-tile IPU Model, checked against a host loop.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

#include <boost/program_options.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Version.hpp>

#include "MatVec.hpp"

namespace po = boost::program_options;

int main(int argc, char **argv) {
  std::size_t rows = 1000, cols = 1000;
  unsigned threads = 0;
  po::options_description desc("matrix_vector: y = A·x on a simulated IPU, checked on the host");
  desc.add_options()("help", "show this help")("rows", po::value(&rows)->default_value(rows),
                                               "matrix rows")(
      "cols", po::value(&cols)->default_value(cols), "matrix columns")(
      "host-threads", po::value(&threads)->default_value(0), "host threads (0: all cores)");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error &e) {
    std::cerr << "matrix_vector: " << e.what() << "\n" << desc << "\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }

  std::vector<float> a(rows * cols), x(cols);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>((i * 7) % 13) - 6.0f;
  for (std::size_t j = 0; j < cols; ++j)
    x[j] = static_cast<float>(j % 5) - 2.0f;

  poplar::IPUModel model;
  poplar::Device device = model.createDevice();
  std::cout << poplar::versionString() << ": " << rows << "x" << cols
            << " matrix-vector product on " << device.getTarget().getNumTiles() << " tiles\n";
  std::vector<float> y = matvec::multiply(device, rows, cols, a, x, threads);

  std::size_t wrong = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    float expect = 0;
    for (std::size_t c = 0; c < cols; ++c)
      expect += a[r * cols + c] * x[c];
    if (y[r] != expect)
      ++wrong;
  }
  std::cout << (wrong ? "MISMATCH" : "OK") << ": " << rows - wrong << "/" << rows
            << " rows exact; y[0] = " << (rows ? y[0] : 0.0f) << "\n";
  return wrong ? 1 : 0;
}
