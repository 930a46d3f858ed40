#!/usr/bin/env python3
"""Per-step time model of multi-GPU training, t(R, B), fitted to measured --profile tables.

Inputs: bench/results/profiles_h200x2_2026-11-28/{g1b2,g1b4,g2b4,g2b8}.txt (every term) and
{g1b1,g1b8,g1b16}.txt (the raster term's curve), the logs of

    splatlab train gpu-data/bonsai --images 10000 --eval-every 0 --log-every 5000 --profile \
        --batch-size B [--gpus 2]

measured 2026-11-28 on nvidia-h200-x2 (2 x H200, NVLink; g = GPUs, b = batch size) with main at
29c69d9. Each table is rank 0's device timeline in ms per step per phase. The raster term is a curve
through the one-GPU calls of 1, 2, 4, 8 and 16 images (a call's cost per image falls with its size, and
not along one line: the line through 2 and 4 images was 6 % low at one image and 3 % at sixteen); every
other term is fitted to the four tables above. Two runs outside the fit (g2b2, g2b16: ranks of one and
eight images a call), and the other terms of g1b1, g1b8 and g1b16, are predicted and compared. Standard
library only.

The model is of the mapped step (docs/ARCHITECTURE.md "One training step at R ranks"): each rank
projects its shard for every camera of the batch and writes each camera's pairs into the columns of
the rank that renders it (over the link where that is a peer); the renderer blends its c = B / R images
in one call; the owners read their pairs' gradients where they were computed. bench/SCALING.md explains
it:

    t(R, B) = project(B x N/R, remote share)  + raster(c)  + project_backward(B x N/R, remote share)
            + waits(R)  + adam(N/R)  + refinement and rebalance per step  + host(R)

with N the model's mean row count over the run (bonsai, first 10,000 images: ~0.87M), raster(c) the
one-GPU curve times a rank's factor, every other term fitted by least squares to the phase rows of the
four tables. Printed: the fit, the residuals per phase and
per total ms/step, the checks outside the fit, and the predicted images/s for R = 1, 2, 4, 8 at B = 4, 8,
16 (and R = 1 at B = 1), with the ratio to one GPU at the same batch.

Usage: python3 bench/scaling_model.py [--profiles DIR] [--rows N] [--no-wait-growth]
"""

import argparse
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROFILES = os.path.join(HERE, "results", "profiles_h200x2_2026-11-28")
PROFILES = {"g1b2": (1, 2), "g1b4": (1, 4), "g2b4": (2, 4), "g2b8": (2, 8)}  # name: (R, B), the fit
RASTER_CURVE = {"g1b1": 1, "g1b2": 2, "g1b4": 4, "g1b8": 8, "g1b16": 16}  # one GPU, name: images a call
CHECKS = {"g1b1": (1, 1), "g1b8": (1, 8), "g1b16": (1, 16), "g2b2": (2, 2), "g2b16": (2, 16)}  # measured, not fitted

# The step phases that are the ranks' waits for each other in the mapped step (no bytes are copied in
# them: the pairs and their gradients cross the link inside the projection and its backward).
WAIT_PHASES = ("sharded: open mapped writes", "sharded: pair exchange", "sharded: gradient return")
REFINE_PHASES = ("refinement: rows planned", "refinement: rows applied", "strategy: refinement steps")

# E[max of R standard normals]: the expected slowest of R ranks when their render times spread
# normally and independently (used to grow the measured R = 2 waits with R; an assumption).
EXPECTED_MAX_NORMAL = {1: 0.0, 2: 0.5642, 4: 1.0294, 8: 1.4236}


# ----------------------------------------------------------------------------------------------
# Reading the logs


def read_profile(path):
    """The figures of one log: steps, loop wall, evaluation, step phases, rasterizer stages, N."""
    text = open(path).read()
    out = {"phases": {}, "stages": {}, "points": None, "counts": []}
    m = re.search(r"(\d+) points, extent", text)
    out["points"] = int(m.group(1))
    for m in re.finditer(r"(\d+) G .*?image (\d+)", text):
        out["counts"].append((int(m.group(2)), int(m.group(1))))
    m = re.search(r"done: (\d+) images \((\d+) steps\) in ([\d.]+) s, (\d+) Gaussians", text)
    out["images"], out["steps_done"], out["final_gaussians"] = int(m.group(1)), int(m.group(2)), int(m.group(4))
    m = re.search(r"profile over (\d+) steps", text)
    out["steps"] = int(m.group(1))
    m = re.search(r"evaluation ([\d.]+) s, loop wall time ([\d.]+) s", text)
    out["eval_s"], out["wall_s"] = float(m.group(1)), float(m.group(2))
    table = None
    row = re.compile(r"^\s{2}(\S.*?)\s{2,}([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%\s*$")
    for line in text.splitlines():
        if line.startswith("step phase"):
            table = out["phases"]
            continue
        if line.startswith("rasterizer stage"):
            table = out["stages"]
            continue
        m = row.match(line)
        if m and table is not None:
            table[m.group(1)] = {"total_s": float(m.group(2)), "ms_step": float(m.group(3)),
                                 "ms_call": float(m.group(4)), "max_ms": float(m.group(5))}
    return out


def mean_rows(p):
    """Mean Gaussian count over the run's images: trapezoids through the progress lines (every
    1,000 images), the SfM points up to image 500 (the default strategy's refine_start)."""
    pts = [(0, p["points"]), (500, p["points"])] + [c for c in p["counts"] if c[0] > 500]
    area = sum((x1 - x0) * (y0 + y1) / 2 for (x0, y0), (x1, y1) in zip(pts, pts[1:]))
    return area / (pts[-1][0] - pts[0][0])


# ----------------------------------------------------------------------------------------------
# Least squares (normal equations; the systems here are 2 or 3 unknowns)


def lstsq(rows, y):
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * v for r, v in zip(rows, y)) for i in range(n)]
    for i in range(n):  # Gauss-Jordan with partial pivoting
        k = max(range(i, n), key=lambda r: abs(a[r][i]))
        a[i], a[k], b[i], b[k] = a[k], a[i], b[k], b[i]
        for r in range(n):
            if r != i:
                f = a[r][i] / a[i][i]
                a[r] = [x - f * z for x, z in zip(a[r], a[i])]
                b[r] -= f * b[i]
    return [b[i] / a[i][i] for i in range(n)]


# ----------------------------------------------------------------------------------------------
# The measured phases, grouped as the model's terms (ms per step)


def terms_of(p, R):
    ph, st = p["phases"], p["stages"]
    g = lambda name: ph[name]["ms_step"] if name in ph else 0.0
    t = {}
    if R == 1:
        t["project"] = st["project"]["ms_step"]
        t["project_bwd"] = st["project backward"]["ms_step"]
        t["raster"] = (g("render forward") - t["project"] + g("loss")
                       + g("render backward (+densify stats)") - t["project_bwd"])
    else:
        t["project"] = g("sharded: project")
        t["project_bwd"] = g("sharded: project backward (+stats)")
        t["raster"] = g("sharded: rasterize") + g("sharded: loss") + g("sharded: rasterize backward")
    t["waits"] = sum(g(n) for n in WAIT_PHASES)
    t["adam"] = g("adam")
    t["refine"] = sum(g(n) for n in REFINE_PHASES)
    t["rebalance"] = g("rebalance")
    t["wall"] = p["wall_s"] * 1e3 / p["steps"]  # loop wall ms/step: what the model must reproduce
    # Everything else, per step: the strategy's per-step work, the host's time between steps and the
    # run's one evaluation.
    t["host"] = t["wall"] - sum(t[k] for k in ("project", "raster", "project_bwd", "waits", "adam", "refine",
                                               "rebalance"))
    calls = ph["strategy: refinement steps"]["total_s"] / (ph["strategy: refinement steps"]["ms_call"] * 1e-3)
    t["refine_calls_per_image"] = calls / p["images"]
    t["refine_ms_call"] = sum(ph[n]["total_s"] for n in REFINE_PHASES if n in ph) * 1e3 / calls
    t["rebalance_ms_per_image"] = ph["rebalance"]["total_s"] * 1e3 / p["images"] if "rebalance" in ph else 0.0
    return t


class Model:
    """t(R, B) with the fitted constants; every figure in ms, rows in Gaussians."""

    def fit(self, profiles, curve_profiles):
        self.data = []
        for name, (R, B) in PROFILES.items():
            p = profiles[name]
            self.data.append((name, R, B, mean_rows(p), terms_of(p, R), p))
        # One N for the fit: the mean of the four runs' mean counts (they follow one schedule and
        # differ by ~1 %); the predictions are for this protocol and this N.
        self.N = sum(d[3] for d in self.data) / len(self.data)
        D = self.data
        # raster(c): forward (no projection) + loss + backward (no projection backward) of c images in
        # one call, on one GPU: the measured calls, linear between them (and past the last two). A rank
        # of several GPUs: that times a factor, fitted to the ranks' calls of the fit.
        self.curve = sorted((c, terms_of(curve_profiles[n], 1)["raster"]) for n, c in RASTER_CURVE.items())
        g = [(B / R, t["raster"]) for _, R, B, _, t, _ in D if R > 1]
        self.rank_factor = sum(r * self.curve_at(c) for c, r in g) / sum(self.curve_at(c) ** 2 for c, _ in g)
        # project = p0 + p_cr * cameras x rows + p_link * cameras x rows x (R - 1) / R: the pairs of the
        # peers' cameras are written over the link (rows of the rank's shard, in millions)
        self.proj = lstsq([self.x_project(R, B) for _, R, B, *_ in D], [t["project"] for *_, t, _ in D])
        # project backward = q_cr * cameras x rows + q_r * rows + q_link * cameras x rows x (R - 1) / R:
        # a row's gradients are written once whatever the cameras; the peers' gradients are read over
        # the link
        self.pbwd = lstsq([self.x_project_bwd(R, B) for _, R, B, *_ in D], [t["project_bwd"] for *_, t, _ in D])
        # adam = d0 + d_r * rows
        self.adam = lstsq([[1.0, self.N / R / 1e6] for _, R, B, *_ in D], [t["adam"] for *_, t, _ in D])
        # refinement, per call = f_fix + f_par / R; calls per image from the tables
        self.refine = lstsq([[1.0, 1.0 / R] for _, R, *_ in D], [t["refine_ms_call"] for *_, t, _ in D])
        self.refine_calls_per_image = sum(t["refine_calls_per_image"] for *_, t, _ in D) / len(D)
        g2 = [t for _, R, *_, t, _ in D if R > 1]
        self.rebalance_ms_per_image = sum(t["rebalance_ms_per_image"] for t in g2) / len(g2)
        # the ranks' waits at R = 2 = w0 + w_c * c: the render imbalance between the ranks grows with the
        # images each renders
        self.waits2 = lstsq([[1.0, B / R] for _, R, B, *_ in D if R > 1], [t["waits"] for t in g2])
        # host per step = h0 + h_B B + h_R (R - 1): what the phases do not hold (it grows with the
        # images a step draws and uploads)
        self.host = lstsq([[1.0, B, R - 1.0] for _, R, B, *_ in D], [t["host"] for *_, t, _ in D])
        return self

    def curve_at(self, c):
        """The one-GPU raster curve at c images a call."""
        pts = self.curve
        i = next((k for k in range(1, len(pts) - 1) if c <= pts[k][0]), len(pts) - 1)
        (c0, r0), (c1, r1) = pts[i - 1], pts[i]
        return r0 + (r1 - r0) * (c - c0) / (c1 - c0)

    def raster(self, R, c):
        return self.curve_at(c) * (self.rank_factor if R > 1 else 1.0)

    def x_project(self, R, B, N=None):
        cr = B * (self.N if N is None else N) / R / 1e6
        return [1.0, cr, cr * (R - 1) / R]

    def x_project_bwd(self, R, B, N=None):
        rows = (self.N if N is None else N) / R / 1e6
        return [B * rows, rows, B * rows * (R - 1) / R]

    def step(self, R, B, grow_wait=True, N=None):
        """Predicted ms per step, by term."""
        N = self.N if N is None else N
        c = math.ceil(B / R)
        rows = N / R / 1e6
        dot = lambda w, x: sum(a * b for a, b in zip(w, x))
        t = {}
        t["project"] = dot(self.proj, self.x_project(R, B, N))
        t["raster"] = self.raster(R, c)
        t["project_bwd"] = dot(self.pbwd, self.x_project_bwd(R, B, N))
        t["adam"] = self.adam[0] + self.adam[1] * rows
        t["refine"] = B * self.refine_calls_per_image * (self.refine[0] + self.refine[1] / R)
        t["rebalance"] = B * self.rebalance_ms_per_image if R > 1 else 0.0
        t["host"] = self.host[0] + self.host[1] * B + self.host[2] * (R - 1)
        # The waits for the slowest rank, grown with R as the expected maximum of R normal spreads.
        wait_scale = EXPECTED_MAX_NORMAL[R] / EXPECTED_MAX_NORMAL[2] if grow_wait else (1.0 if R > 1 else 0.0)
        t["waits"] = (self.waits2[0] + self.waits2[1] * c) * wait_scale
        t["total"] = sum(t.values())
        return t


# ----------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profiles", default=DEFAULT_PROFILES)
    ap.add_argument("--no-wait-growth", action="store_true",
                    help="keep the ranks' waits at their R = 2 value")
    ap.add_argument("--rows", type=float, default=None,
                    help="mean Gaussian count (default: the profiles' mean); scales the per-row terms only"
                         " (projection, projection backward, Adam), not raster(c) or refinement")
    args = ap.parse_args()

    profiles = {n: read_profile(os.path.join(args.profiles, n + ".txt")) for n in {**PROFILES, **RASTER_CURVE}}
    m = Model().fit(profiles, profiles)
    kw = dict(grow_wait=not args.no_wait_growth, N=args.rows)

    print(f"== inputs ({os.path.relpath(args.profiles, os.path.dirname(HERE))})")
    for name, R, B, N, t, p in m.data:
        print(f"  {name}: R={R} B={B} steps={p['steps']} loop wall {p['wall_s']:.2f} s = {t['wall']:.3f} ms/step"
              f" ({p['images'] / p['wall_s']:.1f} images/s), mean rows {N / 1e6:.3f}M, final {p['final_gaussians']}")
    print(f"  N (mean rows over the first 10,000 images, mean of the four) = {m.N / 1e6:.3f}M")

    print("\n== fit (ms; rows in millions of the rank's shard; c = images per rank per call; link = (R - 1) / R)")
    print("  raster(c)  = one GPU's measured calls, linear between them (forward without projection + loss +"
          " backward without projection backward), x {:.4f} on a rank of R > 1 (fitted to c = 2, 4); per image: {}".format(
              m.rank_factor, ", ".join(f"{r / c:.3f} at c={c}" for c, r in m.curve)))
    print(f"  project    = {m.proj[0]:.4f} + {m.proj[1]:.4f} x cameras x rows + {m.proj[2]:.4f} x cameras x rows x link")
    print(f"  proj. bwd  = {m.pbwd[0]:.4f} x cameras x rows + {m.pbwd[1]:.4f} x rows"
          f" + {m.pbwd[2]:.4f} x cameras x rows x link")
    print(f"  adam       = {m.adam[0]:.4f} + {m.adam[1]:.4f} x rows")
    print(f"  refinement = ({m.refine[0]:.3f} + {m.refine[1]:.3f} / R) ms per call, {m.refine_calls_per_image * 100:.3f}"
          f" calls per 100 images  (parallel share {m.refine[1] / (m.refine[0] + m.refine[1]):.0%} at R=1)")
    print(f"  rebalance  = {m.rebalance_ms_per_image * 1e3:.2f} us per image at R>1 (assumed the same at every R)")
    print(f"  waits      = {m.waits2[0]:.4f} + {m.waits2[1]:.4f} c at R = 2 (open mapped writes + pair exchange + gradient return), x"
          f" E[max of R normals] / E[max of 2] (x{EXPECTED_MAX_NORMAL[4] / EXPECTED_MAX_NORMAL[2]:.2f} at R=4,"
          f" x{EXPECTED_MAX_NORMAL[8] / EXPECTED_MAX_NORMAL[2]:.2f} at R=8)")
    print(f"  host       = {m.host[0]:.4f} + {m.host[1]:.4f} x B + {m.host[2]:.4f} x (R - 1) per step (between-step"
          " host work, strategy per-step terms, fit residual)")

    keys = ["project", "raster", "project_bwd", "waits", "adam", "refine", "rebalance", "host"]

    def residual_rows(entries):
        print("  profile  " + "".join(f"{k:>19}" for k in keys) + f"{'TOTAL':>21}")
        for name, R, B, t in entries:
            pr = m.step(R, B)
            cells = [f"{t[k]:6.3f}/{pr[k]:6.3f} {t[k] - pr[k]:+6.3f}" for k in keys]
            tot = f"{t['wall']:6.3f}/{pr['total']:6.3f} {100 * (pr['total'] / t['wall'] - 1):+5.1f}%"
            print(f"  {name:8}" + "".join(f"{c:>19}" for c in cells) + f"{tot:>21}")

    print("\n== residuals, ms/step (measured/model difference; TOTAL: loop wall ms/step, the model's error in %)")
    residual_rows([(name, R, B, t) for name, R, B, _, t, _ in m.data])

    checks = [(n, R, B) for n, (R, B) in CHECKS.items() if os.path.exists(os.path.join(args.profiles, n + ".txt"))]
    if checks:
        print("\n== checks outside the fit (measured, not fitted; the model at the fit's N)")
        residual_rows([(n, R, B, terms_of(read_profile(os.path.join(args.profiles, n + ".txt")), R))
                       for n, R, B in checks])

    print("\n== predictions (PREDICTED, not measured at R > 2), bonsai first 10,000 images, default strategy,"
          " --profile protocol")
    print(f"   N = {(args.rows or m.N) / 1e6:.3f}M mean rows; the link's cost per pair the same at 4 and 8 GPUs on"
          " one NVSwitch host (assumption)")
    print(f"  {'R':>2} {'B':>3} {'c':>3} {'ms/step':>8} {'img/s':>7} {'x1GPU':>6} {'waits%':>7}")
    base = {}
    rows_out = []
    for B in (1, 4, 8, 16):
        for R in (1, 2, 4, 8):
            if R > B or (B == 1 and R > 1):
                continue
            d = m.step(R, B, **kw)
            ips = B / d["total"] * 1e3
            if R == 1:
                base[B] = ips
            rows_out.append((R, B, d))
            print(f"  {R:>2} {B:>3} {math.ceil(B / R):>3} {d['total']:8.3f} {ips:7.0f} {ips / base[B]:6.2f}"
                  f" {100 * d['waits'] / d['total']:6.1f}%")

    print("\n== where a predicted step goes (ms): R B | project raster proj_bwd waits adam refine+rebal host")
    for R, B, d in rows_out:
        print(f"  {R:>2} {B:>3} | {d['project']:6.3f} {d['raster']:6.3f} {d['project_bwd']:6.3f} {d['waits']:6.3f}"
              f" {d['adam']:6.3f} {d['refine'] + d['rebalance']:6.3f} {d['host']:6.3f}   = {d['total']:.3f}")


if __name__ == "__main__":
    sys.exit(main())
