// tessera-run: runs `program` as N instances over OpenMPI's mpirun, with R replicas in all, as
// PopRun does for Poplar. Each instance learns its place from the environment
// (<tessera/Distributed.hpp>): TESSERA_NUM_INSTANCES and TESSERA_NUM_REPLICAS are set here, the
// instance index is the MPI rank.
//
//   tessera-run --num-instances 2 --num-replicas 4 [--hosts a,b | --hostfile F]
//               [--mpi-arg=--mca --mpi-arg=btl_tcp_if_include --mpi-arg=eth0] -- program args…
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace po = boost::program_options;

namespace {

struct Options {
  unsigned instances = 1;
  unsigned replicas = 0; // 0: one per instance
  std::string hosts, hostfile;
  std::vector<std::string> mpiArgs;
  std::vector<std::string> command;
  bool verbose = false;
  bool help = false;
};

/// The directory on PATH holding `name`, or empty.
std::string onPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
  }
  return {};
}

int fail(const std::string &message) {
  std::cerr << "tessera-run: " << message << "\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  po::options_description description(
      "tessera-run --num-instances N [--num-replicas R] [options] -- program [args…]\n"
      "Runs program as N instances with mpirun (OpenMPI); R replicas in all, R / N per instance");
  // clang-format off
  description.add_options()
    ("help", po::bool_switch(&o.help), "Print this help and exit")
    ("num-instances", po::value(&o.instances)->default_value(o.instances), "Processes to start")
    ("num-replicas", po::value(&o.replicas), "Replicas in all (default: one per instance); a multiple of --num-instances")
    ("hosts", po::value(&o.hosts), "Comma-separated hosts to place instances on (mpirun --host)")
    ("hostfile", po::value(&o.hostfile), "An OpenMPI hostfile: one line per machine, e.g. 'node1 slots=2'")
    ("mpi-arg", po::value(&o.mpiArgs)->composing(), "Extra argument for mpirun (repeatable)")
    ("verbose", po::bool_switch(&o.verbose), "Print the mpirun command before running it");
  // clang-format on
  po::options_description hidden;
  hidden.add_options()("command", po::value(&o.command));
  po::options_description all;
  all.add(description).add(hidden);
  po::positional_options_description positional;
  positional.add("command", -1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error &e) {
    return fail(std::string(e.what()) + " (see --help)");
  }
  if (o.help) {
    std::cout << description << "\n";
    return 0;
  }
  if (o.command.empty())
    return fail("no program to run; put it after --, e.g. tessera-run --num-instances 2 -- ./app");
  if (o.instances == 0)
    return fail("--num-instances must be at least 1");
  const unsigned replicas = o.replicas ? o.replicas : o.instances;
  if (replicas % o.instances != 0)
    return fail("--num-replicas " + std::to_string(replicas) + " is not a multiple of " +
                "--num-instances " + std::to_string(o.instances) +
                " (every instance runs the same number of replicas)");
  if (!o.hosts.empty() && !o.hostfile.empty())
    return fail("give --hosts or --hostfile, not both");
  const std::string mpirun = onPath("mpirun");
  if (mpirun.empty())
    return fail("mpirun not found on PATH; install OpenMPI (Debian packages openmpi-bin and "
                "libopenmpi-dev; scripts/bootstrap installs them)");

  std::vector<std::string> args = {mpirun, "-np", std::to_string(o.instances),
                                   // Each instance runs its own host threads: no core binding,
                                   // and more instances than cores is allowed (tests, laptops).
                                   "--bind-to", "none", "--oversubscribe"};
  if (::geteuid() == 0)
    args.push_back("--allow-run-as-root");
  if (!o.hosts.empty())
    args.insert(args.end(), {"--host", o.hosts});
  if (!o.hostfile.empty())
    args.insert(args.end(), {"--hostfile", o.hostfile});
  setenv("TESSERA_NUM_INSTANCES", std::to_string(o.instances).c_str(), 1);
  setenv("TESSERA_NUM_REPLICAS", std::to_string(replicas).c_str(), 1);
  args.insert(args.end(), {"-x", "TESSERA_NUM_INSTANCES", "-x", "TESSERA_NUM_REPLICAS"});
  args.insert(args.end(), o.mpiArgs.begin(), o.mpiArgs.end());
  args.insert(args.end(), o.command.begin(), o.command.end());
  if (o.verbose) {
    std::cerr << "tessera-run:";
    for (const auto &a : args)
      std::cerr << " " << a;
    std::cerr << "\n";
  }

  std::vector<char *> argvOut;
  for (auto &a : args)
    argvOut.push_back(a.data());
  argvOut.push_back(nullptr);
  const pid_t child = ::fork();
  if (child < 0)
    return fail(std::string("cannot start mpirun: ") + std::strerror(errno));
  if (child == 0) {
    ::execv(mpirun.c_str(), argvOut.data());
    std::cerr << "tessera-run: cannot run " << mpirun << ": " << std::strerror(errno) << "\n";
    _exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code != 0)
    std::cerr << "tessera-run: the run failed (mpirun exited with status " << code
              << "); when one instance fails, mpirun stops the others — see its report above\n";
  return code;
}
