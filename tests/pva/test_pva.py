#!/usr/bin/env python3
"""The pva Python module against the test graph of PvaTestGraph.hpp (profile written by
pva_write_profile): libpva's attribute style, a Python ProgramVisitor, runs, and errors naming
the file. Usage: test_pva.py PROFILE_POP"""
import os
import pathlib
import sys
import tempfile
import unittest

import pva

PROFILE = sys.argv.pop(1) if len(sys.argv) > 1 else "profile.pop"

# What PvaTestGraph.hpp builds and runs.
TILES, COMPUTE_SETS, VERTICES, VARIABLES = 4, 2, 8, 4
RUN_PROGRAMS = [0, 1, 0]
RUN_STEPS = {0: ["x", "dense", None, "y"], 1: ["halve"]}  # None: the exchange


class Attributes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.report = pva.openReport(PROFILE)

    def test_compilation(self):
        c = self.report.compilation
        self.assertEqual(c.target.numTiles, TILES)
        self.assertEqual(c.target.tilesPerIpu, TILES)
        self.assertEqual(c.target.numIPUs, 1)
        self.assertEqual(c.target.type, pva.Target.Type.IPUModel)
        self.assertEqual(c.target.totalMemory, c.target.bytesPerTile * TILES)
        self.assertEqual(c.graph.numComputeSets, COMPUTE_SETS)
        self.assertEqual(c.graph.numVertices, VERTICES)
        self.assertEqual(c.graph.numVars, VARIABLES)
        self.assertTrue(self.report.poplarVersion.string.startswith("Tessera "))
        v = self.report.poplarVersion
        self.assertIn(f"{v.major}.{v.minor}.{v.point}", v.string)

    def test_tiles(self):
        tiles = self.report.compilation.tiles
        self.assertEqual([t.number for t in tiles], list(range(TILES)))
        for t in tiles:
            m = t.memory
            self.assertEqual(m.total.includingGaps,
                             m.variables + m.vertexState + m.exchange + m.gaps)
            self.assertEqual(m.total.excludingGaps, m.total.includingGaps - m.gaps)
            self.assertGreater(m.variables, 0)  # every tile holds a weights row and y

    def test_steps_and_runs(self):
        execution = self.report.execution
        steps = execution.steps
        expected = [n for p in RUN_PROGRAMS for n in RUN_STEPS[p]]
        names = [None if s.program.type == pva.Program.Type.DoExchange else s.program.name
                 for s in steps]
        self.assertEqual(names, expected)
        total = sum(s.ipus[0].cycles for s in steps)
        self.assertGreater(total, 0)
        self.assertEqual(total, execution.totalCycles)
        for a, b in zip(steps, steps[1:]):
            self.assertEqual(a.cyclesTo.max, b.cyclesFrom.min)
        runs = execution.runs
        self.assertEqual([r.program for r in runs], RUN_PROGRAMS)
        self.assertEqual([len(r.steps) for r in runs], [len(RUN_STEPS[p]) for p in RUN_PROGRAMS])
        self.assertEqual(sum(r.cycles for r in runs), execution.totalCycles)
        self.assertEqual(execution.numRuns, len(RUN_PROGRAMS))

    def test_visitor_subclass(self):
        class OnTileExecutes(pva.ProgramVisitor):
            def __init__(self):
                super().__init__()
                self.names = []
                self.vertices = {}

            def visitOnTileExecute(self, onTileExecute):
                self.names.append(onTileExecute.name)
                self.vertices[onTileExecute.name] = [
                    (v.type.name, v.count) for v in onTileExecute.computeset.vertices]

        v = OnTileExecutes()
        for s in self.report.execution.steps:
            s.program.accept(v)
        self.assertEqual(v.names, ["dense", "halve", "dense"])
        self.assertEqual(v.vertices["dense"], [("profiletest::DenseRow", TILES)])
        self.assertEqual(v.vertices["halve"], [("profiletest::HalveNoEstimate", TILES)])

        class NoInit(pva.ProgramVisitor):  # as libpva's tutorial writes one
            count = 0

            def visitStreamCopyMid(self, s):
                NoInit.count += 1

        w = NoInit()
        for p in self.report.compilation.programs:
            p.accept(w)
        self.assertEqual(NoInit.count, 2)

    def test_objects_outlive_the_report(self):
        steps = pva.openReport(pathlib.Path(PROFILE)).execution.steps
        self.assertEqual(steps[0].program.name, "x")


class Errors(unittest.TestCase):
    def test_missing_file_names_it(self):
        missing = os.path.join(tempfile.gettempdir(), "tessera-no-such-dir", "profile.pop")
        with self.assertRaises(pva.Error) as e:
            pva.openReport(missing)
        self.assertIsInstance(e.exception, RuntimeError)
        self.assertIn(missing, str(e.exception))

    def test_corrupt_file_names_it(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "profile.pop")
            with open(path, "wb") as f:
                f.write(b"\xff\xff\xff\xff not a profile")
            with self.assertRaises(RuntimeError) as e:
                pva.openReport(path)
            self.assertIn(path, str(e.exception))


if __name__ == "__main__":
    unittest.main()
