#include <gtest/gtest.h>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
TEST(Smoke, Builds) { poplar::IPUModel m; auto d = m.createDevice(); poplar::Graph g(d.getTarget()); EXPECT_EQ(g.getTarget().getNumTiles(), 1472u); }
