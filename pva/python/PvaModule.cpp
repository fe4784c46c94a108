// The Python module `pva`: one binding per C++ class of <pva/pva.hpp>, every function a
// read-only attribute (report.compilation.target.numTiles), as libpva's Python module reads.
// ProgramVisitor can be subclassed in Python; errors are pva.Error (a RuntimeError) carrying
// the C++ message, which names the file.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <poplar/exceptions.hpp>
#include <pva/pva.hpp>

namespace py = pybind11;

namespace {

/// Forwards each visit to the Python subclass's method when it defines one.
class PyProgramVisitor : public pva::ProgramVisitor {
public:
  void visitOnTileExecute(const pva::OnTileExecuteProgram &p) override {
    PYBIND11_OVERRIDE(void, pva::ProgramVisitor, visitOnTileExecute, p);
  }
  void visitDoExchange(const pva::DoExchangeProgram &p) override {
    PYBIND11_OVERRIDE(void, pva::ProgramVisitor, visitDoExchange, p);
  }
  void visitStreamCopyMid(const pva::StreamCopyMidProgram &p) override {
    PYBIND11_OVERRIDE(void, pva::ProgramVisitor, visitStreamCopyMid, p);
  }
};

void bindCompilation(py::module_ &m) {
  py::class_<pva::Version>(m, "Version")
      .def_property_readonly("string", &pva::Version::string)
      .def_property_readonly("major", &pva::Version::major)
      .def_property_readonly("minor", &pva::Version::minor)
      .def_property_readonly("point", &pva::Version::point);

  py::class_<pva::Target> target(m, "Target");
  py::enum_<pva::Target::Type>(target, "Type")
      .value("Unknown", pva::Target::Type::Unknown)
      .value("CPU", pva::Target::Type::CPU)
      .value("IPU", pva::Target::Type::IPU)
      .value("IPUModel", pva::Target::Type::IPUModel);
  target.def_property_readonly("type", &pva::Target::type)
      .def_property_readonly("architecture", &pva::Target::architecture)
      .def_property_readonly("numIPUs", &pva::Target::numIPUs)
      .def_property_readonly("tilesPerIpu", &pva::Target::tilesPerIpu)
      .def_property_readonly("numTiles", &pva::Target::numTiles)
      .def_property_readonly("bytesPerTile", &pva::Target::bytesPerTile)
      .def_property_readonly("bytesPerIPU", &pva::Target::bytesPerIPU)
      .def_property_readonly("totalMemory", &pva::Target::totalMemory)
      .def_property_readonly("clockFrequency", &pva::Target::clockFrequency);

  py::class_<pva::Graph>(m, "Graph")
      .def_property_readonly("numComputeSets", &pva::Graph::numComputeSets)
      .def_property_readonly("numVertices", &pva::Graph::numVertices)
      .def_property_readonly("numVars", &pva::Graph::numVars);

  py::class_<pva::MemorySize>(m, "MemorySize")
      .def_property_readonly("includingGaps", &pva::MemorySize::includingGaps)
      .def_property_readonly("excludingGaps", &pva::MemorySize::excludingGaps);
  py::class_<pva::TileMemory>(m, "TileMemory")
      .def_property_readonly("total", &pva::TileMemory::total)
      .def_property_readonly("variables", &pva::TileMemory::variables)
      .def_property_readonly("vertexState", &pva::TileMemory::vertexState)
      .def_property_readonly("exchange", &pva::TileMemory::exchange)
      .def_property_readonly("gaps", &pva::TileMemory::gaps);
  py::class_<pva::Tile>(m, "Tile")
      .def_property_readonly("number", &pva::Tile::number)
      .def_property_readonly("memory", &pva::Tile::memory);

  py::class_<pva::VertexType>(m, "VertexType")
      .def_property_readonly("name", &pva::VertexType::name);
  py::class_<pva::Vertex>(m, "Vertex")
      .def_property_readonly("type", &pva::Vertex::type)
      .def_property_readonly("count", &pva::Vertex::count);
  py::class_<pva::ComputeSet>(m, "ComputeSet")
      .def_property_readonly("name", &pva::ComputeSet::name)
      .def_property_readonly("vertices", &pva::ComputeSet::vertices)
      .def_property_readonly("numVertices", &pva::ComputeSet::numVertices)
      .def_property_readonly("numTiles", &pva::ComputeSet::numTiles);
}

void bindPrograms(py::module_ &m) {
  py::class_<pva::ProgramVisitor, PyProgramVisitor>(m, "ProgramVisitor")
      .def(py::init<>())
      .def("visitOnTileExecute", &pva::ProgramVisitor::visitOnTileExecute)
      .def("visitDoExchange", &pva::ProgramVisitor::visitDoExchange)
      .def("visitStreamCopyMid", &pva::ProgramVisitor::visitStreamCopyMid);

  py::class_<pva::Program, std::shared_ptr<pva::Program>> program(m, "Program");
  using Type = pva::Program::Type;
  py::enum_<Type>(program, "Type")
      .value("Unknown", Type::Unknown)
      .value("Empty", Type::Empty)
      .value("Sequence", Type::Sequence)
      .value("Repeat", Type::Repeat)
      .value("RepeatWhileTrue", Type::RepeatWhileTrue)
      .value("RepeatWhileFalse", Type::RepeatWhileFalse)
      .value("If", Type::If)
      .value("Switch", Type::Switch)
      .value("Call", Type::Call)
      .value("Sync", Type::Sync)
      .value("OnTileExecute", Type::OnTileExecute)
      .value("DoExchange", Type::DoExchange)
      .value("GlobalExchange", Type::GlobalExchange)
      .value("StreamCopyBegin", Type::StreamCopyBegin)
      .value("StreamCopyMid", Type::StreamCopyMid)
      .value("StreamCopyEnd", Type::StreamCopyEnd);
  program.def_property_readonly("type", &pva::Program::type)
      .def_property_readonly("name", &pva::Program::name)
      .def_property_readonly("id", &pva::Program::id)
      .def_property_readonly("children", &pva::Program::children)
      .def_property_readonly("estimatedCycles", &pva::Program::estimatedCycles)
      .def_property_readonly("exchangeBytes", &pva::Program::exchangeBytes)
      .def("accept", &pva::Program::accept, py::arg("visitor"));
  py::class_<pva::OnTileExecuteProgram, pva::Program, std::shared_ptr<pva::OnTileExecuteProgram>>(
      m, "OnTileExecuteProgram")
      .def_property_readonly("computeset", &pva::OnTileExecuteProgram::computeset);
  py::class_<pva::DoExchangeProgram, pva::Program, std::shared_ptr<pva::DoExchangeProgram>>(
      m, "DoExchangeProgram");
  py::class_<pva::StreamCopyMidProgram, pva::Program, std::shared_ptr<pva::StreamCopyMidProgram>>(
      m, "StreamCopyMidProgram")
      .def_property_readonly("fromHost", &pva::StreamCopyMidProgram::fromHost);

  py::class_<pva::Compilation>(m, "Compilation")
      .def_property_readonly("target", &pva::Compilation::target)
      .def_property_readonly("graph", &pva::Compilation::graph)
      .def_property_readonly("tiles", &pva::Compilation::tiles)
      .def_property_readonly("programs", &pva::Compilation::programs);
}

void bindExecution(py::module_ &m) {
  py::class_<pva::Cycles>(m, "Cycles")
      .def_property_readonly("min", &pva::Cycles::min)
      .def_property_readonly("max", &pva::Cycles::max)
      .def_property_readonly("mean", &pva::Cycles::mean);
  py::class_<pva::IpuStep>(m, "IpuStep")
      .def_property_readonly("ipu", &pva::IpuStep::ipu)
      .def_property_readonly("cycles", &pva::IpuStep::cycles)
      .def_property_readonly("cyclesFrom", &pva::IpuStep::cyclesFrom)
      .def_property_readonly("cyclesTo", &pva::IpuStep::cyclesTo);
  py::class_<pva::ExecutionStep>(m, "ExecutionStep")
      .def_property_readonly("program", &pva::ExecutionStep::program)
      .def_property_readonly("cyclesFrom", &pva::ExecutionStep::cyclesFrom)
      .def_property_readonly("cyclesTo", &pva::ExecutionStep::cyclesTo)
      .def_property_readonly("cycles", &pva::ExecutionStep::cycles)
      .def_property_readonly("ipus", &pva::ExecutionStep::ipus)
      .def_property_readonly("hostStartNanoseconds", &pva::ExecutionStep::hostStartNanoseconds)
      .def_property_readonly("hostNanoseconds", &pva::ExecutionStep::hostNanoseconds);
  py::class_<pva::Run>(m, "Run")
      .def_property_readonly("program", &pva::Run::program)
      .def_property_readonly("steps", &pva::Run::steps)
      .def_property_readonly("cyclesFrom", &pva::Run::cyclesFrom)
      .def_property_readonly("cyclesTo", &pva::Run::cyclesTo)
      .def_property_readonly("cycles", &pva::Run::cycles);
  py::class_<pva::Execution>(m, "Execution")
      .def_property_readonly("steps", &pva::Execution::steps)
      .def_property_readonly("runs", &pva::Execution::runs)
      .def_property_readonly("numRuns", &pva::Execution::numRuns)
      .def_property_readonly("totalCycles", &pva::Execution::totalCycles)
      .def_property_readonly("totalHostNanoseconds", &pva::Execution::totalHostNanoseconds)
      .def_property_readonly("instrumented", &pva::Execution::instrumented)
      .def_property_readonly("stepsTruncated", &pva::Execution::stepsTruncated)
      .def_property_readonly("runsTruncated", &pva::Execution::runsTruncated);
}

} // namespace

PYBIND11_MODULE(pva, m) {
  m.doc() = "Reads the profile.pop a Tessera Engine writes (Tessera's format, libpva's names). "
            "Cycles are estimates from Tessera's cost model; host times are measured.";
  py::register_exception<poplar::poplar_error>(m, "Error", PyExc_RuntimeError);
  bindCompilation(m);
  bindPrograms(m);
  bindExecution(m);
  py::class_<pva::Report>(m, "Report")
      .def_property_readonly("poplarVersion", &pva::Report::poplarVersion)
      .def_property_readonly("compilation", &pva::Report::compilation)
      .def_property_readonly("execution", &pva::Report::execution);
  // Any path-like object (str, pathlib.Path), as open() takes.
  m.def(
      "openReport",
      [](const py::object &path) {
        return pva::openReport(py::module_::import("os").attr("fspath")(path).cast<std::string>());
      },
      py::arg("profilePath"),
      "Opens a profile.pop file, or the profile.pop in a directory; raises pva.Error (a "
      "RuntimeError) naming the file when it is missing, corrupt or truncated.");
}
