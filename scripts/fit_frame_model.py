#!/usr/bin/env python3
"""Fits the whole-frame terms of a table's GPU row to oflow-bench --lk or --dis --json's frame-model rows.

The model is platform/tuning.hpp frame_ms for a GPU-only frame with one warp and depth 1:
    ms = frame_us * 1e3 + frame_ns_per_px * px0 + levels * level_us * 1e3
         + steps * (ns_per_it_px * level_px + levels * launch_us * 1e3)          (in ns)
with ns_per_it_px held at the given value (the inner rows' large-frame figure); frame_us is fitted
too (LK's frames have a fixed floor: a 1-level frame of any small size costs the same), unless
--no-frame-us holds it at 0 as the TV-L1 and HS rows were fitted. The fit minimises the relative error (each equation
divided by its measured time) by linear least squares; it prints the terms and every row's
measured time, the fitted model's and the relative error.

oflow-bench --dis rows carry the model's own counts (core/dis_algorithm.cpp's iteration model):
work_px, the work pixels of the solved levels at one step (a step's cost is ns_per_it_px per
work pixel), launches, every launch of the frame the model counts (the rounds, ceil(steps / 3)
a solved level, and each solved level's fixed ones), and refine_px, the refinement's
fixed-point iterations times the pixels of the solved levels:
    ms = frame_us * 1e3 + frame_ns_per_px * px0 + levels * level_us * 1e3
         + ns_per_it_px * (steps * work_px + refine_work * refine_px) + launches * launch_us * 1e3
--ns-per-it-px 0 fits ns_per_it_px too (DIS has no inner-loop figure to hold it at);
--refine-work 0 fits the refinement's cost per pixel as a term of its own and prints its ratio
to ns_per_it_px (the kDisRefineWork of core/dis_algorithm.cpp).

--section cpu (--dis): the CPU rows, one thread, host frames, of each CPU path the build has:
variant "ref" (the reference path, OF_BACKEND_REFERENCE) and, in a build with the NEON kernels,
"neon" (OF_BACKEND_NEON; x86-64 through SIMDe). Each variant present is fitted on its own (one
fit per variant, in the order ref, neon) unless --variant picks one; the same holds for any
section whose rows carry more than one variant. A board table's <path kind="cpu"> states the
NEON kernels' terms as ns_per_it_px / frame_ns_per_px where the build has them and the
reference's as ref_ns_per_it_px / ref_frame_ns_per_px (platform/tuning.hpp PathCost); the
CPU row has no level_us, launch_us or frame_us, which --no-level, --no-launch and --no-frame-us
hold at 0. The table's DIS CPU row:
    fit_frame_model.py BENCH.json --section cpu --precision f32 --ns-per-it-px 0 --refine-work 20 \
                       --no-launch --no-level --no-frame-us
Usage:
    fit_frame_model.py BENCH.json --precision f32|f16x2 --ns-per-it-px F [--no-frame-us]
                       [--refine-work C] [--section model|cpu] [--variant V] [--no-launch] [--no-level]
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


def fit(rows, a, title):
    """One least-squares fit of rows (all of one variant) under a's options, printed.

    Returns (ns_per_it_px, frame_ns_per_px, the worst relative error)."""
    fit_ns = a.ns_per_it_px <= 0.0
    fit_ref = a.refine_work <= 0.0 and any("refine_px" in r for r in rows)
    if fit_ref and not fit_ns:
        raise SystemExit("--refine-work 0 needs --ns-per-it-px 0")

    def counts(r):
        """(step work, refinement pixels, launches) of a row: its own (--dis) or LK's (every level, each step)."""
        if "launches" in r:
            return r["steps"] * r["work_px"], r.get("refine_px", 0.0), r["launches"]
        return r["steps"] * r["level_px"], 0.0, r["steps"] * r["levels"]

    A, b = [], []
    for r in rows:
        meas = r["ms"] * 1e6  # ns
        px0 = r["w"] * r["h"]
        steps_work, refine_px, launches = counts(r)
        work = steps_work + (0.0 if fit_ref else a.refine_work * refine_px)
        known = 0.0 if fit_ns else a.ns_per_it_px * work
        # unknowns: frame_ns_per_px[, level_us][, launch_us] (us terms in ns: x 1e3)[, ns_per_it_px][, ns_ref][, frame_us]
        row = ([px0 / meas] + ([] if a.no_level else [r["levels"] * 1e3 / meas])
               + ([] if a.no_launch else [launches * 1e3 / meas]))
        if fit_ns:
            row.append(work / meas)
        if fit_ref:
            row.append(refine_px / meas)
        A.append(row if a.no_frame_us else row + [1e3 / meas])
        b.append((meas - known) / meas)
    x = lstsq(A, b)
    if a.no_level:
        x = x[:1] + [0.0] + x[1:]
    if a.no_launch:
        x = x[:2] + [0.0] + x[2:]
    fns, level_us, launch_us = x[:3]
    ns = x[3] if fit_ns else a.ns_per_it_px
    refine_work = x[4] / ns if fit_ref else a.refine_work
    frame_us = 0.0 if a.no_frame_us else x[-1]
    held = [n for n, h in (("frame_us", a.no_frame_us), ("level_us", a.no_level), ("launch_us", a.no_launch)) if h]
    if title:
        print(title)
    print("frame_us=%.2f frame_ns_per_px=%.4f level_us=%.2f launch_us=%.2f ns_per_it_px=%.5f (%s%s)%s"
          % (frame_us, fns, level_us, launch_us, ns, "fitted" if fit_ns else "held",
             (", %s 0" % ", ".join(held)) if held else "",
             "" if not any("refine_px" in r for r in rows)
             else " refine_work=%.3f (%s)" % (refine_work, "fitted" if fit_ref else "held")))
    worst = 0.0
    for r in rows:
        steps_work, refine_px, launches = counts(r)
        model = (frame_us * 1e3 + fns * r["w"] * r["h"] + r["levels"] * level_us * 1e3
                 + ns * (steps_work + refine_work * refine_px) + launches * launch_us * 1e3) * 1e-6
        err = model / r["ms"] - 1.0
        worst = max(worst, abs(err))
        print("  %4dx%-4d %-9s levels %d steps %3d: measured %8.3f ms, model %8.3f ms (%+5.1f%%)"
              % (r["w"], r["h"], r.get("preset", ""), r["levels"], r["steps"], r["ms"], model, 100 * err))
    print("worst relative error %.1f%% over %d frames" % (100 * worst, len(rows)))
    return ns, fns, worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json")
    ap.add_argument("--precision", default="f32")
    ap.add_argument("--ns-per-it-px", type=float, required=True)
    ap.add_argument("--no-frame-us", action="store_true")
    ap.add_argument("--no-launch", action="store_true", help="hold launch_us at 0 (a CPU row: no launches)")
    ap.add_argument("--no-level", action="store_true", help="hold level_us at 0 (a CPU row: no level term)")
    ap.add_argument("--section", default="model", help="the rows fitted: model (the GPU's), cpu (--dis: the CPU paths)")
    ap.add_argument("--variant", default=None,
                    help="fit only the rows of this variant (--section cpu: ref, the reference path, or neon, the "
                         "NEON kernels); default: each variant present, separately")
    ap.add_argument("--refine-work", type=float, default=1.3,
                    help="--dis rows: refinement step-equivalents per pixel and fixed-point iteration (0: fitted)")
    a = ap.parse_args()
    rows = [r for r in json.load(open(a.json))["rows"]
            if r["section"] == a.section and r["precision"] == a.precision and r["ok"]]
    order = {"ref": 0, "neon": 1}
    variants = sorted({r.get("variant", "") for r in rows}, key=lambda v: (order.get(v, 2), v))
    if a.variant is not None:
        variants = [a.variant]
    if not variants:
        raise SystemExit("fewer than 4 %s rows of precision %s" % (a.section, a.precision))
    results = []
    for v in variants:
        vrows = [r for r in rows if r.get("variant", "") == v]
        if len(vrows) < 4:
            raise SystemExit("fewer than 4 %s rows of precision %s%s" % (a.section, a.precision,
                                                                        " and variant %s" % v if v else ""))
        title = "variant %s (%d frames):" % (v, len(vrows)) if len(variants) > 1 or a.variant is not None else ""
        if len(results):
            print()
        results.append((v,) + fit(vrows, a, title))
    if len(results) > 1:
        print("\nsummary:")
        for v, ns, fns, worst in results:
            print("  %-6s ns_per_it_px=%.4f frame_ns_per_px=%.4f worst relative error %.1f%%"
                  % (v, ns, fns, 100 * worst))
        byv = {v: (ns, fns) for v, ns, fns, _ in results}
        if a.section == "cpu" and "ref" in byv and "neon" in byv:
            print("  <path kind=\"cpu\"> of a build with NEON: ns_per_it_px=\"%.3g\" frame_ns_per_px=\"%.3g\" "
                  "ref_ns_per_it_px=\"%.3g\" ref_frame_ns_per_px=\"%.3g\""
                  % (byv["neon"][0], byv["neon"][1], byv["ref"][0], byv["ref"][1]))


if __name__ == "__main__":
    main()
