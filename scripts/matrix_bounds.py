#!/usr/bin/python3
"""Writes tests/data/matrix_bounds.tsv, the bounds of the motion x photometry matrix
(tests/robust_matrix.cpp), from `robust_matrix --study` printouts of the reference path.

Each printout is one algorithm under one robust mode (its first line names the algorithm; pass
the mode with the file: KEY=FILE, KEY "tvl1" for the default, "tvl1:level-norm" for a mode run
with --robust level-norm). Per cell: bound = 1.3 x the measured EPE; TV-L1's bound is capped at
1.15 x OpenCV's EPE (tests/data/opencv_matrix.tsv) where the measured EPE is within that. The gap
column names the rule a cell misses on the reference path (robust_matrix reports those cells
instead of failing them): "opencv" (TV-L1 above 1.15 x OpenCV), "none" (a cell without a
photometric change above 1.15 x the same algorithm with robust none, plus 0.02 px), both, or "-".

--keep: the rows of the existing output file whose key no given printout has stay as they are
(another mode's rows need not be measured again).

Usage: scripts/matrix_bounds.py [--opencv tests/data/opencv_matrix.tsv] [-o FILE] [--keep] KEY=FILE ...
"""
import argparse
import datetime


def read_study(path):
    rows = {}
    for line in open(path):
        t = line.split()
        if len(t) == 7 and t[0] not in ("motion", "robust_matrix"):
            try:
                rows[(t[0], t[1])] = (float(t[2]), float(t[5]))
            except ValueError:
                pass
    return rows


def read_opencv(path):
    cv = {}
    for line in open(path):
        t = line.split()
        if not t or t[0].startswith("#") or t[0] == "motion":
            continue
        cv[(t[0], t[1])] = float(t[5])
    return cv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opencv", default="tests/data/opencv_matrix.tsv")
    ap.add_argument("-o", default="tests/data/matrix_bounds.tsv")
    ap.add_argument("--keep", action="store_true", help="keep the output's rows of the keys not given")
    ap.add_argument("studies", nargs="+", help="KEY=FILE")
    a = ap.parse_args()
    cv = read_opencv(a.opencv)
    given = set(spec.split("=", 1)[0] for spec in a.studies)
    kept = []
    if a.keep:
        for line in open(a.o):
            t = line.split()
            if t and not t[0].startswith("#") and t[0] not in given:
                kept.append(line.rstrip("\n"))
    out = ["# The motion x photometry matrix's bounds (tests/robust_matrix.cpp), written by",
           "# scripts/matrix_bounds.py on %s from robust_matrix --study printouts of the reference" % datetime.date.today(),
           "# path (x86-64, gcc 12, 2 threads). bound = 1.3 x the measured EPE (TV-L1: at most 1.15 x",
           "# OpenCV's, tests/data/opencv_matrix.tsv, where the EPE is within that). gap: the rule the",
           "# cell misses (opencv: TV-L1 above 1.15 x OpenCV; none: above 1.15 x robust none + 0.02 px), or -.",
           "# key motion photometry bound measured gap"] + kept
    for spec in a.studies:
        key, path = spec.split("=", 1)
        algo = key.split(":")[0]
        for (m, p), (e, none) in read_study(path).items():
            bound = 1.3 * e
            gaps = []
            if algo == "tvl1":
                c = cv[(m, p)]
                if e > 1.15 * c:
                    gaps.append("opencv")
                else:
                    bound = min(bound, 1.15 * c)
            if p == "none" and none > 0 and e > 1.15 * none + 0.02:
                gaps.append("none")
            out.append("%s %s %s %.4f %.4f %s" % (key, m, p, bound, e, ",".join(gaps) or "-"))
    open(a.o, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
