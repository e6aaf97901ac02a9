#!/usr/bin/env python3
"""Fits the whole-frame terms of a table's GPU row to oflow-bench --lk --json's frame-model rows.

The model is platform/tuning.hpp frame_ms for a GPU-only frame with one warp and depth 1:
    ms = frame_us * 1e3 + frame_ns_per_px * px0 + levels * level_us * 1e3
         + steps * (ns_per_it_px * level_px + levels * launch_us * 1e3)          (in ns)
with ns_per_it_px held at the given value (the inner rows' large-frame figure); frame_us is fitted
too (LK's frames have a fixed floor: a 1-level frame of any small size costs the same), unless
--no-frame-us holds it at 0 as the TV-L1 and HS rows were fitted. The fit minimises the relative error (each equation
divided by its measured time) by linear least squares; it prints the terms and every row's
measured time, the fitted model's and the relative error. Usage:
    fit_frame_model.py BENCH.json --precision f32|f16x2 --ns-per-it-px F
"""
import argparse
import json


def lstsq(A, b):
    """Least squares by the normal equations (n unknowns, Gaussian elimination with pivoting)."""
    n = len(A[0])
    M = [[sum(r[i] * r[j] for r in A) for j in range(n)] + [sum(r[i] * y for r, y in zip(A, b))] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda k: abs(M[k][c]))
        M[c], M[p] = M[p], M[c]
        for k in range(n):
            if k != c:
                f = M[k][c] / M[c][c]
                M[k] = [x - f * y for x, y in zip(M[k], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json")
    ap.add_argument("--precision", default="f32")
    ap.add_argument("--ns-per-it-px", type=float, required=True)
    ap.add_argument("--no-frame-us", action="store_true")
    a = ap.parse_args()
    rows = [r for r in json.load(open(a.json))["rows"]
            if r["section"] == "model" and r["precision"] == a.precision and r["ok"]]
    if len(rows) < 4:
        raise SystemExit("fewer than 4 model rows of precision %s" % a.precision)
    A, b = [], []
    for r in rows:
        meas = r["ms"] * 1e6  # ns
        px0 = r["w"] * r["h"]
        known = a.ns_per_it_px * r["steps"] * r["level_px"]
        # unknowns: frame_ns_per_px, level_us, launch_us (us terms in ns: x 1e3)
        row = [px0 / meas, r["levels"] * 1e3 / meas, r["steps"] * r["levels"] * 1e3 / meas]
        A.append(row if a.no_frame_us else row + [1e3 / meas])
        b.append((meas - known) / meas)
    x = lstsq(A, b)
    fns, level_us, launch_us = x[:3]
    frame_us = 0.0 if a.no_frame_us else x[3]
    print("frame_us=%.2f frame_ns_per_px=%.4f level_us=%.2f launch_us=%.2f (ns_per_it_px %.5f held%s)"
          % (frame_us, fns, level_us, launch_us, a.ns_per_it_px, ", frame_us 0" if a.no_frame_us else ""))
    worst = 0.0
    for r in rows:
        model = (frame_us * 1e3 + fns * r["w"] * r["h"] + r["levels"] * level_us * 1e3
                 + r["steps"] * (a.ns_per_it_px * r["level_px"] + r["levels"] * launch_us * 1e3)) * 1e-6
        err = model / r["ms"] - 1.0
        worst = max(worst, abs(err))
        print("  %4dx%-4d levels %d steps %2d: measured %8.3f ms, model %8.3f ms (%+5.1f%%)"
              % (r["w"], r["h"], r["levels"], r["steps"], r["ms"], model, 100 * err))
    print("worst relative error %.1f%% over %d frames" % (100 * worst, len(rows)))


if __name__ == "__main__":
    main()
