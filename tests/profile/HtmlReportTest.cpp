// The HTML report, rendered by headless Chromium: the charts must be drawn without errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <tessera/profile/ProfileReader.hpp>

#include "ProfileTestGraphs.hpp"

using namespace profiletest;

namespace {

std::string findChromium() {
  for (const char *p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (std::filesystem::exists(p))
      return p;
  return {};
}

std::string run(const std::string &command) {
  std::string out;
  FILE *p = ::popen(command.c_str(), "r");
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p))
    out.append(buf, n);
  ::pclose(p);
  return out;
}

std::size_t count(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

TEST(HtmlReport, ChromiumRendersEveryChart) {
  const std::string chromium = findChromium();
  if (chromium.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/bootstrap installs it); skipping the "
                    "headless-browser check of the HTML report";
  const std::string dir = freshDirectory("html");
  {
    Device device = smallDevice(4);
    Mlp mlp(device.getTarget());
    Engine engine(mlp.graph, mlp.program,
                  {{"autoReport.all", "true"}, {"autoReport.directory", dir}});
    engine.load(device);
    engine.run(0);
  }
  const std::string report = dir + "/" + tessera::profile::kHtmlReportFile;
  ASSERT_TRUE(std::filesystem::exists(report));
  const std::string command =
      chromium +
      " --headless --no-sandbox --disable-gpu --disable-background-networking"
      " --disable-component-update --disable-sync --no-first-run --disable-dev-shm-usage"
      " --enable-logging=stderr --v=0 --user-data-dir=" +
      dir + "/chromium-profile --dump-dom file://" + report + " 2>" + dir + "/chromium.log";
  const std::string dom = run(command);
  std::ifstream logFile(dir + "/chromium.log");
  std::stringstream log;
  log << logFile.rdbuf();
  ASSERT_NE(dom.find("id=\"status\">rendered<"), std::string::npos)
      << "the page did not finish rendering:\n"
      << dom.substr(0, 2000) << "\nchromium log:\n"
      << log.str();
  EXPECT_EQ(log.str().find("Uncaught"), std::string::npos) << log.str();
  EXPECT_EQ(log.str().find("CONSOLE"), std::string::npos) << log.str();
  EXPECT_GE(count(dom, "class=\"tile-bar\""), 4u); // at least one bar per tile
  EXPECT_EQ(count(dom, "class=\"liveness-line\""), 1u);
  EXPECT_EQ(count(dom, "class=\"timeline-event\""), 3u); // three compute sets, run once
  EXPECT_NE(dom.find("layer2/update"), std::string::npos);
}

TEST(HtmlReport, IsSelfContained) {
  const std::string dir = freshDirectory("html-offline");
  Device device = smallDevice(4);
  Mlp mlp(device.getTarget());
  Engine engine(mlp.graph, mlp.program);
  engine.load(device);
  tessera::profile::writeHtmlReport(dir + "/r.html", engine.getGraphProfile(), nullptr);
  std::ifstream in(dir + "/r.html");
  std::stringstream page;
  page << in.rdbuf();
  EXPECT_EQ(page.str().find("http://"), page.str().find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(page.str().find("https://"), std::string::npos);
  EXPECT_EQ(page.str().find("src="), std::string::npos);
}
