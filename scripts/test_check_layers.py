#!/usr/bin/env python3
"""Tests of scripts/check_layers.py on small trees made for each rule: it must accept a tree that
follows the layers and refuse each kind of offending include, with a nonzero exit."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_layers  # noqa: E402

SCRIPT = os.path.join(HERE, "check_layers.py")


def make_tree(root, files):
    for path, includes in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write("#pragma once\n")
            for inc in includes:
                f.write(f'#include "{inc}"\n')


# A tree that follows every rule: each folder includes one below it.
GOOD = {
    "kernels/rasterizer.h": ["kernels/precision.h"],
    "kernels/precision.h": [],
    "kernels/cuda/check.cuh": ["kernels/precision.h"],
    "kernels/cuda_util.h": [],
    "core/util/text.h": [],
    "core/transport/comm.cpp": ["kernels/cuda_util.h", "core/util/text.h"],
    "core/scene/scene.h": ["kernels/rasterizer.h", "core/util/text.h"],
    "core/model/model.h": ["core/scene/scene.h", "core/transport/comm.cpp"],
    "core/train/trainer.h": ["core/model/model.h"],
    "core/train/sharded/step.h": ["core/train/trainer.h"],
    "core/render/path.cpp": ["core/scene/scene.h"],
    "core/run/config.h": ["core/train/trainer.h"],
    "ui/viewer.cpp": ["core/run/config.h", "core/render/path.cpp", "<vector>"],
    "app/main.cpp": ["ui/viewer.cpp"],
    "tests/kernels/test_cuda.cpp": ["kernels/cuda/check.cuh"],
    "bench/bench.cu": ["kernels/cuda/check.cuh"],
}


class CheckLayers(unittest.TestCase):
    def problems(self, extra, allowed=check_layers.ALLOWED):
        with tempfile.TemporaryDirectory() as root:
            make_tree(root, {**GOOD, **extra})
            return check_layers.check(root, allowed)

    def test_a_tree_that_follows_the_layers_passes(self):
        self.assertEqual(self.problems({}), [])

    def test_an_upward_include_fails(self):
        p = self.problems({"kernels/loss.h": ["core/model/model.h"]})
        self.assertEqual(len(p), 1, p)
        self.assertIn("kernels/loss.h:2: folder kernels may not include folder core/model", p[0])

    def test_a_sideways_include_fails(self):
        p = self.problems({"core/render/frames.cpp": ["core/train/trainer.h"]})
        self.assertEqual(len(p), 1, p)
        self.assertIn("folder core/render may not include folder core/train", p[0])

    def test_a_private_cuda_header_outside_kernels_fails(self):
        for where in ["core/transport/copy.cpp", "ui/interop.cu", "tests/core/test_x.cpp"]:
            p = self.problems({where: ["kernels/cuda/check.cuh"]})
            self.assertEqual(len(p), 1, p)
            self.assertIn(f"{where}:2: folder ", p[0])
            self.assertIn("may not include folder kernels/cuda", p[0])

    def test_a_folder_missing_from_the_table_fails(self):
        p = self.problems({"core/extra/thing.h": ["kernels/precision.h"]})
        self.assertEqual(len(p), 1, p)
        self.assertIn("folder core/extra is not in the layer table", p[0])

    def test_a_folder_loop_fails_even_where_the_table_allows_it(self):
        allowed = dict(check_layers.ALLOWED)
        allowed["core/scene"] = allowed["core/scene"] + ["core/model"]  # a table with a loop in it
        p = self.problems({"core/scene/cameras.h": ["core/model/model.h"]}, allowed)
        self.assertEqual(len(p), 1, p)
        self.assertIn("folder loop", p[0])
        self.assertIn("core/model -> core/scene", p[0])
        self.assertIn("core/scene -> core/model", p[0])

    def test_the_script_exits_nonzero_with_one_line_per_include(self):
        with tempfile.TemporaryDirectory() as root:
            make_tree(root, {**GOOD, "core/render/frames.cpp": ["core/train/trainer.h", "ui/viewer.cpp"]})
            run = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)
            self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
            self.assertEqual(run.stdout.splitlines(),
                             ["core/render/frames.cpp:2: folder core/render may not include folder core/train: "
                              "\"core/train/trainer.h\"",
                              "core/render/frames.cpp:3: folder core/render may not include folder ui: "
                              "\"ui/viewer.cpp\""])
            make_tree(root, {"core/render/frames.cpp": []})
            run = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)


if __name__ == "__main__":
    unittest.main()
