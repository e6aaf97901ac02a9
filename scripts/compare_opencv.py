#!/usr/bin/python3
"""Accuracy and speed of oflow's reference TV-L1 against OpenCV's CPU DualTVL1OpticalFlow.

Both run on the same 8-bit frames (written by `oflow-cli --synth CASE --save-frames`), with the
same schedule: pyramid levels, factor 0.5, warps, inner iterations, one outer iteration, no
median filter, same tau/lambda/theta and epsilon. OpenCV is used only here, never by the build.
oflow runs with --robust none --median 0 there, the plain TV-L1 that OpenCV runs.

--exposure: instead, the exposure grid. Frame 1 of fine-texture (fine texture), smooth-field
and camera-motion (--exposure-size, default 320x240) gets a gain, an offset and Gaussian noise
(oflow-cli --synth CASE --exposure G,O,S --save-frames); on those PNGs run oflow-cli with its
default settings (local-norm, median 5, min_texture; --oflow-flags adds flags), oflow-cli
"before" (--before-flags, default --robust none --median 0 --min-texture 0: the pipeline before
the exposure work), and OpenCV's DualTVL1 with the same warps, iterations, epsilon and the
size rule's levels (median filter off unless --median N, which oflow's default run then uses
too). "no change" is oflow's default run on the same pair without the exposure change: the
default run should stay within 2x of it. --quick runs a subset of the grid, --cases filters the
cases, --jobs N runs N grid points at a time.

Needs Debian's python3-opencv (cv2 with the contrib optflow module) and numpy.
--sor-anchor: an external timing anchor for oflow's red-black SOR: one SOR iteration per pixel
of OpenCV's VariationalRefinement (also red-black SOR on split planes; timed as the difference of
two SOR counts) against oflow's (oflow-bench --cpu), 1 thread each, same size. sor_anchor()'s
docstring says what each iteration computes per pixel and how the work differs.

Usage: scripts/compare_opencv.py --sor-anchor [--size 640x480] [--repeat 5]
           [--bench build/host/samples/bench/oflow-bench | --bench-json FILE]
       scripts/compare_opencv.py --cli build/host/samples/oflow-cli [--size 640x480] [--threads 1]
       scripts/compare_opencv.py --cli build/host/samples/oflow-cli --exposure [--quick]
           [--cases fine-texture,camera-motion] [--jobs 2] [--median 5] [--oflow-flags "..."]
"""
import argparse
import concurrent.futures
import itertools
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("compare_opencv: needs Debian's python3-opencv (run with /usr/bin/python3)")

CASES = ["translation", "rotation-zoom", "smooth-field", "occlusion", "noise-gain"]
# The exposure grid: case -> extra flags for --synth (fine-texture samples the fine texture).
EXPOSURE_CASES = {"fine-texture": ["--texture", "fine"], "smooth-field": [], "camera-motion": []}
GAINS = [0.8, 0.9, 0.98, 1.02, 1.1, 1.25]
OFFSETS = [-20, 0, 20]
SIGMAS = [0, 3]
QUICK_GAINS, QUICK_OFFSETS, QUICK_SIGMAS = [0.8, 1.1], [-20, 20], [3]


def read_flo(path):
    with open(path, "rb") as f:
        tag = np.frombuffer(f.read(4), "<f4")[0]
        if abs(tag - 202021.25) > 1e-3:
            raise ValueError(path + ": not a .flo file")
        w, h = np.frombuffer(f.read(8), "<i4")
        data = np.frombuffer(f.read(), "<f4").reshape(h, w, 2)
    return data


def epe_aae(flow, gt):
    valid = np.all(np.abs(gt) < 1e9, axis=2)
    d = flow - gt
    epe = np.sqrt((d ** 2).sum(axis=2))[valid].mean()
    num = 1.0 + (flow * gt).sum(axis=2)
    den = np.sqrt(1.0 + (flow ** 2).sum(axis=2)) * np.sqrt(1.0 + (gt ** 2).sum(axis=2))
    aae = np.degrees(np.arccos(np.clip(num / den, -1.0, 1.0)))[valid].mean()
    return float(epe), float(aae)


def auto_levels(w, h, factor=0.5):
    levels, cw, ch = 1, w, h
    while levels < 16:
        nw, nh = int(cw * factor + 0.5), int(ch * factor + 0.5)
        if nw < 16 or nh < 16:
            break
        cw, ch, levels = nw, nh, levels + 1
    return levels


class CliError(Exception):
    pass


def run_cli(cli, args):
    p = subprocess.run([cli] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise CliError("oflow-cli failed: " + " ".join(args) + ": " + p.stderr.strip())
    return p.stdout


def make_opencv(tau, lam, theta, levels, warps, iters, epsilon, median):
    # Setters, not keywords: the binding's keyword is misspelt ("innnerIterations").
    o = cv2.optflow.DualTVL1OpticalFlow_create()
    o.setTau(tau)
    o.setLambda(lam)
    o.setTheta(theta)
    o.setScalesNumber(levels)
    o.setWarpingsNumber(warps)
    o.setEpsilon(max(epsilon, 1e-12))
    o.setInnerIterations(iters)
    o.setOuterIterations(1)
    o.setScaleStep(0.5)
    o.setGamma(0.0)
    o.setMedianFiltering(median)  # 1 = off
    o.setUseInitialFlow(False)
    return o


def exposure_grid(a, tmp):
    """The exposure table: oflow default, oflow before, OpenCV, and the no-change EPE."""
    cases = list(EXPOSURE_CASES)
    if a.cases:
        cases = [c for c in a.cases.split(",") if c]
        bad = [c for c in cases if c not in EXPOSURE_CASES]
        if bad:
            sys.exit(f"compare_opencv: --cases {','.join(bad)}: the exposure grid has "
                     f"{', '.join(EXPOSURE_CASES)}")
    gains, offsets, sigmas = ((QUICK_GAINS, QUICK_OFFSETS, QUICK_SIGMAS) if a.quick
                              else (GAINS, OFFSETS, SIGMAS))
    w, h = (int(v) for v in a.exposure_size.split("x"))
    levels = auto_levels(w, h)
    schedule = ["--warps", str(a.warps), "--iters", str(a.iters), "--epsilon", str(a.epsilon),
                "--threads", str(a.threads), "--backend", a.backend, "--json"]
    default_flags = shlex.split(a.oflow_flags) + (["--median", str(a.median)] if a.median else [])
    before_flags = shlex.split(a.before_flags)

    def point(case, gain, offset, sigma):
        prefix = os.path.join(tmp, f"{case}_g{gain}_o{offset}_s{sigma}_f")
        run_cli(a.cli, ["--synth", case, "--size", a.exposure_size, "--seed", str(a.seed),
                        "--exposure", f"{gain},{offset},{sigma}", "--save-frames", prefix,
                        "--levels", "1", "--warps", "1", "--iters", "1"]
                + EXPOSURE_CASES[case])
        f0, f1, gtp = prefix + "0.png", prefix + "1.png", prefix + "_gt.flo"
        ours = json.loads(run_cli(a.cli, [f0, f1, "--gt", gtp] + schedule + default_flags))
        before = json.loads(run_cli(a.cli, [f0, f1, "--gt", gtp] + schedule + before_flags))
        i0 = cv2.imread(f0, cv2.IMREAD_GRAYSCALE)
        i1 = cv2.imread(f1, cv2.IMREAD_GRAYSCALE)
        cv = make_opencv(0.25, 0.15, 0.3, levels, a.warps, a.iters, a.epsilon,
                         a.median if a.median else 1).calc(i0, i1, None)
        theirs = epe_aae(cv, read_flo(gtp))[0]
        for p in (f0, f1, gtp):
            os.remove(p)
        return {"epe": ours["epe"], "before": before["epe"], "opencv": theirs,
                "coarsest": ours.get("coarsest"), "robust": ours.get("robust"),
                "median": ours.get("median")}

    # The baselines: no change at all, and the noise alone (gain 1, offset 0, sigma > 0).
    base = [(c, 1.0, 0, s) for c in cases for s in sorted(set([0] + list(sigmas)))]
    tasks = list(base)
    tasks += [(c, g, o, s) for c in cases for g, o, s in itertools.product(gains, offsets, sigmas)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {t: pool.submit(point, *t) for t in tasks}
        try:
            results = {t: f.result() for t, f in futures.items()}
        except CliError as e:
            for f in futures.values():
                f.cancel()
            sys.exit(str(e))

    first = results[tasks[0]]
    print(f"Exposure grid at {w}x{h}, seed {a.seed}: warps {a.warps}, iterations {a.iters}, "
          f"epsilon {a.epsilon}, backend {a.backend}; frame 1 = gain * I + offset + N(0, sigma), "
          f"8-bit PNGs")
    print(f"oflow default: robust {first['robust']}, median {first['median']}, automatic levels "
          f"(min_texture){' + ' + ' '.join(default_flags) if default_flags else ''}; "
          f"before: {' '.join(before_flags)}; OpenCV DualTVL1: {levels} levels (size rule), "
          f"median filter {a.median if a.median else 'off'}; "
          f"no change: oflow default on the same pair without the exposure change (noise-only: "
          f"gain 1, offset 0, the row's sigma)")
    print("| case | gain | offset | sigma | oflow EPE | oflow before EPE | OpenCV EPE | "
          "no-change EPE | oflow / no-change | noise-only EPE | oflow levels |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    worst, worst_noise = 0.0, 0.0
    for t in tasks[len(base):]:
        r, b0, bn = results[t], results[(t[0], 1.0, 0, 0)], results[(t[0], 1.0, 0, t[3])]
        ratio = r["epe"] / b0["epe"] if b0["epe"] > 0 else float("inf")
        worst = max(worst, ratio)
        worst_noise = max(worst_noise, r["epe"] / bn["epe"] if bn["epe"] > 0 else float("inf"))
        print(f"| {t[0]} | {t[1]:g} | {t[2]:g} | {t[3]:g} | {r['epe']:.3f} | {r['before']:.3f} | "
              f"{r['opencv']:.3f} | {b0['epe']:.3f} | {ratio:.2f} | {bn['epe']:.3f} | "
              f"{r['coarsest'] + 1} |")
    print(f"\nWorst oflow / no-change ratio: {worst:.2f} ({'within' if worst <= 2.0 else 'ABOVE'} 2x); "
          f"against the noise-only EPE of the same sigma: {worst_noise:.2f}")


def sor_anchor(a, tmp):
    """One red-black SOR iteration per pixel: oflow's against OpenCV's VariationalRefinement.

    Both are red-black SOR over a layout split by colour, two colours ((x + y) even: red), one
    iteration being a red and then a black half-sweep over the whole frame, here on one thread
    at the same size. What one iteration computes per pixel differs:

    OpenCV (cv2.VariationalRefinement, modules/video/src/variational_refinement.cpp,
    RedBlackSOR_ParBody; the EpicFlow refinement): once per fixed-point iteration it builds the
    linear system of a robust energy (brightness + gradient constancy data terms, a smoothness
    term with one weight per pixel, recomputed from the flow) into split planes a11, a12, a22,
    b1, b2 and the weights; every SOR iteration then reads those only. Per pixel of a colour:
      sigma_u = w_left du_left + w du_right + w_up du_up + w du_down  (the 4 direct neighbours,
                all of the other colour; w_left, w_up are those neighbours' weights), same for v;
      du += omega ((sigma_u + b1 - a12 dv) / a11 - du);
      dv += omega ((sigma_v + b2 - a12 du) / a22 - dv)   (with the du just updated);
    in place (Gauss-Seidel inside the pixel too), no convergence sum, no early stop. 28 FLOPs
    (14 for the two weighted sums, 7 per update with 1 division each); streamed per pixel: this colour's
    a11 a12 a22 b1 b2 w du dv read, du dv written, the other colour's w du dv read: 13 floats,
    52 B. Vectorised with OpenCV's universal intrinsics (4 floats: SSE2 on x86-64, NEON on ARM),
    borders by replicated padding columns of the split planes (no branches).

    oflow (core/hs_kernels.hpp, sor_half_sweep; the row `red-black sor (red + black)` of
    `oflow-bench --cpu`): CLG's pointwise-coupled update with the 9-point local mean
    (1/6 of the 4 direct neighbours, 1/12 of the 4 diagonal ones: 8 neighbours, the diagonal
    ones of this colour read from before the half-sweep), the 2x2 system [j11 + a2, j12; j12,
    j22 + a2] solved by Cramer's rule from the 5 tensor channels (2 divisions), the
    over-relaxation from the old value into a separate output plane, and the change sum in
    double that the driver's epsilon test uses. 47 FLOPs; streamed per pixel: this colour's old
    u v and 5 channels read, u v written, the other colour's u v read: 11 floats, 44 B.

    So oflow's iteration does about 1.7x the arithmetic on 0.85x the bytes, with twice the
    neighbours and a true 2x2 solve where OpenCV does two scalar Gauss-Seidel steps; the anchor
    says whether oflow's SOR is in the same class per iteration, not which energy converges
    faster per iteration (docs/accuracy.md section 9 measures that on oflow's side).

    Method. OpenCV's per-iteration cost is isolated from its fixed cost (derivatives, the
    system, warping, split/merge) by the difference of two SOR counts at one fixed-point
    iteration: (t(n_hi) - t(n_lo)) / (n_hi - n_lo) / pixels, each t the median of --repeat
    calls (the two counts alternate), cv2.setNumThreads(1). oflow's figure is the SOR row of
    `oflow-bench --cpu --no-frames --size WxH --threads 1 --json` (its kernels run on one thread in any
    case), or of --bench-json FILE written by such a run, for every CPU path it timed.
    """
    w, h = (int(v) for v in a.size.split("x"))
    cv2.setNumThreads(1)
    rng = np.random.default_rng(7)
    base = rng.integers(0, 256, size=(h + 8, w + 8)).astype(np.float32)
    base = cv2.GaussianBlur(base, (0, 0), 1.5)
    base = np.clip(128 + 3 * (base - 128), 0, 255)
    i0 = base[4:h + 4, 4:w + 4].astype(np.uint8)
    i1 = base[4:h + 4, 5:w + 5].astype(np.uint8)  # moved one pixel to the left

    n_lo, n_hi = 5, 105
    refine = {}
    for n in (n_lo, n_hi):
        vr = cv2.VariationalRefinement_create()
        vr.setFixedPointIterations(1)
        vr.setSorIterations(n)
        refine[n] = vr
    times = {n_lo: [], n_hi: []}
    for r in range(a.repeat + 1):
        for n in (n_lo, n_hi):
            flow = np.zeros((h, w, 2), np.float32)
            t0 = time.perf_counter()
            refine[n].calc(i0, i1, flow)
            if r > 0:  # the first round warms up
                times[n].append(time.perf_counter() - t0)
    t_lo, t_hi = float(np.median(times[n_lo])), float(np.median(times[n_hi]))
    cv_ns = (t_hi - t_lo) / (n_hi - n_lo) / (w * h) * 1e9

    if a.bench_json:
        with open(a.bench_json) as f:
            bench = json.load(f)
    else:
        out = os.path.join(tmp, "bench.json")
        subprocess.run([a.bench, "--cpu", "--no-frames", "--size", f"{w}x{h}", "--threads", "1", "--json", out],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            bench = json.load(f)
    if (bench["width"], bench["height"]) != (w, h):
        sys.exit(f"compare_opencv: the bench ran {bench['width']}x{bench['height']}, not {w}x{h}")
    print(f"SOR anchor, {w}x{h}, 1 thread, ns per pixel per SOR iteration (red + black half-sweep)")
    print(f"  OpenCV {cv2.__version__} VariationalRefinement: {cv_ns:6.2f}   "
          f"(1 fixed-point iteration: {t_lo * 1e3:.1f} ms with {n_lo} SOR iterations, "
          f"{t_hi * 1e3:.1f} ms with {n_hi}; median of {a.repeat})")
    for p in bench["paths"]:
        row = [k for k in p["kernels"] if k["name"].startswith("red-black sor")][0]
        of_ns = row["ns_per_px_it"]
        print(f"  oflow {p['path']:<9} sor_half_sweep x 2:    {of_ns:6.2f}   "
              f"OpenCV / oflow {cv_ns / of_ns:.2f}x (oflow {of_ns / cv_ns:.1f}x OpenCV's time)")
    print(f"  per pixel: OpenCV 28 FLOPs, 52 B streamed; oflow {row['flops_per_px_it']:.0f} FLOPs, "
          f"{row['bytes_per_px_it']:.0f} B (this function's docstring)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=None, help="oflow-cli (every mode but --sor-anchor)")
    ap.add_argument("--sor-anchor", action="store_true",
                    help="time one red-black SOR iteration per pixel against cv2.VariationalRefinement")
    ap.add_argument("--bench", default="build/host/samples/bench/oflow-bench", help="oflow-bench (--sor-anchor)")
    ap.add_argument("--bench-json", default=None,
                    help="--sor-anchor: read oflow's side from this `oflow-bench --cpu --json` output "
                         "(1 thread, same --size) instead of running the bench")
    ap.add_argument("--size", default="640x480", help="accuracy frames")
    ap.add_argument("--time-sizes", default="640x480,1280x720")
    ap.add_argument("--warps", type=int, default=5)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--epsilon", type=float, default=0.01)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cases", default="", help="comma-separated subset of the cases")
    ap.add_argument("--exposure", action="store_true",
                    help="run the exposure grid instead of the accuracy and time tables")
    ap.add_argument("--exposure-size", default="320x240")
    ap.add_argument("--quick", action="store_true",
                    help="exposure grid subset: gains 0.8 1.1, offsets -20 20, sigma 3")
    ap.add_argument("--jobs", type=int, default=1, help="exposure grid points run at a time")
    ap.add_argument("--seed", type=int, default=1, help="exposure grid texture seed")
    ap.add_argument("--backend", default="reference", help="oflow-cli --backend (exposure grid)")
    ap.add_argument("--median", type=int, choices=[3, 5], default=None,
                    help="exposure grid: OpenCV's median filter size, and oflow's default run's")
    ap.add_argument("--oflow-flags", default="",
                    help="exposure grid: extra oflow-cli flags for the default run")
    ap.add_argument("--before-flags", default="--robust none --median 0 --min-texture 0",
                    help="exposure grid: oflow-cli flags of the 'before' run")
    a = ap.parse_args()
    cv2.setNumThreads(a.threads)
    tmp = tempfile.mkdtemp(prefix="oflow-cmp-")
    if a.sor_anchor:
        sor_anchor(a, tmp)
        return
    if not a.cli:
        sys.exit("compare_opencv: --cli is required (except with --sor-anchor)")
    if a.exposure:
        exposure_grid(a, tmp)
        return
    cases = CASES
    if a.cases:
        cases = [c for c in a.cases.split(",") if c]
        known = CASES + [c for c in EXPOSURE_CASES if c not in CASES]
        bad = [c for c in cases if c not in known]
        if bad:
            sys.exit(f"compare_opencv: unknown --cases {','.join(bad)}: {', '.join(known)}")

    def opencv(levels, epsilon):
        return make_opencv(0.25, 0.15, 0.3, levels, a.warps, a.iters, epsilon, 1)

    def ours_args(levels, epsilon, repeat):
        return ["--levels", str(levels), "--scale", "0.5", "--warps", str(a.warps),
                "--iters", str(a.iters), "--epsilon", str(epsilon), "--threads", str(a.threads),
                "--backend", "reference", "--repeat", str(repeat), "--json",
                "--robust", "none", "--median", "0"]

    w, h = (int(v) for v in a.size.split("x"))
    levels = auto_levels(w, h)
    print(f"Accuracy at {w}x{h}: levels {levels}, factor 0.5, warps {a.warps}, "
          f"iterations {a.iters}, epsilon {a.epsilon}, 1 outer iteration, no median filter")
    print("| case | oflow EPE | OpenCV EPE | oflow AAE | OpenCV AAE |")
    print("|---|---|---|---|---|")
    sums = np.zeros(4)
    for case in cases:
        prefix = os.path.join(tmp, case)
        run_cli(a.cli, ["--synth", case, "--size", a.size, "--save-frames", prefix,
                        "--levels", "1", "--warps", "1", "--iters", "1", "-o", prefix + "_x.flo"])
        f0, f1, gtp = prefix + "0.png", prefix + "1.png", prefix + "_gt.flo"
        gt = read_flo(gtp)
        out = json.loads(run_cli(a.cli, [f0, f1, "-o", prefix + "_oflow.flo", "--gt", gtp]
                                 + ours_args(levels, a.epsilon, 1)))
        ours = epe_aae(read_flo(prefix + "_oflow.flo"), gt)
        i0 = cv2.imread(f0, cv2.IMREAD_GRAYSCALE)
        i1 = cv2.imread(f1, cv2.IMREAD_GRAYSCALE)
        theirs = epe_aae(opencv(levels, a.epsilon).calc(i0, i1, None), gt)
        assert abs(out["epe"] - ours[0]) < 1e-3, "oflow-cli's EPE disagrees with this script's"
        sums += [ours[0], theirs[0], ours[1], theirs[1]]
        print(f"| {case} | {ours[0]:.3f} | {theirs[0]:.3f} | {ours[1]:.2f} | {theirs[1]:.2f} |")
    n = len(cases)
    print(f"| **mean** | **{sums[0]/n:.3f}** | **{sums[1]/n:.3f}** | **{sums[2]/n:.2f}** | "
          f"**{sums[3]/n:.2f}** |")
    print()
    print(f"Time per frame (median of {a.repeat}), {a.threads} thread(s), all iterations run "
          f"(epsilon 0), levels automatic, warps {a.warps}, iterations {a.iters}")
    print("| size | levels | oflow ref ms | OpenCV ms | OpenCV / oflow |")
    print("|---|---|---|---|---|")
    for size in a.time_sizes.split(","):
        tw, th = (int(v) for v in size.split("x"))
        lv = auto_levels(tw, th)
        prefix = os.path.join(tmp, "t" + size)
        run_cli(a.cli, ["--synth", "smooth-field", "--size", size, "--save-frames", prefix,
                        "--levels", "1", "--warps", "1", "--iters", "1", "-o", prefix + "_x.flo"])
        out = json.loads(run_cli(a.cli, [prefix + "0.png", prefix + "1.png", "-o", prefix + "_o.flo"]
                                 + ours_args(lv, 0.0, a.repeat)))
        i0 = cv2.imread(prefix + "0.png", cv2.IMREAD_GRAYSCALE)
        i1 = cv2.imread(prefix + "1.png", cv2.IMREAD_GRAYSCALE)
        o = opencv(lv, 0.0)
        times = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            o.calc(i0, i1, None)
            times.append((time.perf_counter() - t0) * 1e3)
        cv_ms = float(np.median(times))
        print(f"| {size} | {lv} | {out['ms']:.1f} | {cv_ms:.1f} | {cv_ms / out['ms']:.2f} |")


if __name__ == "__main__":
    try:
        main()
    except CliError as e:
        sys.exit(str(e))
