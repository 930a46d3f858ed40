#!/usr/bin/env python3
"""Test-view PSNR of a device run's evaluations, split into covered and extrapolated views.

Cup's test views 54, 61 and 78 sit far from every training camera (bench/QUALITY.md, "What cup's
spread is made of"); the others are covered. For every setting (the TAG of TAG_s<seed>.eval.txt, as
bench/gpu_queue_runs.sh writes them with EVAL set) this prints the mean over seeds of all views, of the
covered ones and of the extrapolated ones, with their standard deviations over the seeds. Scenes
without those views report only their mean.

    bench/view_split.py RUN/q [VIEW.jpg ...]     (default: 54.jpg 61.jpg 78.jpg)
"""
import collections
import glob
import re
import statistics as st
import sys


def main():
    folder = sys.argv[1]
    far = set(sys.argv[2:]) or {"54.jpg", "61.jpg", "78.jpg"}
    runs = collections.defaultdict(list)
    for path in sorted(glob.glob(folder + "/*.eval.txt")):
        tag = re.sub(r"_s\d+\.eval\.txt$", "", path.split("/")[-1])
        covered, extrapolated, mean, gaussians = [], [], None, 0
        for line in open(path):
            m = re.match(r"(\S+\.jpg)\s+PSNR\s+([\d.]+)", line)
            if m:
                (extrapolated if m.group(1) in far else covered).append(float(m.group(2)))
            m = re.search(r"mean over \d+ test views: PSNR ([\d.]+).*\((\d+) Gaussians", line)
            if m:
                mean, gaussians = float(m.group(1)), int(m.group(2))
        if mean is not None:
            runs[tag].append((mean, covered, extrapolated, gaussians))
    sd = lambda v: st.stdev(v) if len(v) > 1 else 0.0
    for tag, rows in runs.items():
        means = [r[0] for r in rows]
        line = f"{tag}: {len(rows)} runs, all views {st.mean(means):.2f} (min {min(means):.2f}; " + \
            ", ".join(f"{m:.3f}" for m in means) + f"), {int(st.mean(r[3] for r in rows))} Gaussians"
        if all(r[2] for r in rows):
            cov = [st.mean(r[1]) for r in rows]
            ext = [st.mean(r[2]) for r in rows]
            line += f"; covered {st.mean(cov):.2f} sd {sd(cov):.2f}; extrapolated {st.mean(ext):.2f} sd {sd(ext):.2f}"
        print(line)


if __name__ == "__main__":
    main()
