#!/usr/bin/env python3
"""Checks that every #include "..." follows the layers of docs/ARCHITECTURE.md "Layers".

Usage: check_layers.py [REPOSITORY_ROOT]   (default: the repository this script is in)
Prints one line per offending include, "file:line: folder X may not include folder Y", and exits 1
when there is any; exits 0 when every include follows the table below.

RULES: each folder of the engine may include its own headers and those of the folders in its row,
nothing else. A folder's subfolders belong to it (core/train/sharded is core/train, kernels/cpu and
kernels/cuda are kernels, core/transport/nccl is core/transport).

  folder           may include (besides itself)
  ---------------  ------------------------------------------------------------------------------
  kernels          -
  core/util        kernels
  core/transport   kernels, core/util
  core/scene       kernels, core/util
  core/model       kernels, core/util, core/transport, core/scene
  core/train       kernels, core/util, core/transport, core/scene, core/model
  core/render      kernels, core/util, core/scene
  core/run         kernels, core/util, core/transport, core/scene, core/model, core/train
  ui               kernels, every core/ folder
  app              kernels, every core/ folder, ui

PRIVATE: the CUDA backend's headers (kernels/cuda/*) may be included only from kernels/,
tests/kernels/ and bench/; code elsewhere that calls the CUDA runtime uses kernels/cuda_util.h.

LOOPS: the includes the table allows must form no loop between folders (a folder that reaches
itself through others): a row added to the table cannot make two folders depend on each other.
(An include the table refuses is reported as such, not again as part of a loop.)

Any other folder under core/ fails until it has a row here. Includes of files outside the
repository's folders (system and third-party headers written with quotes) are not checked;
includes of tests/, bench/ or fuzz/ from the engine are refused.
"""
import os
import re
import sys

CORE = ["core/util", "core/transport", "core/scene", "core/model", "core/train", "core/render", "core/run"]

ALLOWED = {
    "kernels": [],
    "core/util": ["kernels"],
    "core/transport": ["kernels", "core/util"],
    "core/scene": ["kernels", "core/util"],
    "core/model": ["kernels", "core/util", "core/transport", "core/scene"],
    "core/train": ["kernels", "core/util", "core/transport", "core/scene", "core/model"],
    "core/render": ["kernels", "core/util", "core/scene"],
    "core/run": ["kernels", "core/util", "core/transport", "core/scene", "core/model", "core/train"],
    "ui": ["kernels"] + CORE,
    "app": ["kernels"] + CORE + ["ui"],
}

# Scanned for the layer rules; the private-header rule also covers the test, benchmark and fuzz code.
LAYER_ROOTS = ["kernels", "core", "ui", "app"]
OTHER_ROOTS = ["tests", "bench", "fuzz"]
PRIVATE = "kernels/cuda"
PRIVATE_USERS = ["kernels", "tests/kernels", "bench"]

SOURCE_EXT = (".h", ".hpp", ".cuh", ".c", ".cc", ".cpp", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_of(path, allowed):
    """The layer folder of a repository path, '?core/x' for an unknown core folder, or None."""
    parts = path.split("/")
    top = parts[0]
    if top == "core":
        name = "/".join(parts[:2]) if len(parts) > 2 else "core"
        return name if name in allowed else "?" + name
    if top in allowed:
        return top
    if top in OTHER_ROOTS:
        return top
    return None


def under(path, prefix):
    return path == prefix or path.startswith(prefix + "/")


def scan(root, roots):
    """Yields (file, line number, included path) for every quoted include under `roots`."""
    for top in roots:
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SOURCE_EXT):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                with open(full, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m:
                            yield rel, number, m.group(1)


def find_loop(edges):
    """A loop in the folder graph as a list of folders (first == last), or None."""
    state = {}

    def visit(node, path):
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, {})):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                loop = visit(nxt, path)
                if loop:
                    return loop
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            loop = visit(node, [])
            if loop:
                return loop
    return None


def check(root, allowed=ALLOWED):
    """The offending includes under `root`, one message each."""
    problems = []
    edges = {}  # folder -> included folder -> its first include the table allows
    for rel, number, inc in scan(root, LAYER_ROOTS + OTHER_ROOTS):
        where = f"{rel}:{number}"
        if under(inc, PRIVATE) and not any(under(rel, p) for p in PRIVATE_USERS):
            src = folder_of(rel, allowed) or rel.split("/")[0]
            problems.append(f"{where}: folder {src} may not include folder {PRIVATE} "
                            f"(the CUDA backend's own headers; use kernels/cuda_util.h): \"{inc}\"")
            continue
        src = folder_of(rel, allowed)
        if src is None or src in OTHER_ROOTS:
            continue  # tests, benchmarks and fuzz targets may include any layer
        if src.startswith("?"):
            problems.append(f"{where}: folder {src[1:]} is not in the layer table of scripts/check_layers.py")
            continue
        dst = folder_of(inc, allowed)
        if dst is None or dst == src:
            continue
        if dst.startswith("?"):
            problems.append(f"{where}: folder {src} includes \"{inc}\", in folder {dst[1:]}, which is not in "
                            f"the layer table of scripts/check_layers.py")
            continue
        if dst not in allowed[src]:
            problems.append(f"{where}: folder {src} may not include folder {dst}: \"{inc}\"")
        else:
            edges.setdefault(src, {}).setdefault(dst, where)
    loop = find_loop(edges)
    if loop:
        steps = ", ".join(f"{a} -> {b} ({edges[a][b]})" for a, b in zip(loop, loop[1:]))
        problems.append(f"{edges[loop[0]][loop[1]]}: folder loop {' -> '.join(loop)}: {steps}")
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) break the layers (docs/ARCHITECTURE.md \"Layers\")",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
