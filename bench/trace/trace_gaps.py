#!/usr/bin/env python3
"""Where each GPU of a kernel_trace.csv sits idle, and between which kernels.

usage: trace_gaps.py TRACE.csv [--skip FRACTION] [--end-at KERNEL] [--top N]

Per device: the span of its records after the first FRACTION of the trace's span (default 0.3, so the
start-up and the early, small model are left out) and up to the end of the last KERNEL (by default the
blend backward, so the evaluation and the files written after training are too); the time some
kernel, copy or memset ran (busy), and the idle gaps between them, summed by the pair (kernel before, kernel after) that bounds them. A gap
before a kernel that waits on another GPU (a peer's rows, an exchange) shows as idle time ahead of that
kernel; a gap where the host fell behind shows ahead of whatever it launched next.
"""
import argparse
import collections
import csv
import re


def short_name(what):
    """The function name of a mangled or demangled kernel name, without namespaces or templates."""
    if what.startswith("_Z"):  # Itanium mangling: the last <length><name> of the nested name
        i = 3 if what.startswith("_ZN") else 2
        name = what
        while i < len(what) and what[i].isdigit():
            j = i
            while what[j].isdigit():
                j += 1
            n = int(what[i:j])
            name, i = what[j:j + n], j + n
        return name
    base = re.sub(r"<.*", "", what.split("(")[0]).replace("void ", "")
    return base.split("::")[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--skip", type=float, default=0.3)
    ap.add_argument("--end-at", default="blend_backward_kernel")
    ap.add_argument("--top", type=int, default=14)
    a = ap.parse_args()
    per_device = collections.defaultdict(list)
    with open(a.trace) as f:
        for row in csv.DictReader(f):
            name = short_name(row["what"]) if row["kind"] == "kernel" else row["kind"]
            per_device[int(row["device"])].append((int(row["start_ns"]), int(row["end_ns"]), name))
    first = min(r[0] for recs in per_device.values() for r in recs)
    last = max(r[1] for recs in per_device.values() for r in recs if r[2] == a.end_at)
    start = first + a.skip * (last - first)
    for dev in sorted(per_device):
        recs = sorted(r for r in per_device[dev] if start <= r[0] and r[1] <= last)
        if not recs:
            continue
        busy = 0
        gaps = collections.Counter()
        gap_count = collections.Counter()
        kernel_time = collections.Counter()
        kernel_count = collections.Counter()
        end, prev = recs[0][0], "(start)"
        for s, e, name in recs:
            kernel_time[name] += e - s
            kernel_count[name] += 1
            if s > end:
                gaps[(prev, name)] += s - end
                gap_count[(prev, name)] += 1
            if e > end:
                busy += e - max(s, end)
                end, prev = e, name
        span = end - recs[0][0]
        idle = span - busy
        print(f"device {dev}: {len(recs)} records over {span / 1e9:.3f} s; busy {busy / span:.1%}, "
              f"idle {idle / 1e6:.1f} ms")
        print("  idle before -> after                                             total ms   count   mean us")
        for (p, n), t in gaps.most_common(a.top):
            label = f"{p} -> {n}"
            print(f"  {label[:64]:64s} {t / 1e6:8.1f} {gap_count[(p, n)]:7d} {t / gap_count[(p, n)] / 1e3:9.1f}")
        print("  busiest records" + " " * 50 + "total ms   share   count   mean us")
        for n, t in kernel_time.most_common(a.top):
            mean_us = t / kernel_count[n] / 1e3
            print(f"  {n[:64]:64s} {t / 1e6:8.1f} {t / span:7.1%} {kernel_count[n]:7d} {mean_us:9.1f}")


if __name__ == "__main__":
    main()
