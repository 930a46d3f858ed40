#!/usr/bin/env python3
"""How the ranks of a multi-GPU run shared their work, from its metrics.jsonl.

Every metrics line of a run with ranks holds each rank's figures of its last step (Gaussians, step,
render and exchange-wait times). The shards follow what the ranks wait on (docs/ARCHITECTURE.md
"Rebalance"): a rank the others wait for waits least and sheds rows. This prints, per window of
images, each rank's share of the Gaussians and its mean wait and render time, so a run shows whether
the shards moved, which way, and whether the waits came out even.

    bench/rank_waits.py RUN/metrics.jsonl [IMAGES_PER_WINDOW]     (default 3000)
"""
import json
import sys


def windows(path, per_window):
    """[(last image of the window, [per-rank dict of means])] over the metrics lines that hold ranks."""
    out, rows, edge = [], [], per_window
    with open(path) as f:
        for line in f:
            m = json.loads(line)
            ranks = m.get("ranks")
            if not ranks or len(ranks) < 2:
                continue
            rows.append((m["images"], ranks))
            if m["images"] >= edge:
                out.append((m["images"], means(rows)))
                rows, edge = [], edge + per_window * ((m["images"] - edge) // per_window + 1)
    if rows:
        out.append((rows[-1][0], means(rows)))
    return out


def means(rows):
    """Each rank's share of the Gaussians (at the window's last line) and mean wait and render ms."""
    n = len(rows[-1][1])
    total = sum(r["gaussians"] for r in rows[-1][1]) or 1
    return [{
        "share": rows[-1][1][k]["gaussians"] / total,
        "wait": sum(r[1][k]["wait_ms"] for r in rows) / len(rows),
        "render": sum(r[1][k]["render_ms"] for r in rows) / len(rows),
    } for k in range(n)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    per_window = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    table = windows(sys.argv[1], per_window)
    if not table:
        sys.exit(f"{sys.argv[1]}: no metrics line with two ranks or more")
    n = len(table[0][1])
    head = " | ".join(f"rank {k}: share, wait ms, render ms" for k in range(n))
    print(f"| images | {head} |")
    print("|---|" + "---|" * n)
    for images, ranks in table:
        cells = " | ".join(f"{r['share'] * 100:.1f} %, {r['wait']:.3f}, {r['render']:.3f}" for r in ranks)
        print(f"| {images} | {cells} |")


if __name__ == "__main__":
    main()
