#!/usr/bin/env python3
"""Per-step time model of multi-GPU training, t(R, B), fitted to four measured --profile tables.

Inputs: bench/results/profiles_h100x2_2026-11-25/{g1b2,g1b4,g2b4,g2b8}.txt, the logs of

    splatlab train gpu-data/bonsai --images 10000 --eval-every 0 --log-every 5000 --profile \
        --batch-size B [--gpus 2]

measured 2026-11-25 on nvidia-h100-x2 (2 x H100 80GB SXM, NVLink; g = GPUs, b = batch size). Each
table is rank 0's device timeline in ms per step per phase. Standard library only.

The model (docs/ARCHITECTURE.md "One training step at R ranks"; bench/SCALING.md explains it):

    t(R, B) = project(B x N/R)  + raster(c = B/R images per call)  + project_backward(B x N/R)
            + exchange(R, B)    + adam(N/R)  + refinement and rebalance per step  + host(R)

with N the model's mean row count over the run (bonsai, first 10,000 images: ~0.8M), and every
term fitted by least squares to the phase rows of the four tables. Printed: the fit, the residuals
per phase and per total ms/step, and the predicted images/s for R = 1, 2, 4, 8 at B = 4, 8, 16
(and R = 1 at B = 1), dense exchange, culled exchange and an overlap bound, with the ratio to one GPU.

Usage: python3 bench/scaling_model.py [--visible 0.32] [--nvlink-gbs FIT] [--ib-gbs 40]
                                      [--gpus-per-node 8] [--profiles DIR] [--csv]
"""

import argparse
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROFILES = os.path.join(HERE, "results", "profiles_h100x2_2026-11-25")
PROFILES = {"g1b2": (1, 2), "g1b4": (1, 4), "g2b4": (2, 4), "g2b8": (2, 8)}  # name: (R, B)

PAIR_BYTES = 64  # the exchanged columns of one projected pair (core/train/sharded/exchange_columns.h)
GRAD_BYTES = 48  # reverse record: the pair's gradients

# Visible fraction of (camera, Gaussian) pairs: packed / dense pairs projected per rank in
# bench/ranks_overhead_h100_2026-11-24.txt (bench_exchange, bonsai trained for 3,000 images,
# 738,460 Gaussians, nvidia-h100-x1, 2026-11-24): batch 2: 451516 / 1476920; batch 4: 997443 / 2953840.
VISIBLE_MEASURED = [(451516, 1476920), (997443, 2953840)]
# The same file, rank 1 = R = 1 rows: whole-step ms, dense against packed (the extra cost of the
# packed layout at one rank: visibility scan, compaction, atomics in the projection backward),
# batch B, rows 738,460. Used as the packed layout's extra cost per camera x row.
PACKED_EXTRA_R1 = [(2, 3.41, 3.50), (4, 5.90, 6.32)]  # (B, dense ms, packed ms)
PACKED_ROWS = 738460
# The same file, packed R = 2 rows: "sharded: pair counts" (device count, small all-to-all, one host
# wait) in ms per step at B = 2 and 4 (ranks sharing one GPU: an estimate of the across-GPU figure).
PACKED_COUNTS_MS = [0.146, 0.177]
# bench_exchange's bytes/step (sum over ranks of pair records sent to peers + gradient records
# returned), dense rows of the same file: (B, R, rows of the whole model, bytes/step). The model's
# pair-count formula must reproduce them exactly.
EXCHANGE_BYTES_CHECK = [(2, 2, 738460, 82707528), (4, 2, 738460, 165415056), (4, 4, 738460, 248122560)]

# E[max of R standard normals]: the expected slowest of R ranks when their render times spread
# normally and independently (used to grow the measured R = 2 wait with R; an assumption).
EXPECTED_MAX_NORMAL = {1: 0.0, 2: 0.5642, 4: 1.0294, 8: 1.4236, 16: 1.7660, 32: 2.0697, 64: 2.3318}


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
        if line.startswith("  sum of step phases"):
            f = line.split()
            out["sum_s"], out["sum_ms"] = float(f[-2]), float(f[-1])
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
        t["exchange_fwd"] = t["exchange_ret"] = 0.0
    else:
        t["project"] = g("sharded: project")
        t["project_bwd"] = g("sharded: project backward (+stats)")
        t["raster"] = g("sharded: rasterize") + g("sharded: loss") + g("sharded: rasterize backward")
        t["exchange_fwd"] = g("sharded: pair exchange")
        t["exchange_ret"] = g("sharded: gradient return")
    t["adam"] = g("adam")
    t["refine"] = g("strategy: refinement steps")
    t["rebalance"] = g("rebalance")
    t["wall"] = p["wall_s"] * 1e3 / p["steps"]  # loop wall ms/step: what the model must reproduce
    # Everything else, per step: pair counts (dense: from the shard sizes), the strategy's per-step
    # work, the host's time between steps and the run's one evaluation (0.04 s of the loop).
    t["host"] = t["wall"] - sum(t[k] for k in ("project", "raster", "project_bwd", "exchange_fwd", "exchange_ret",
                                               "adam", "refine", "rebalance"))
    t["refine_calls_per_image"] = (ph["strategy: refinement steps"]["total_s"]
                                   / (ph["strategy: refinement steps"]["ms_call"] * 1e-3) / p["images"])
    t["refine_ms_call"] = ph["strategy: refinement steps"]["ms_call"]
    t["rebalance_ms_per_image"] = ph["rebalance"]["total_s"] * 1e3 / p["images"] if "rebalance" in ph else 0.0
    return t


class Model:
    """t(R, B) with the fitted constants; every figure in ms, rows in Gaussians."""

    def fit(self, profiles, verbose=True):
        self.data = []
        for name, (R, B) in PROFILES.items():
            p = profiles[name]
            self.data.append((name, R, B, mean_rows(p), terms_of(p, R), p))
        # One N for the fit: the mean of the four runs' mean counts (they follow one schedule and
        # differ by ~1 %); the predictions are for this protocol and this N.
        self.N = sum(d[3] for d in self.data) / len(self.data)
        N = self.N
        D = self.data
        # raster(c) = a*c + b: forward (no projection) + loss + backward (no projection backward)
        # of c images in one call.
        self.ra, self.rb = lstsq([[B / R, 1.0] for _, R, B, _, _, _ in D], [t["raster"] for *_, t, _ in D])
        # project = p0 + p_cr * cameras x rows + p_r * rows (rows of the rank's shard, in millions)
        X = lambda R, B: [1.0, B * N / R / 1e6, N / R / 1e6]
        self.proj = lstsq([X(R, B) for _, R, B, *_ in D], [t["project"] for *_, t, _ in D])
        # project backward = q_cr * cameras x rows + q_r * rows: a row's gradients are written once
        # whatever the cameras (with a constant as well, the fit's constant comes out negative)
        self.pbwd = [0.0] + lstsq([X(R, B)[1:] for _, R, B, *_ in D], [t["project_bwd"] for *_, t, _ in D])
        # adam = d0 + d_r * rows
        self.adam = lstsq([[1.0, N / R / 1e6] for _, R, B, *_ in D], [t["adam"] for *_, t, _ in D])
        # refinement, per call = f_fix + f_par / R; calls per image from the tables
        self.refine = lstsq([[1.0, 1.0 / R] for _, R, *_ in D], [t["refine_ms_call"] for *_, t, _ in D])
        self.refine_calls_per_image = sum(t["refine_calls_per_image"] for *_, t, _ in D) / len(D)
        g2 = [t for _, R, *_, t, _ in D if R > 1]
        self.rebalance_ms_per_image = sum(t["rebalance_ms_per_image"] for t in g2) / len(g2)
        # exchange: forward = e_f + 64 B x pairs / BW, return = e_r + 48 B x pairs / BW (one BW)
        rows, y = [], []
        for _, R, B, _, t, _ in D:
            if R > 1:
                P = self.pairs_sent(R, B)
                rows += [[1.0, 0.0, PAIR_BYTES * P / 1e9], [0.0, 1.0, GRAD_BYTES * P / 1e9]]
                y += [t["exchange_fwd"], t["exchange_ret"]]
        self.e_f, self.e_r, ms_per_gb = lstsq(rows, y)
        self.nvlink_gbs_fit = 1e3 / ms_per_gb  # GB/s: bytes per rank and direction / time
        # host per step = h0 + h_R (R - 1): what the phases do not hold
        self.host = lstsq([[1.0, R - 1.0] for _, R, *_ in D], [t["host"] for *_, t, _ in D])
        return self

    def pairs_sent(self, R, B, N=None):
        """Pairs one rank sends to its peers in the dense exchange: each peer's cameras x own rows."""
        N = self.N if N is None else N
        return (R - 1) * math.ceil(B / R) * N / R

    def step(self, R, B, variant="dense", visible=None, nvlink_gbs=None, ib_gbs=40.0, gpus_per_node=8,
             grow_wait=True, N=None):
        """Predicted ms per step, by term."""
        N = self.N if N is None else N
        visible = self.visible if visible is None else visible
        nvlink_gbs = self.nvlink_gbs_fit if nvlink_gbs is None else nvlink_gbs
        c = math.ceil(B / R)
        rows = N / R / 1e6
        t = {}
        t["project"] = self.proj[0] + self.proj[1] * B * rows + self.proj[2] * rows
        t["raster"] = self.ra * c + self.rb
        t["project_bwd"] = self.pbwd[0] + self.pbwd[1] * B * rows + self.pbwd[2] * rows
        t["adam"] = self.adam[0] + self.adam[1] * rows
        t["refine"] = B * self.refine_calls_per_image * (self.refine[0] + self.refine[1] / R)
        t["rebalance"] = B * self.rebalance_ms_per_image if R > 1 else 0.0
        t["host"] = self.host[0] + self.host[1] * (R - 1)
        t["exchange"] = 0.0
        if R > 1:
            culled = variant in ("culled",)
            frac = visible if culled else 1.0
            P = self.pairs_sent(R, B, N) * frac
            byte_ms = 0.0
            for rec in (PAIR_BYTES, GRAD_BYTES):
                on_peers = min(R, gpus_per_node) - 1
                off_peers = (R - 1) - on_peers
                on_b = rec * P * on_peers / (R - 1)
                off_b = rec * P * off_peers / (R - 1)
                byte_ms += max(on_b / (nvlink_gbs * 1e6), off_b / (ib_gbs * 1e6) if off_b else 0.0)
            if variant == "overlap":
                byte_ms = 0.0  # bound: every byte hidden behind compute, latency and waits remain
            # Fixed parts: both all-to-alls pay the forward's fixed part (latency, launches, pack and
            # unpack calls); what the return's exceeds it by is taken as the wait for the slowest
            # rank's backward, grown with R as the expected maximum of R normal spreads.
            wait_scale = EXPECTED_MAX_NORMAL[R] / EXPECTED_MAX_NORMAL[2] if grow_wait else 1.0
            t["exchange"] = 2 * self.e_f + (self.e_r - self.e_f) * wait_scale + byte_ms
            if culled:
                t["exchange"] += self.packed_counts_ms
                t["project"] += self.packed_extra_per_cam_mrow * B * rows
        t["total"] = sum(t.values())
        return t


def packed_constants(model):
    model.visible = sum(v / d for v, d in VISIBLE_MEASURED) / len(VISIBLE_MEASURED)
    model.packed_extra_per_cam_mrow = (sum((pk - dn) / B for B, dn, pk in PACKED_EXTRA_R1) / len(PACKED_EXTRA_R1)
                                       / (PACKED_ROWS / 1e6))
    model.packed_counts_ms = sum(PACKED_COUNTS_MS) / len(PACKED_COUNTS_MS)


# ----------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profiles", default=DEFAULT_PROFILES)
    ap.add_argument("--visible", type=float, default=None,
                    help="visible fraction of pairs for the culled exchange (default: measured, ~0.32)")
    ap.add_argument("--nvlink-gbs", type=float, default=None,
                    help="effective per-GPU all-to-all GB/s inside a node (default: fitted from the profiles)")
    ap.add_argument("--ib-gbs", type=float, default=40.0,
                    help="effective per-GPU GB/s to ranks on other nodes (assumption: one 400 Gb/s NDR HCA per GPU)")
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--no-wait-growth", action="store_true",
                    help="keep the gradient return's fixed part (mostly waiting for the slowest rank) at its R = 2 value")
    ap.add_argument("--rows", type=float, default=None,
                  help="mean Gaussian count (default: the profiles' mean); scales the per-row terms only"
                       " (projection, projection backward, Adam, exchange), not raster(c) or refinement")
    args = ap.parse_args()

    profiles = {n: read_profile(os.path.join(args.profiles, n + ".txt")) for n in PROFILES}
    m = Model().fit(profiles)
    packed_constants(m)
    kw = dict(visible=args.visible, nvlink_gbs=args.nvlink_gbs, ib_gbs=args.ib_gbs,
              gpus_per_node=args.gpus_per_node, grow_wait=not args.no_wait_growth, N=args.rows)

    print("== inputs (bench/results/profiles_h100x2_2026-11-25, nvidia-h100-x2, 2026-11-25)")
    for name, R, B, N, t, p in m.data:
        print(f"  {name}: R={R} B={B} steps={p['steps']} loop wall {p['wall_s']:.2f} s = {t['wall']:.3f} ms/step"
              f" ({p['images'] / p['wall_s']:.1f} images/s), mean rows {N / 1e6:.3f}M, final {p['final_gaussians']}")
    print(f"  N (mean rows over the first 10,000 images, mean of the four) = {m.N / 1e6:.3f}M")

    print("\n== fit (ms; rows in millions of the rank's shard; c = images per rank per call)")
    print(f"  raster(c)  = {m.ra:.4f} c + {m.rb:.4f}   (forward without projection + loss + backward without"
          f" projection backward; per image {m.ra + m.rb:.3f} at c=1, {m.ra + m.rb / 2:.3f} at 2,"
          f" {m.ra + m.rb / 4:.3f} at 4, {m.ra + m.rb / 8:.3f} at 8, {m.ra + m.rb / 16:.3f} at 16; measured c = 2, 4 only)")
    print(f"  project    = {m.proj[0]:.4f} + {m.proj[1]:.4f} x cameras x rows + {m.proj[2]:.4f} x rows")
    print(f"  proj. bwd  = {m.pbwd[1]:.4f} x cameras x rows + {m.pbwd[2]:.4f} x rows")
    print(f"  adam       = {m.adam[0]:.4f} + {m.adam[1]:.4f} x rows")
    print(f"  refinement = ({m.refine[0]:.3f} + {m.refine[1]:.3f} / R) ms per call, {m.refine_calls_per_image * 100:.3f}"
          f" calls per 100 images  (parallel share {m.refine[1] / (m.refine[0] + m.refine[1]):.0%} at R=1)")
    print(f"  rebalance  = {m.rebalance_ms_per_image * 1e3:.2f} us per image at R>1 (assumed the same at every R)")
    print(f"  exchange   = {m.e_f:.4f} + {m.e_r:.4f} (fixed: forward, return) + bytes / {m.nvlink_gbs_fit:.0f} GB/s"
          f"  (bytes per rank per direction: {PAIR_BYTES} B forward + {GRAD_BYTES} B back per pair sent)")
    print(f"               at R > 2: 2 x {m.e_f:.4f} + {m.e_r - m.e_f:.4f} x E[max of R normals] / E[max of 2]"
          f" (x{EXPECTED_MAX_NORMAL[4] / EXPECTED_MAX_NORMAL[2]:.2f} at R=4, x{EXPECTED_MAX_NORMAL[8] / EXPECTED_MAX_NORMAL[2]:.2f}"
          " at R=8): the return's excess taken as the wait for the slowest rank")
    print(f"  host       = {m.host[0]:.4f} + {m.host[1]:.4f} x (R - 1) per step (between-step host work, pair counts,"
          " strategy per-step terms, fit residual)")
    print(f"  culled exchange: visible fraction {m.visible:.3f} (measured), packed layout extra"
          f" {m.packed_extra_per_cam_mrow:.4f} ms per camera x million rows, counts {m.packed_counts_ms:.3f} ms per step")

    print("\n== check: bench_exchange's bytes/step (dense rows of bench/ranks_overhead_h100_2026-11-24.txt)")
    for B, R, N, measured in EXCHANGE_BYTES_CHECK:
        model_bytes = R * m.pairs_sent(R, B, N) * (PAIR_BYTES + GRAD_BYTES)
        print(f"  B={B} R={R}: formula {model_bytes:.0f} bytes, measured {measured} ({model_bytes / measured:.6f})")

    print("\n== residuals, ms/step (measured - model)")
    keys = [("project", "project"), ("raster", "raster"), ("project_bwd", "project_bwd"), ("adam", "adam"),
            ("refine", "refine"), ("rebalance", "rebalance")]
    print("  profile  " + "".join(f"{k:>19}" for k, _ in keys) + f"{'exchange':>19}{'host':>19}{'TOTAL':>21}")
    for name, R, B, N, t, p in m.data:
        pr = m.step(R, B, N=m.N, visible=m.visible, nvlink_gbs=m.nvlink_gbs_fit)
        cells = [f"{t[k]:6.3f}/{pr[j]:6.3f} {t[k] - pr[j]:+6.3f}" for k, j in keys]
        ex = t["exchange_fwd"] + t["exchange_ret"]
        cells.append(f"{ex:6.3f}/{pr['exchange']:6.3f} {ex - pr['exchange']:+6.3f}")
        cells.append(f"{t['host']:6.3f}/{pr['host']:6.3f} {t['host'] - pr['host']:+6.3f}")
        tot = f"{t['wall']:6.3f}/{pr['total']:6.3f} {100 * (pr['total'] / t['wall'] - 1):+5.1f}%"
        print(f"  {name:8}" + "".join(f"{c:>19}" for c in cells) + f"{tot:>21}")
    print("  (cells: measured/model difference; TOTAL: loop wall ms/step, model's error in %)")
    for name, R, B, N, t, p in m.data:
        if R > 1:
            pr = m.step(R, B)
            print(f"  {name} exchange phases: forward {t['exchange_fwd']:.3f} (model"
                  f" {m.e_f + PAIR_BYTES * m.pairs_sent(R, B) / m.nvlink_gbs_fit / 1e6:.3f}), return {t['exchange_ret']:.3f}"
                  f" (model {m.e_r + GRAD_BYTES * m.pairs_sent(R, B) / m.nvlink_gbs_fit / 1e6:.3f});"
                  f" {m.pairs_sent(R, B) / 1e6:.2f}M pairs sent per rank,"
                  f" {(PAIR_BYTES + GRAD_BYTES) * m.pairs_sent(R, B) / 1e6:.0f} MB per rank per step")

    print("\n== predictions (PREDICTED, not measured), bonsai first 10,000 images, default strategy, --profile protocol")
    print(f"   N = {(args.rows or m.N) / 1e6:.3f}M mean rows; NVLink {args.nvlink_gbs or m.nvlink_gbs_fit:.0f} GB/s per GPU"
          f" (same per-GPU figure at 4 and 8 GPUs on one NVSwitch host: assumption); visible fraction"
          f" {args.visible or m.visible:.2f} for 'culled'; 'overlap' = bound with every exchanged byte hidden")
    hdr = (f"  {'R':>2} {'B':>3} {'c':>3} {'ms/step':>8} {'img/s':>7} {'x1GPU':>6} {'exch%':>6}"
           f" {'culled img/s':>13} {'x1GPU':>6} {'overlap img/s':>14} {'x1GPU':>6}")
    print(hdr)
    base = {}
    rows_out = []
    for B in (1, 4, 8, 16):
        for R in (1, 2, 4, 8):
            if R > B or (B == 1 and R > 1):
                continue
            d = m.step(R, B, "dense", **kw)
            cu = m.step(R, B, "culled", **kw) if R > 1 else d
            ov = m.step(R, B, "overlap", **kw) if R > 1 else d
            ips = lambda t: B / t["total"] * 1e3
            if R == 1:
                base[B] = ips(d)
            r1 = base[B]
            rows_out.append((R, B, d, cu, ov))
            print(f"  {R:>2} {B:>3} {math.ceil(B / R):>3} {d['total']:8.3f} {ips(d):7.0f} {ips(d) / r1:6.2f}"
                  f" {100 * d['exchange'] / d['total']:5.1f}% {ips(cu):13.0f} {ips(cu) / r1:6.2f}"
                  f" {ips(ov):14.0f} {ips(ov) / r1:6.2f}")

    print("\n== where a predicted dense step goes (ms): R B | project raster proj_bwd exchange adam refine+rebal host")
    for R, B, d, cu, ov in rows_out:
        print(f"  {R:>2} {B:>3} | {d['project']:6.3f} {d['raster']:6.3f} {d['project_bwd']:6.3f} {d['exchange']:6.3f}"
              f" {d['adam']:6.3f} {d['refine'] + d['rebalance']:6.3f} {d['host']:6.3f}   = {d['total']:.3f}")

    print(f"\n== across nodes (PREDICTED; {args.gpus_per_node} GPUs per node on NVLink, InfiniBand {args.ib_gbs:.0f} GB/s"
          " per GPU to other nodes: assumption)")
    for R, B in ((16, 16), (16, 32), (32, 32), (32, 64)):
        if R not in EXPECTED_MAX_NORMAL:
            continue
        d = m.step(R, B, "dense", **kw)
        cu = m.step(R, B, "culled", **kw)
        one = m.step(1, B, "dense", **kw)
        print(f"  R={R:>2} B={B:>3}: dense {B / d['total'] * 1e3:6.0f} img/s (x{one['total'] / d['total'] * 1:.2f}"
              f" one GPU at B={B}, exchange {100 * d['exchange'] / d['total']:.0f}%), culled {B / cu['total'] * 1e3:6.0f}"
              f" img/s (x{one['total'] / cu['total']:.2f})")


if __name__ == "__main__":
    sys.exit(main())
