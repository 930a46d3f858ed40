#!/usr/bin/env python3
"""Where the two ranks of a mapped-exchange step meet, from a two-GPU kernel_trace.csv.

usage: trace_meets.py TRACE.csv [--batch B] [--from IMAGE]

A mapped step (the projection writing into the peers' columns, the owners reading the gradients where
they were computed) has no copy kernels, so trace_steps.py's exchange figures do not apply. Its ranks
meet where a small host-to-device copy follows the wait on the peer:
  - pairs: the render waits for the peers' projections (the camera upload after project_kernel);
  - gradients: the owners read after the peers' backward (the gradient sources' upload after the blend
    backward);
  - next writes: the next step's projection opens its writes after the peers' ready tokens (the
    destinations' upload at the end of the step).
Per meeting, over the normal steps (no gather_kernel) from image --from on: how far apart the ranks
arrive (the end of the record before the upload), the later arrival to its upload (the hop), and what
the earlier rank waits. The uploads are told apart by their byte counts, which are those of bonsai at
batch 4 on two ranks (64, 96 and 576 bytes); pass others with --sizes.
"""
import argparse
import collections
import csv
import statistics as st

from trace_gaps import short_name


def load(path):
    per = collections.defaultdict(list)
    for r in csv.DictReader(open(path)):
        name = short_name(r["what"]) if r["kind"] == "kernel" else r["kind"] + ":" + r["what"]
        per[int(r["device"])].append((int(r["start_ns"]), int(r["end_ns"]), name))
    return {d: sorted(v) for d, v in per.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--from", dest="first", type=int, default=3000)
    ap.add_argument("--sizes", default="64,96,576", help="bytes of the pairs', gradients' and writes' uploads")
    a = ap.parse_args()
    per = load(a.trace)
    sizes = a.sizes.split(",")
    meets = {"pairs": "memcpy:" + sizes[0], "gradients": "memcpy:" + sizes[1], "next writes": "memcpy:" + sizes[2]}
    starts = {d: [i for i, r in enumerate(recs) if r[2] == "project_kernel"] for d, recs in per.items()}
    steps = min(len(starts[0]), len(starts[1])) - 1
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    for k in range(a.first // a.batch, steps):
        seg = {d: per[d][starts[d][k]:starts[d][k + 1] + 1] for d in (0, 1)}
        if any(r[2] == "gather_kernel" for d in (0, 1) for r in seg[d]):
            continue
        for label, op in meets.items():
            at = {}
            for d in (0, 1):
                i = next((i for i, r in enumerate(seg[d]) if r[2] == op and i > 0), None)
                if i is not None:
                    at[d] = (seg[d][i - 1][1], seg[d][i][0])  # arrival, departure
            if len(at) < 2:
                continue
            later = 0 if at[0][0] > at[1][0] else 1
            out[label]["arrivals apart"].append(abs(at[0][0] - at[1][0]) / 1000)
            out[label]["later arrival to its upload"].append((at[later][1] - at[later][0]) / 1000)
            out[label]["the earlier rank waits"].append((at[1 - later][1] - at[1 - later][0]) / 1000)
    for label, figures in out.items():
        for what, v in figures.items():
            print(f"{label}: {what:28s} mean {st.mean(v):7.1f} us, median {st.median(v):7.1f}  ({len(v)} steps)")


if __name__ == "__main__":
    main()
