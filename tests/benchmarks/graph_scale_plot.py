#!/usr/bin/python3
"""Draws graph_scale_bench's CSV as two log-log plots against size, one line per workload:
peak resident memory, and graph build + compile seconds (the trainers report no split, so their
wall seconds are drawn instead).

usage: graph_scale_plot.py POINTS.csv OUT.png   (exit status 3: matplotlib is not installed)
"""
import csv
import sys


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("graph_scale_plot.py: matplotlib is not installed (Debian: apt-get install "
              "python3-matplotlib); no plot drawn", file=sys.stderr)
        return 3

    lines = {}  # workload -> [(size, peak MiB, seconds)]
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            if row["status"] != "ok":
                continue
            build, compile_ = number(row["build_s"]), number(row["compile_s"])
            seconds = build + compile_ if build is not None and compile_ is not None \
                else number(row["wall_s"])
            lines.setdefault(row["workload"], []).append(
                (number(row["size"]), number(row["peak_rss_mib"]), seconds))

    fig, (rss, secs) = plt.subplots(1, 2, figsize=(11, 4.5))
    for workload, points in sorted(lines.items()):
        points.sort()
        sizes = [p[0] for p in points]
        rss.plot(sizes, [p[1] for p in points], marker="o", label=workload)
        secs.plot(sizes, [p[2] for p in points], marker="o", label=workload)
    for ax, title, unit in ((rss, "peak resident memory", "MiB"),
                            (secs, "graph build + compile (trainers: wall)", "s")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("size (matvec: rows; trainers: micro-batch)")
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
