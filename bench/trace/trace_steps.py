#!/usr/bin/env python3
"""A kernel_trace.csv cut into training steps: what each step of each GPU spends, and how the ranks of a
multi-GPU run meet at their exchanges.

usage: trace_steps.py TRACE.csv [--batch B] [--images N] [--from IMAGE] [--to IMAGE] [--phases I0,I1,...]
                       [--top N]

A step starts at each projection (project_kernel, one call a step on every rank); the first
--images / --batch steps are training (without --images, every step counts), the projections after
them are the evaluation's. A step
that ran the refinement's gathers (gather_kernel) is a refinement step, the others normal steps.

Prints, per device:
  - with --phases: per range of images, the steps' total time, the normal steps' mean and idle time, and
    the refinement steps' mean;
  - over the normal steps of images [--from, --to): their mean time, busy and idle, and the mean time a
    step spends in each kernel (copies and memsets by kind), largest first.
With two devices, also the exchanges (the gated copies after a projection: the pairs; after the blend
backward: the gradients): how far apart the ranks arrive (the end of the kernel before the copies), the
time from the later arrival to the first kernel after the copies (the exchange's cost on the step's path),
and which rank arrived last.
"""
import argparse
import collections
import csv
import statistics as st

from trace_gaps import short_name


def load(path):
    per_device = collections.defaultdict(list)
    for r in csv.DictReader(open(path)):
        name = short_name(r["what"]) if r["kind"] == "kernel" else r["kind"]
        per_device[int(r["device"])].append((int(r["start_ns"]), int(r["end_ns"]), name))
    return {d: sorted(v) for d, v in per_device.items()}


def steps_of(records, batch):
    """(first image, records of the step, its length in us) per step, training steps only."""
    starts = [i for i, r in enumerate(records) if r[2] == "project_kernel"]
    out = []
    for k, (a, b) in enumerate(zip(starts, starts[1:])):
        out.append((k * batch, records[a:b], (records[b][0] - records[a][0]) / 1000))
    return out


def busy_us(segment):
    busy, end = 0, segment[0][0]
    for s, e, _ in segment:
        if e > end:
            busy += e - max(s, end)
            end = e
    return busy / 1000


def is_refinement(segment):
    return any(n == "gather_kernel" for _, _, n in segment)


def exchanges(records):
    """(kind, arrival ns, departure ns) per run of gated copies: arrival is the end of the kernel before
    them, departure the start of the first record after them."""
    out = []
    for i, (_, _, n) in enumerate(records):
        if n != "gated_copy_kernel" or records[i - 1][2] == "gated_copy_kernel":
            continue
        j = i
        while j < len(records) and records[j][2] == "gated_copy_kernel":
            j += 1
        before = records[i - 1][2]
        kind = "pairs" if before == "project_kernel" else "gradients" if before == "blend_backward_kernel" else None
        if kind and j < len(records):
            out.append((kind, records[i - 1][1], records[j][0]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--from", dest="first", type=int, default=0)
    ap.add_argument("--to", type=int, default=None)
    ap.add_argument("--images", type=int, default=None, help="training images (default: every step)")
    ap.add_argument("--phases", default=None)
    ap.add_argument("--top", type=int, default=16)
    a = ap.parse_args()
    devices = load(a.trace)
    for d, records in sorted(devices.items()):
        steps = steps_of(records, a.batch)
        if a.images:
            steps = steps[: a.images // a.batch]
        print(f"device {d}: {len(steps)} steps")
        if a.phases:
            bounds = [int(x) for x in a.phases.split(",")]
            for lo, hi in zip(bounds, bounds[1:]):
                sel = [s for s in steps if lo <= s[0] < hi]
                normal = [s for s in sel if not is_refinement(s[1])]
                refine = [s[2] for s in sel if is_refinement(s[1])]
                if not normal:
                    continue
                mean = st.mean(s[2] for s in normal)
                idle = mean - st.mean(busy_us(s[1]) for s in normal)
                line = (f"  images {lo:6d}-{hi:6d}: {sum(s[2] for s in sel) / 1e6:6.2f} s; normal steps {len(normal)}, "
                        f"mean {mean:7.1f} us, idle {idle:6.1f}")
                if refine:
                    line += f"; refinement steps {len(refine)}, mean {st.mean(refine):7.1f} us"
                print(line)
        hi = a.to if a.to is not None else 1 << 62
        normal = [s for s in steps if a.first <= s[0] < hi and not is_refinement(s[1])]
        if not normal:
            continue
        per = collections.Counter()
        for _, seg, _ in normal:
            for s, e, n in seg:
                per[n] += (e - s) / 1000
        mean = st.mean(s[2] for s in normal)
        busy = st.mean(busy_us(s[1]) for s in normal)
        print(f"  normal steps of images {a.first}-{a.to if a.to else 'end'}: {len(normal)}, mean {mean:.1f} us, "
              f"busy {busy:.1f}, idle {mean - busy:.1f}")
        print("    " + "; ".join(f"{n} {v / len(normal):.1f}" for n, v in per.most_common(a.top)))
    if len(devices) == 2:
        (d0, r0), (d1, r1) = sorted(devices.items())
        e0, e1 = exchanges(r0), exchanges(r1)
        for kind in ("pairs", "gradients"):
            a0 = [x for x in e0 if x[0] == kind]
            a1 = [x for x in e1 if x[0] == kind]
            n = min(len(a0), len(a1))
            pairs = list(zip(a0[:n], a1[:n]))
            pairs = pairs[int(len(pairs) * 0.3):]  # the start-up and the early, small model left out
            if not pairs:
                continue
            apart = [abs(x[1] - y[1]) / 1000 for x, y in pairs]
            path = [((x[2] - max(x[1], y[1])) + (y[2] - max(x[1], y[1]))) / 2000 for x, y in pairs]
            last0 = sum(1 for x, y in pairs if x[1] > y[1])
            print(f"{kind} exchange over the last 70 % ({len(pairs)}): ranks arrive {st.mean(apart):.1f} us apart, "
                  f"later arrival to departure {st.mean(path):.1f} us, device {d0} last {last0} times, "
                  f"device {d1} {len(pairs) - last0}")


if __name__ == "__main__":
    main()
