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

--lk: dense pyramidal Lucas-Kanade against OpenCV's calcOpticalFlowPyrLK tracking every pixel:
flow agreement, EPE, validity, the regions where the two disagree and why, and the time of both
at 1 thread. lk_peer()'s docstring has the settings, the minEigThreshold conversion and the
method.

--matrix: OpenCV's figures for the motion x photometry accuracy matrix (core/synth_matrix.hpp):
matrix_frames (tests/tools) writes every cell's frames at its native size, OpenCV's DualTVL1
runs on each with oflow's TV-L1 default schedule, and the EPE of every cell goes to a TSV
(--matrix-out). opencv_matrix()'s docstring has the settings.

--photos: OpenCV's figures for the photograph set (tests/photo_cells.hpp, tests/photo_set.cpp):
photo_frames (tests/tools) writes every cell's 8-bit frames and exact flow, OpenCV's DualTVL1 runs
on each pair with oflow's TV-L1 default schedule (as --matrix) and DISOpticalFlow with its presets
medium, fast and ultrafast, and each cell's EPE goes to a TSV (--photos-out). opencv_photos()'s
docstring has the settings.

--dis: Dense Inverse Search against OpenCV's cv2.DISOpticalFlow (CPU), for each preset
(ultrafast, fast, medium; --dis-presets filters): the EPE of both on every cell of the motion x
photometry matrix (matrix_frames' frames rounded to 8 bits, the same PNGs for both), the mean
and the worst cell ratio (targets: mean <= OpenCV's, no cell above 1.15x), and the time at one
thread at --dis-time-sizes (640x480, 1280x720, 1920x1080; target oflow <= 1.25x OpenCV) with
oflow's 2-thread speed-up and the machine's load. A table per preset on stdout (progress on
stderr), --dis-out FILE the same as TSV (or JSON). dis_peer()'s docstring has the method.

Usage: scripts/compare_opencv.py --matrix [--matrix-out tests/data/opencv_matrix.tsv]
           [--frames-tool build/host/tests/matrix_frames] [--jobs 2] [--seed 1]
       scripts/compare_opencv.py --photos [--photos-out tests/data/opencv_photo.tsv]
           [--photo-frames-tool build/host/tests/photo_frames] [--photo-cells all] [--jobs 2]
           [--photo-dirs DIR,DIR]
       scripts/compare_opencv.py --cli build/host/samples/oflow-cli --lk
           [--lk-sizes 160x120,320x240] [--window 11] [--min-eigen 1] [--lk-iters 10]
           [--epsilon 0.01] [--levels 0] [--lk-raised-iters 50] [--repeat 5] [--cases ...]
       scripts/compare_opencv.py --sor-anchor [--size 640x480] [--repeat 5]
           [--bench build/host/samples/bench/oflow-bench | --bench-json FILE]
       scripts/compare_opencv.py --cli build/host/samples/oflow-cli [--size 640x480] [--threads 1]
       scripts/compare_opencv.py --cli build/host/samples/oflow-cli --exposure [--quick]
           [--cases fine-texture,camera-motion] [--jobs 2] [--median 5] [--oflow-flags "..."]
       scripts/compare_opencv.py --cli build/host/samples/oflow-cli --dis
           [--frames-tool build/host/tests/matrix_frames] [--jobs 2] [--repeat 5] [--quick]
           [--dis-presets ultrafast,fast,medium] [--dis-time-sizes 640x480,1280x720,1920x1080]
           [--dis-out FILE.tsv|FILE.json] [--dis-dir DIR] [--seed 1]
           [--dis-idle-wait 120 [--dis-idle-busy 25]]
"""
import argparse
import concurrent.futures
import datetime
import itertools
import json
import os
import shlex
import shutil
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
# --lk: the seven synthetic cases of `oflow-cli --synth all` (docs/accuracy.md section 11).
LK_CASES = CASES + ["fine-texture", "camera-motion"]
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


# oflow's TV-L1 defaults (of_config_init: core/config_check.cpp), the schedule of --matrix.
MATRIX_SCHEDULE = {"tau": 0.25, "lambda": 0.15, "theta": 0.3, "warps": 5, "iterations": 300,
                   "epsilon": 0.01, "median": 5}


def opencv_matrix(a, tmp):
    """OpenCV's DualTVL1 on every cell of the accuracy matrix: EPE and time per cell, to a TSV.

    Frames: `matrix_frames TMP --seed S` (tests/tools/matrix_frames.cpp): every (motion,
    photometry) cell of core/synth_matrix.hpp at its native size, as raw float32 0..255 and the
    exact flow (u plane, v plane); its cells.tsv lists them.

    OpenCV (cv2.optflow.DualTVL1OpticalFlow, opencv_contrib's modules/optflow/src/tvl1flow.cpp)
    with oflow's TV-L1 defaults: tau 0.25, lambda 0.15, theta 0.3, scale step 0.5, levels from
    auto_levels (coarsest side >= 16 px: the size rule of oflow's automatic count, and OpenCV
    stops at the same side), warps 5, inner iterations 300, outer iterations 1, epsilon 0.01,
    gamma 0, median filtering 5 (oflow's median_size default), no initial flow. The frames go in
    as CV_32F single channel: DualTVL1 accepts CV_8UC1 and CV_32FC1 and scales a CV_32F frame
    by 255 (it expects 0..1), so each frame is passed as I / 255 and OpenCV works on I (up to one
    float rounding): no 8-bit quantisation.

    EPE: the mean endpoint error over all pixels (occluded ones and those whose match leaves the
    frame included). seconds: the wall time of the calc() call alone, cv2.setNumThreads(1), with
    --jobs cells running at a time (threads; the binding releases the GIL).
    """
    jobs = a.jobs
    sched = MATRIX_SCHEDULE
    tool = a.frames_tool
    if not os.path.isfile(tool):
        sys.exit(f"compare_opencv: --frames-tool {tool}: not found (build the matrix_frames target)")
    frames = os.path.join(tmp, "matrix")
    subprocess.run([tool, frames, "--seed", str(a.seed)], check=True)
    cells = []
    with open(os.path.join(frames, "cells.tsv")) as f:
        for line in f:
            if line.startswith("#") or line.startswith("motion\t"):
                continue
            motion, photometry, w, h = line.split("\t")[:4]
            cells.append((motion, photometry, int(w), int(h)))
    cv2.setNumThreads(1)

    def cell(motion, photometry, w, h):
        stem = os.path.join(frames, f"{motion}_{photometry}_")
        i0 = np.fromfile(stem + "0.f32", "<f4").reshape(h, w)
        i1 = np.fromfile(stem + "1.f32", "<f4").reshape(h, w)
        gt = np.fromfile(stem + "gt.f32", "<f4").reshape(2, h, w).transpose(1, 2, 0)
        levels = auto_levels(w, h)
        o = make_opencv(sched["tau"], sched["lambda"], sched["theta"], levels, sched["warps"],
                        sched["iterations"], sched["epsilon"], sched["median"])
        t0 = time.perf_counter()
        flow = o.calc((i0 / np.float32(255)).astype(np.float32),
                      (i1 / np.float32(255)).astype(np.float32), None)
        seconds = time.perf_counter() - t0
        epe = float(np.sqrt(((flow - gt) ** 2).sum(axis=2)).mean())
        print(f"  {motion:<14} {photometry:<11} {w}x{h} levels {levels}: EPE {epe:.4f} ({seconds:.1f} s)",
              flush=True)
        return levels, epe, seconds

    print(f"OpenCV {cv2.__version__} DualTVL1 on {len(cells)} cells, {jobs} at a time", flush=True)
    load0 = os.getloadavg()[0]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(cell, *c) for c in cells]
        results = [f.result() for f in futures]
    shutil.rmtree(frames)  # ~220 MB at the native sizes

    command = " ".join(shlex.quote(v) for v in [os.path.relpath(sys.argv[0])] + sys.argv[1:])
    out = a.matrix_out
    if os.path.dirname(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write(f"# OpenCV's DualTVL1 on the accuracy matrix (core/synth_matrix.hpp, seed {a.seed}): every "
                f"(motion, photometry) cell at its native size; opencv_epe = mean endpoint error over all pixels\n")
        f.write(f"# schedule (oflow's TV-L1 defaults): tau {sched['tau']}, lambda {sched['lambda']}, theta "
                f"{sched['theta']}, scale step 0.5, levels = coarsest side >= 16 px, warps {sched['warps']}, inner "
                f"iterations {sched['iterations']}, outer iterations 1, epsilon {sched['epsilon']}, gamma 0, median "
                f"filtering {sched['median']}\n")
        f.write("# frames: float32 0..255 from matrix_frames, given to OpenCV as CV_32FC1 I / 255 (DualTVL1 scales "
                "CV_32F input by 255): no 8-bit rounding\n")
        f.write(f"# OpenCV {cv2.__version__} (cv2.optflow), 1 thread per cell, {jobs} cells at a time; seconds = "
                f"wall time of calc(); {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}, "
                f"{os.cpu_count()} CPUs, 1-minute load average {load0:.2f} before, {os.getloadavg()[0]:.2f} after "
                f"(the machine is shared: the times are indicative)\n")
        f.write(f"# command: {command}\n")
        f.write("motion\tphotometry\twidth\theight\tlevels\topencv_epe\tseconds\n")
        for (motion, photometry, w, h), (levels, epe, seconds) in zip(cells, results):
            f.write(f"{motion}\t{photometry}\t{w}\t{h}\t{levels}\t{epe:.4f}\t{seconds:.2f}\n")
    print(f"wrote {out}")


# The Debian folders of the photograph set (tests/photo_cells.hpp; tests/CMakeLists.txt finds them).
PHOTO_DIRS = "/usr/lib/python3/dist-packages/skimage/data,/usr/share/doc/opencv-doc/examples/data"


def opencv_photos(a, tmp):
    """OpenCV on every cell of the photograph set: EPE per cell (mean over its pairs), to a TSV.

    Frames: `photo_frames TMP --photo-dir D ... --cells C` (tests/tools/photo_frames.cpp): every
    cell of tests/photo_cells.hpp (photograph x motion x photometric condition, 320x240) as the
    8-bit grey PNGs photo_set hands to of_process, and the exact flow of each consecutive pair
    (.flo); its cells.tsv lists them. A stream cell has 5 pairs, every other cell one.

    DualTVL1 (cv2.optflow.DualTVL1OpticalFlow) with oflow's TV-L1 defaults, as opencv_matrix():
    tau 0.25, lambda 0.15, theta 0.3, scale step 0.5, levels from auto_levels (coarsest side
    >= 16 px), warps 5, inner iterations 300, outer iterations 1, epsilon 0.01, gamma 0, median
    filtering 5, no initial flow; the frames go in as CV_8UC1 (DualTVL1 works on them as 0..255
    floats, as oflow does on OF_PIXEL_U8). cv2.DISOpticalFlow with each preset's own settings
    (PRESET_MEDIUM, oflow's DIS default, and FAST, ULTRAFAST), CV_8UC1 as it requires.

    EPE: the mean endpoint error over all pixels (those whose match leaves the frame included),
    a stream's the mean over its pairs; photo_set's definition. tvl1_seconds: the wall time of
    DualTVL1's calc() calls of the cell, cv2.setNumThreads(1), --jobs cells at a time.
    """
    tool = a.photo_frames_tool
    if not os.path.isfile(tool):
        sys.exit(f"compare_opencv: --photo-frames-tool {tool}: not found (build the photo_frames target)")
    frames = os.path.join(tmp, "photos")
    cmd = [tool, frames, "--cells", a.photo_cells]
    for d in a.photo_dirs.split(","):
        cmd += ["--photo-dir", d]
    subprocess.run(cmd, check=True)
    cells = []
    with open(os.path.join(frames, "cells.tsv")) as f:
        for line in f:
            if line.startswith("#") or line.startswith("photo\t"):
                continue
            photo, motion, photometry, w, h, pairs = line.split("\t")[:6]
            cells.append((photo, motion, photometry, int(w), int(h), int(pairs)))
    cv2.setNumThreads(1)
    sched = MATRIX_SCHEDULE
    presets = {"medium": cv2.DISOPTICAL_FLOW_PRESET_MEDIUM, "fast": cv2.DISOPTICAL_FLOW_PRESET_FAST,
               "ultrafast": cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST}

    def epe(flow, gt):
        return float(np.sqrt(((flow - gt) ** 2).sum(axis=2)).mean())

    def cell(photo, motion, photometry, w, h, pairs):
        stem = os.path.join(frames, f"{photo}_{motion}_{photometry}_")
        levels = auto_levels(w, h)
        tvl1, dis, seconds = [], {p: [] for p in presets}, 0.0
        for k in range(pairs):
            i0 = cv2.imread(f"{stem}{k}.png", cv2.IMREAD_GRAYSCALE)
            i1 = cv2.imread(f"{stem}{k + 1}.png", cv2.IMREAD_GRAYSCALE)
            gt = read_flo(f"{stem}{k}_gt.flo")
            o = make_opencv(sched["tau"], sched["lambda"], sched["theta"], levels, sched["warps"],
                            sched["iterations"], sched["epsilon"], sched["median"])
            t0 = time.perf_counter()
            flow = o.calc(i0, i1, None)
            seconds += time.perf_counter() - t0
            tvl1.append(epe(flow, gt))
            for p, pid in presets.items():
                dis[p].append(epe(cv2.DISOpticalFlow_create(pid).calc(i0, i1, None), gt))
        r = (levels, float(np.mean(tvl1)), {p: float(np.mean(v)) for p, v in dis.items()}, seconds)
        print(f"  {photo:<11} {motion:<7} {photometry:<11} levels {levels}: DualTVL1 {r[1]:.4f}, DIS medium "
              f"{r[2]['medium']:.4f} ({seconds:.1f} s)", flush=True)
        return r

    print(f"OpenCV {cv2.__version__}: DualTVL1 and DIS on {len(cells)} photograph cells, {a.jobs} at a time",
          flush=True)
    load0 = os.getloadavg()[0]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = [pool.submit(cell, *c) for c in cells]
        results = [f.result() for f in futures]
    shutil.rmtree(frames)

    command = " ".join(shlex.quote(v) for v in [os.path.relpath(sys.argv[0])] + sys.argv[1:])
    out = a.photos_out
    if os.path.dirname(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("# OpenCV on the photograph set (tests/photo_cells.hpp, photo_frames --cells "
                f"{a.photo_cells}): every (photo, motion, photometry) cell at 320x240, 8-bit frames; EPE = mean "
                "endpoint error over all pixels, a stream's the mean over its 5 pairs\n")
        f.write(f"# DualTVL1 at oflow's TV-L1 defaults: tau {sched['tau']}, lambda {sched['lambda']}, theta "
                f"{sched['theta']}, scale step 0.5, levels = coarsest side >= 16 px, warps {sched['warps']}, inner "
                f"iterations {sched['iterations']}, outer iterations 1, epsilon {sched['epsilon']}, gamma 0, median "
                f"filtering {sched['median']}; DISOpticalFlow presets medium, fast, ultrafast as OpenCV defines them\n")
        f.write("# frames: the 8-bit PNGs of photo_frames, given to OpenCV as CV_8UC1 (the bits photo_set gives "
                "of_process)\n")
        f.write(f"# OpenCV {cv2.__version__}, 1 thread per cell, {a.jobs} cells at a time; tvl1_seconds = wall time of "
                f"DualTVL1's calc() calls; {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}, "
                f"{os.cpu_count()} CPUs, 1-minute load average {load0:.2f} before, {os.getloadavg()[0]:.2f} after "
                "(the machine is shared: the times are indicative)\n")
        f.write(f"# command: {command}\n")
        f.write("photo\tmotion\tphotometry\twidth\theight\tpairs\tlevels\ttvl1_epe\tdis_medium_epe\tdis_fast_epe\t"
                "dis_ultrafast_epe\ttvl1_seconds\n")
        for (photo, motion, photometry, w, h, pairs), (levels, tvl1, dis, seconds) in zip(cells, results):
            f.write(f"{photo}\t{motion}\t{photometry}\t{w}\t{h}\t{pairs}\t{levels}\t{tvl1:.4f}\t{dis['medium']:.4f}\t"
                    f"{dis['fast']:.4f}\t{dis['ultrafast']:.4f}\t{seconds:.2f}\n")
    print(f"wrote {out}")


def lk_min_eig_threshold(min_eigen):
    """OpenCV's minEigThreshold equivalent to oflow's lk.min_eigen (lk_peer's docstring): / 1024."""
    return min_eigen / 1024.0


def dense_points(w, h):
    """Every pixel of a w x h frame as calcOpticalFlowPyrLK's prevPts (N x 1 x 2 float32, row by row)."""
    ys, xs = np.mgrid[0:h, 0:w]
    return np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float32).reshape(-1, 1, 2)


def opencv_lk(i0, i1, pts, window, levels, iters, epsilon, min_eigen, flags=0):
    """calcOpticalFlowPyrLK on every pixel: (flow h x w x 2, status h x w bool, err h x w)."""
    h, w = i0.shape
    nxt, st, err = cv2.calcOpticalFlowPyrLK(
        i0, i1, pts, None, winSize=(window, window), maxLevel=levels - 1,
        criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, iters, epsilon),
        flags=flags, minEigThreshold=lk_min_eig_threshold(min_eigen))
    return (nxt - pts).reshape(h, w, 2), st.reshape(h, w).astype(bool), err.reshape(h, w)


def oflow_lk(a, f0, f1, gtp, prefix, levels, iters, epsilon, min_eigen=None, repeat=1):
    """oflow-cli's plain LK on the PNG pair: (flow, validity mask as bool, the --json object)."""
    flo, valid = prefix + "_lk.flo", prefix + "_lk_valid.png"
    out = json.loads(run_cli(a.cli, [
        f0, f1, "--gt", gtp, "-o", flo, "--valid", valid, "--algo", "lk", "--window", str(a.window),
        "--min-eigen", repr(a.min_eigen if min_eigen is None else min_eigen), "--iters", str(iters),
        "--epsilon", repr(epsilon), "--levels", str(levels), "--scale", "0.5", "--robust", "none",
        "--presmooth", "0", "--median", "0", "--threads", "1", "--backend", "reference",
        "--repeat", str(repeat), "--json"]))
    if out["coarsest"] != levels - 1:
        raise CliError(f"oflow-cli solved from level {out['coarsest']}, not {levels - 1}")
    return read_flo(flo), cv2.imread(valid, cv2.IMREAD_GRAYSCALE) == 255, out


def lk_regions(gt, r):
    """Disjoint masks of lk_peer()'s docstring, in priority order: out, edge, boundary, interior."""
    h, w = gt.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w]
    mx, my = xs + gt[..., 0], ys + gt[..., 1]
    leaves = ((mx < 0) | (mx > w - 1) | (my < 0) | (my > h - 1)).astype(np.uint8)
    out = cv2.dilate(leaves, np.ones((2 * r + 1, 2 * r + 1), np.uint8),
                     borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    edge = ((xs < r + 1) | (xs > w - 2 - r) | (ys < r + 1) | (ys > h - 2 - r)) & ~out
    jump = np.zeros((h, w), bool)
    jx = np.abs(np.diff(gt, axis=1)).max(axis=2) > 0.5
    jy = np.abs(np.diff(gt, axis=0)).max(axis=2) > 0.5
    jump[:, 1:] |= jx
    jump[:, :-1] |= jx
    jump[1:, :] |= jy
    jump[:-1, :] |= jy
    near = cv2.dilate(jump.astype(np.uint8), np.ones((4 * r + 1, 4 * r + 1), np.uint8),
                      borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    boundary = near & ~out & ~edge
    return {"out": out, "edge": edge, "boundary": boundary, "interior": ~out & ~edge & ~boundary}


def lk_stats(of, ov, cf, cv_valid, gt, regions=None):
    """Agreement (< 0.1 px, where both are valid) and EPE of both, overall and per region."""
    both = ov & cv_valid
    d = np.linalg.norm(of - cf, axis=2)
    eo, ec = np.linalg.norm(of - gt, axis=2), np.linalg.norm(cf - gt, axis=2)

    def on(m):
        m = m & both
        n = int(m.sum())
        if n == 0:
            return {"n": 0, "agree": float("nan"), "epe_of": float("nan"), "epe_cv": float("nan"),
                    "median_d": float("nan")}
        return {"n": n, "agree": 100.0 * float((d[m] < 0.1).mean()), "epe_of": float(eo[m].mean()),
                "epe_cv": float(ec[m].mean()), "median_d": float(np.median(d[m]))}

    s = on(np.ones_like(both))
    s.update(epe_of_all=float(eo.mean()), epe_cv_all=float(ec.mean()),
             valid_of=100.0 * float(ov.mean()), valid_cv=100.0 * float(cv_valid.mean()))
    if regions is not None:
        h, w = both.shape
        ys, xs = np.mgrid[0:h, 0:w]
        odd = (xs % 2 == 1) & (ys % 2 == 1)
        s["regions"] = {k: dict(on(m), share=100.0 * float(m.mean())) for k, m in regions.items()}
        bad = both & regions["interior"] & (d >= 0.1)
        s["interior_bad"] = int(bad.sum())
        s["interior_bad_odd"] = 100.0 * float(odd[bad].mean()) if bad.any() else float("nan")
        s["agree_in_frame"] = on(~regions["out"])["agree"]
        cv_bad = ~cv_valid
        s["cv_invalid_out"] = 100.0 * float(regions["out"][cv_bad].mean()) if cv_bad.any() else float("nan")
    return s


def lk_peer(a, tmp):
    """Dense pyramidal LK: oflow's reference path against OpenCV's calcOpticalFlowPyrLK on every pixel.

    Frames: `oflow-cli --synth CASE --size WxH --save-frames` (8-bit PNGs and the exact ground
    truth) for the seven synthetic cases at each of --lk-sizes. Both read the same PNGs.

    oflow: `--algo lk --window s --min-eigen m --iters n --epsilon e --levels L --scale 0.5
    --robust none --presmooth 0 --median 0 --threads 1 --backend reference`: the plain LK that
    OpenCV runs (its defaults local-norm and presmooth 0.8 would change the frames OpenCV sees;
    the texture rule is off with explicit levels). L = --levels, or 0: oflow's automatic count
    (size rule, coarsest side >= 16: 3 levels at 160x120, 4 at 320x240).

    OpenCV (4.6, modules/video/src/lkpyramid.cpp): every pixel a point, winSize (s, s),
    maxLevel L - 1 (its own pyramid stops where a side would be <= s; checked below with
    buildOpticalFlowPyramid), criteria COUNT|EPS with n and e, cv2.setNumThreads(1).
      - Iterations and epsilon mean the same: OpenCV squares criteria.epsilon and stops a point
        once |delta|^2 <= e^2; oflow stops a pixel once |delta|^2 < e^2. OpenCV also stops when two
        successive steps nearly cancel (|delta + delta_prev| < 0.01 per component, then it moves
        back half a step), which oflow lacks: the --lk-raised-iters run measures what stopping
        does (n raised, e = 0 on both sides; OpenCV caps n at 100).
      - minEigThreshold. oflow: g = Scharr / 32 (grey levels per px: weights 3, 10, 3 over
        32), G = sum over the s x s window of g g^T, valid when lambda_min(G) / s^2 >= m
        (core/lk_kernels.hpp). OpenCV: calcSharrDeriv stores the integer Scharr sums (weights
        3, 10, 3, not divided: 32 g), LKTrackerInvoker sums their products over the window in
        float and scales by FLT_SCALE = 2^-20, so A = 32^2 G / 2^20 = G / 1024, and
        minEig = lambda_min(A) / (winSize.width winSize.height) = (lambda_min(G) / s^2) / 1024.
        So minEigThreshold = m / 1024 (oflow's default 1 -> 9.765625e-4; OpenCV's default
        1e-4 is oflow's 0.1024). The conversion is checked below: at a threshold that rejects
        30 % of translation's interior windows, oflow's validity mask and OpenCV's level-0
        minEig (flag OPTFLOW_LK_GET_MIN_EIGENVALS) against it agree pixel for pixel.
      - Validity: status. It is false where level 0's window fails the threshold (as oflow's
        mask) and also where the tracked point left the frame by more than a window, which
        oflow's mask does not flag (it measures texture only).

    Per case and size: the agreement (share of the pixels valid on both sides whose flows differ
    by < 0.1 px), the EPE of both over those pixels and over every pixel (each side's flow where
    it says invalid included), and the valid shares. Where they disagree, the pixels are split
    into disjoint regions from the ground truth (r = (s - 1) / 2), in this order:
      out:      some pixel q of the window W(p) is matched outside the frame (q + gt(q) leaves
                it): OpenCV samples frame 1's reflect-101 border there (buildOpticalFlowPyramid's
                pyrBorder), oflow sets that residual to 0 (core/lk_kernels.hpp);
      edge:     W(p), with the Scharr's 1 px, crosses the frame edge (matches inside): OpenCV's
                derivatives are 0 outside (a truncated window; its Scharr reflects 101 at the
                edge), oflow's gradient and box sums replicate the edge pixels;
      boundary: within 2r px of a motion discontinuity (neighbouring ground-truth flows differ by
                > 0.5 px), so that W(p) or a neighbour's window straddles two motions: the
                per-point window (OpenCV: the whole window at the centre's flow) and oflow's
                warped-frame window (each neighbour at its own flow) fail differently;
      interior: the rest. The median |difference| there is what the two window forms, the
                fixed-point (OpenCV) against float (oflow) bilinear sampling and the 8-bit
                (pyrDown) against float (Gaussian + bilinear) pyramid leave over. The share of
                the interior disagreements at pixels with x and y odd points at the pyramid:
                OpenCV tracks each point at its own position x / 2^l on level l, so an (odd, odd)
                point sits at (x + 0.5, y + 0.5) on level 1, where the bilinear sampling of its
                template is a 2x2 box filter of that level; oflow solves each level on its grid
                and upsamples the flow.
    Then two variants on the same frames: the raised iterations (stopping) and one level
    (--levels 1 and maxLevel 0: no pyramid; large motions are then lost on both sides, so the
    table also gives the interior EPE).

    Time: oflow-cli's median of --repeat frames (of_process: conversion, pyramids, every level),
    against the median of --repeat calls of calcOpticalFlowPyrLK (pyramids and every point;
    the accuracy run warms it up), 1 thread each, the default run's settings, same frames. The
    timed OpenCV calls pass OPTFLOW_LK_GET_MIN_EIGENVALS: the binding always asks for `err`,
    and without the flag OpenCV spends one more pass over every level-0 window on it (about
    10 % of its time), which oflow does not compute. The load average is printed: the machine
    is shared.
    """
    cases = LK_CASES
    if a.cases:
        cases = [c for c in a.cases.split(",") if c]
        bad = [c for c in cases if c not in LK_CASES]
        if bad:
            sys.exit(f"compare_opencv: --lk: unknown --cases {','.join(bad)}: {', '.join(LK_CASES)}")
    s, r = a.window, (a.window - 1) // 2
    if s < 3 or s > 33 or s % 2 == 0:
        sys.exit(f"compare_opencv: --window {s}: an odd side in 3..33")
    cv2.setNumThreads(1)
    raised = a.lk_raised_iters
    results, frames = {}, {}
    sizes = [v for v in a.lk_sizes.split(",") if v]
    for size in sizes:
        w, h = (int(v) for v in size.split("x"))
        levels = a.levels or auto_levels(w, h)
        cv_max = cv2.buildOpticalFlowPyramid(np.zeros((h, w), np.uint8), (s, s), levels - 1, withDerivatives=False)[0]
        if cv_max != levels - 1:
            sys.exit(f"compare_opencv: OpenCV builds {cv_max + 1} levels at {size} with window {s}, not {levels}")
        pts = dense_points(w, h)
        for case in cases:
            prefix = os.path.join(tmp, f"lk_{case}_{size}")
            run_cli(a.cli, ["--synth", case, "--size", size, "--save-frames", prefix,
                            "--levels", "1", "--warps", "1", "--iters", "1", "-o", prefix + "_x.flo"])
            f0, f1, gtp = prefix + "0.png", prefix + "1.png", prefix + "_gt.flo"
            gt = read_flo(gtp)
            i0 = cv2.imread(f0, cv2.IMREAD_GRAYSCALE)
            i1 = cv2.imread(f1, cv2.IMREAD_GRAYSCALE)
            frames[(case, size)] = (f0, f1, gtp, prefix, i0, i1, pts, levels)
            regions = lk_regions(gt, r)
            of, ov, out = oflow_lk(a, f0, f1, gtp, prefix, levels, a.lk_iters, a.epsilon)
            assert abs(out["epe"] - float(np.linalg.norm(of - gt, axis=2).mean())) < 1e-3, \
                "oflow-cli's EPE disagrees with this script's"
            cf, cvv, _ = opencv_lk(i0, i1, pts, s, levels, a.lk_iters, a.epsilon, a.min_eigen)
            res = {"levels": levels, "default": lk_stats(of, ov, cf, cvv, gt, regions)}
            of, ov, _ = oflow_lk(a, f0, f1, gtp, prefix, levels, raised, 0.0)
            cf, cvv, _ = opencv_lk(i0, i1, pts, s, levels, raised, 0.0, a.min_eigen)
            res["raised"] = lk_stats(of, ov, cf, cvv, gt, regions)
            of, ov, _ = oflow_lk(a, f0, f1, gtp, prefix, 1, a.lk_iters, a.epsilon)
            cf, cvv, _ = opencv_lk(i0, i1, pts, s, 1, a.lk_iters, a.epsilon, a.min_eigen)
            res["one_level"] = lk_stats(of, ov, cf, cvv, gt, regions)
            results[(case, size)] = res

    print(f"Dense LK, oflow reference path against OpenCV {cv2.__version__} calcOpticalFlowPyrLK on "
          f"every pixel; window {s}, min_eigen {a.min_eigen:g} (OpenCV minEigThreshold "
          f"{lk_min_eig_threshold(a.min_eigen):.9g}), {a.lk_iters} steps, epsilon {a.epsilon:g}, "
          f"levels {'automatic (oflow size rule)' if not a.levels else a.levels}, factor 0.5; "
          f"oflow --robust none --presmooth 0 --median 0; 1 thread; seed 1, 8-bit PNGs")

    # The minEigThreshold conversion, on translation's interior windows.
    for size in sizes:
        f0, f1, gtp, prefix, i0, i1, pts, levels = frames[(cases[0], size)]
        _, _, mineig = opencv_lk(i0, i1, pts, s, levels, a.lk_iters, a.epsilon, 0.0,
                                 flags=cv2.OPTFLOW_LK_GET_MIN_EIGENVALS)
        inner = lk_regions(np.zeros(i0.shape + (2,), np.float32), r)["interior"]
        m = 1024.0 * float(np.quantile(mineig[inner], 0.3))
        _, ov, _ = oflow_lk(a, f0, f1, gtp, prefix, levels, a.lk_iters, a.epsilon, min_eigen=m)
        cv_ok = mineig >= np.float32(lk_min_eig_threshold(np.float32(m)))
        print(f"Conversion check, {cases[0]} {size}: min_eigen {m:.6g} (OpenCV {m / 1024:.6g}): "
              f"valid {100 * ov[inner].mean():.2f} % (oflow) / {100 * cv_ok[inner].mean():.2f} % (OpenCV); "
              f"the masks agree on {100 * (ov == cv_ok)[inner].mean():.3f} % of the {int(inner.sum())} "
              f"interior pixels")

    def f3(v):
        return "-" if v != v else f"{v:.3f}"

    def pct(v):
        return "-" if v != v else f"{v:.1f}"

    print("\nAgreement (flows within 0.1 px, where both are valid) and EPE")
    print("| case | size | levels | agree % | agree % outside the out region | oflow EPE (both valid) | "
          "OpenCV EPE (both valid) | oflow EPE all | OpenCV EPE all | oflow valid % | OpenCV valid % | "
          "OpenCV invalid in out % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    met = {"agree": 0, "epe": 0, "time": 0}
    for size in sizes:
        for case in cases:
            res = results[(case, size)]
            d = res["default"]
            met["agree"] += d["agree"] >= 95.0
            met["epe"] += d["epe_of"] <= d["epe_cv"]
            print(f"| {case} | {size} | {res['levels']} | {pct(d['agree'])} | {pct(d['agree_in_frame'])} | "
                  f"{f3(d['epe_of'])} | "
                  f"{f3(d['epe_cv'])} | {f3(d['epe_of_all'])} | {f3(d['epe_cv_all'])} | "
                  f"{pct(d['valid_of'])} | {pct(d['valid_cv'])} | {pct(d['cv_invalid_out'])} |")

    print("\nWhere they disagree: regions (lk_peer's docstring), each as share of the pixels / "
          "agree % / EPE oflow, OpenCV")
    print("| case | size | interior | interior median diff | interior disagreements: n, at (odd, odd) % | "
          "edge | out | boundary |")
    print("|---|---|---|---|---|---|---|---|")
    for size in sizes:
        for case in cases:
            d = results[(case, size)]["default"]
            g = d["regions"]

            def cell(k):
                x = g[k]
                if x["n"] == 0:
                    return f"{x['share']:.1f} / - / -"
                return f"{x['share']:.1f} / {x['agree']:.1f} / {x['epe_of']:.3f}, {x['epe_cv']:.3f}"

            print(f"| {case} | {size} | {cell('interior')} | {f3(g['interior']['median_d'])} | "
                  f"{d['interior_bad']}, {pct(d['interior_bad_odd'])} | {cell('edge')} | {cell('out')} | "
                  f"{cell('boundary')} |")

    print(f"\nStopping and pyramid: agree % (interior agree %) and EPE oflow / OpenCV over the pixels "
          f"both call valid; raised: {raised} steps, epsilon 0 on both sides; one level: --levels 1, "
          f"maxLevel 0 (interior EPE: large motions are lost without the pyramid)")
    print("| case | size | default | raised | raised EPE | one level | one level interior EPE | "
          "default interior EPE |")
    print("|---|---|---|---|---|---|---|---|")
    for size in sizes:
        for case in cases:
            res = results[(case, size)]
            d, q, o = res["default"], res["raised"], res["one_level"]
            di, qi, oi = d["regions"]["interior"], q["regions"]["interior"], o["regions"]["interior"]
            print(f"| {case} | {size} | {pct(d['agree'])} ({pct(di['agree'])}) | {pct(q['agree'])} "
                  f"({pct(qi['agree'])}) | {f3(q['epe_of'])} / {f3(q['epe_cv'])} | {pct(o['agree'])} "
                  f"({pct(oi['agree'])}) | {f3(oi['epe_of'])} / {f3(oi['epe_cv'])} | "
                  f"{f3(di['epe_of'])} / {f3(di['epe_cv'])} |")

    load0 = os.getloadavg()[0]
    rows = []
    for size in sizes:
        for case in cases:
            f0, f1, gtp, prefix, i0, i1, pts, levels = frames[(case, size)]
            _, _, out = oflow_lk(a, f0, f1, gtp, prefix, levels, a.lk_iters, a.epsilon, repeat=a.repeat)
            times = []
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                opencv_lk(i0, i1, pts, s, levels, a.lk_iters, a.epsilon, a.min_eigen,
                          flags=cv2.OPTFLOW_LK_GET_MIN_EIGENVALS)
                times.append((time.perf_counter() - t0) * 1e3)
            rows.append((case, size, levels, out["ms"], out["iterations"], float(np.median(times))))
    print(f"\nTime per frame, 1 thread, median of {a.repeat} (1-minute load average {load0:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after)")
    print("| case | size | levels | oflow ms | oflow Newton steps (all levels) | OpenCV ms | OpenCV / oflow |")
    print("|---|---|---|---|---|---|---|")
    for case, size, levels, of_ms, steps, cv_ms in rows:
        met["time"] += of_ms < cv_ms
        print(f"| {case} | {size} | {levels} | {of_ms:.1f} | {steps} | {cv_ms:.1f} | {cv_ms / of_ms:.1f}x |")
    n = len(sizes) * len(cases)
    print(f"\nTargets over {n} case x size rows: agreement >= 95 % in {met['agree']}; oflow's EPE <= OpenCV's "
          f"(both valid) in {met['epe']}; oflow faster in {met['time']}")


# --dis: Dense Inverse Search against OpenCV's CPU DISOpticalFlow (dis_peer's docstring).
DIS_PRESETS = ["ultrafast", "fast", "medium"]
DIS_TIME_SIZES = "640x480,1280x720,1920x1080"
DIS_EPE_RATIO_MAX = 1.15  # no cell worse than this times OpenCV's EPE
DIS_TIME_RATIO_MAX = 1.25  # oflow 1 thread / OpenCV 1 thread


def write_flo(path, flow):
    h, w = flow.shape[:2]
    with open(path, "wb") as f:
        np.array([202021.25], "<f4").tofile(f)
        np.array([w, h], "<i4").tofile(f)
        flow.astype("<f4").tofile(f)


def cpu_busy(seconds=1.0):
    """The share of all CPUs busy over `seconds` (/proc/stat), while this script does nothing."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + (v[4] if len(v) > 4 else 0)  # total, idle + iowait
    try:
        t0, i0 = sample()
        time.sleep(seconds)
        t1, i1 = sample()
        return 100.0 * (1.0 - (i1 - i0) / max(1, t1 - t0))
    except OSError:
        return float("nan")


def uptime_line():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        la = os.getloadavg()
        return f"load average: {la[0]:.2f}, {la[1]:.2f}, {la[2]:.2f}"


def dis_peer(a, tmp):
    """DIS: oflow's reference path (--algo dis --preset P) against OpenCV's cv2.DISOpticalFlow.

    OpenCV: cv2.DISOpticalFlow_create(PRESET_ULTRAFAST | PRESET_FAST | PRESET_MEDIUM) with the
    preset's own settings (patch size, stride, gradient descent iterations, finest scale,
    variational refinement iterations, mean normalisation and spatial propagation on), CPU,
    8-bit single-channel frames only. oflow: `oflow-cli FRAME0 FRAME1 --algo dis --preset P
    --backend reference` with its defaults otherwise (--robust level-norm), no validity plane
    (--no-validity: the flow is the same either way).

    Accuracy: every cell of the motion x photometry matrix (core/synth_matrix.hpp) at its native
    size, from `matrix_frames DIR --seed S` (tests/tools). Its float32 0..255 frames are rounded
    and clipped to 8 bits and written as PNGs: both sides read the same 8-bit frames. EPE = mean
    endpoint error over all pixels (occluded ones and those whose match leaves the frame
    included), computed here for both flows (oflow's from its -o file, checked against the EPE
    oflow-cli prints). Targets per preset: mean EPE over the cells <= OpenCV's, and no cell
    above 1.15x OpenCV's EPE. --jobs N cells at a time (OpenCV and oflow-cli runs alike).

    Time: one thread each, camera-motion frames (oflow-cli --synth camera-motion --size WxH
    --save-frames, 8-bit PNGs) at each of --dis-time-sizes: OpenCV with cv2.setNumThreads(1),
    one warm-up calc() and then the median of --repeat calls; oflow-cli --threads 1
    --no-validity --repeat N (the median of N of_process calls; the context is created before,
    untimed, as OpenCV's object is). Target: oflow / OpenCV <= 1.25 at 1 thread. oflow's
    --threads 2 speed-up is reported beside. The timing runs after the accuracy part, one
    process at a time; the machine's CPU use by others (a 1 s /proc/stat sample before each
    size, while this script is idle) and the load averages are printed with it: the timings
    are only as good as the machine was idle. --dis-idle-wait S waits up to S seconds before
    each timing block for that share to drop to --dis-idle-busy percent.

    --quick: the cells up to 512x512 with photometry none and gain-noise, and the first time
    size. --dis-out FILE writes the results as TSV (or JSON when FILE ends in .json).
    """
    presets = [p for p in (a.dis_presets.split(",") if a.dis_presets else DIS_PRESETS) if p]
    bad = [p for p in presets if p not in DIS_PRESETS]
    if bad:
        sys.exit(f"compare_opencv: --dis-presets {','.join(bad)}: {', '.join(DIS_PRESETS)}")
    cv_id = {"ultrafast": cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST, "fast": cv2.DISOPTICAL_FLOW_PRESET_FAST,
             "medium": cv2.DISOPTICAL_FLOW_PRESET_MEDIUM}
    if not os.path.isfile(a.frames_tool):
        sys.exit(f"compare_opencv: --frames-tool {a.frames_tool}: not found (build the matrix_frames target)")
    work = a.dis_dir or os.path.join(tmp, "dis")
    frames = os.path.join(work, "matrix")
    os.makedirs(work, exist_ok=True)
    if not os.path.isfile(os.path.join(frames, "cells.tsv")):
        subprocess.run([a.frames_tool, frames, "--seed", str(a.seed)], check=True, stdout=subprocess.DEVNULL)
    cells = []
    with open(os.path.join(frames, "cells.tsv")) as f:
        for line in f:
            if line.startswith("#") or line.startswith("motion\t"):
                continue
            motion, photometry, w, h = line.split("\t")[:4]
            cells.append((motion, photometry, int(w), int(h)))
    time_sizes = a.dis_time_sizes.split(",")
    if a.quick:
        cells = [c for c in cells if c[2] * c[3] <= 512 * 512 and c[1] in ("none", "gain-noise")]
        time_sizes = time_sizes[:1]
    cv2.setNumThreads(1)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    def to_png(motion, photometry, w, h):
        stem = os.path.join(frames, f"{motion}_{photometry}_")
        out = os.path.join(work, f"{motion}_{photometry}")
        if not os.path.isfile(out + "_gt.flo"):
            for i in (0, 1):
                img = np.fromfile(f"{stem}{i}.f32", "<f4").reshape(h, w)
                cv2.imwrite(f"{out}{i}.png", np.clip(np.rint(img), 0, 255).astype(np.uint8))
            gt = np.fromfile(stem + "gt.f32", "<f4").reshape(2, h, w).transpose(1, 2, 0)
            write_flo(out + "_gt.flo", gt)
        return out

    def epe_cell(cell, preset):
        motion, photometry, w, h = cell
        prefix = os.path.join(work, f"{motion}_{photometry}")
        gt = read_flo(prefix + "_gt.flo")
        i0 = cv2.imread(prefix + "0.png", cv2.IMREAD_GRAYSCALE)
        i1 = cv2.imread(prefix + "1.png", cv2.IMREAD_GRAYSCALE)
        cv_epe = epe_aae(cv2.DISOpticalFlow_create(cv_id[preset]).calc(i0, i1, None), gt)[0]
        out_flo = f"{prefix}_{preset}_oflow.flo"
        out = json.loads(run_cli(a.cli, [prefix + "0.png", prefix + "1.png", "--gt", prefix + "_gt.flo",
                                         "--algo", "dis", "--preset", preset, "--backend", "reference",
                                         "--no-validity", "--json", "-o", out_flo]))
        of_epe = epe_aae(read_flo(out_flo), gt)[0]
        os.remove(out_flo)
        assert abs(out["epe"] - of_epe) < 1e-3, "oflow-cli's EPE disagrees with this script's"
        log(f"  {preset:<9} {motion:<14} {photometry:<11} {w}x{h}: OpenCV {cv_epe:.4f}  oflow {of_epe:.4f}")
        return {"preset": preset, "motion": motion, "photometry": photometry, "width": w, "height": h,
                "opencv_epe": cv_epe, "oflow_epe": of_epe, "ratio": of_epe / cv_epe if cv_epe > 0 else float("inf"),
                "oflow_levels": out.get("levels"), "oflow_robust": out.get("robust")}

    log(f"DIS accuracy: {len(cells)} cells x {len(presets)} presets, {a.jobs} at a time")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        list(pool.map(lambda c: to_png(*c), cells))
        futures = [pool.submit(epe_cell, c, p) for p in presets for c in cells]
        try:
            epe_rows = [f.result() for f in futures]
        except CliError as e:
            for f in futures:
                f.cancel()
            sys.exit(str(e))

    # Timing: one process at a time, after the accuracy part.
    time_rows = []
    uptime_before = uptime_line()
    for size in time_sizes:
        prefix = os.path.join(work, f"time_{size}_")
        if not os.path.isfile(prefix + "1.png"):
            run_cli(a.cli, ["--synth", "camera-motion", "--size", size, "--save-frames", prefix,
                            "--algo", "dis", "--preset", "ultrafast", "--no-validity"])
        i0 = cv2.imread(prefix + "0.png", cv2.IMREAD_GRAYSCALE)
        i1 = cv2.imread(prefix + "1.png", cv2.IMREAD_GRAYSCALE)
        for preset in presets:
            busy = cpu_busy()
            deadline = time.monotonic() + a.dis_idle_wait
            while busy > a.dis_idle_busy and time.monotonic() < deadline:  # --dis-idle-wait: wait for quiet
                busy = cpu_busy(2.0)
            load0 = os.getloadavg()[0]
            log(f"  timing {preset} {size} (others' CPU use {busy:.0f} %, load {load0:.2f})")
            d = cv2.DISOpticalFlow_create(cv_id[preset])
            d.calc(i0, i1, None)  # warm-up
            times = []
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                d.calc(i0, i1, None)
                times.append((time.perf_counter() - t0) * 1e3)
            cv_ms = float(np.median(times))
            of_ms = {}
            for threads in (1, 2):
                out = json.loads(run_cli(a.cli, [prefix + "0.png", prefix + "1.png", "--algo", "dis", "--preset",
                                                 preset, "--backend", "reference", "--threads", str(threads),
                                                 "--no-validity", "--repeat", str(a.repeat), "--json"]))
                of_ms[threads] = out["ms"]
            time_rows.append({"preset": preset, "size": size, "opencv_ms": cv_ms, "oflow_ms": of_ms[1],
                              "ratio": of_ms[1] / cv_ms, "oflow_ms_2threads": of_ms[2],
                              "speedup_2threads": of_ms[1] / of_ms[2], "others_cpu_percent": busy,
                              "load1_before": load0, "load1_after": os.getloadavg()[0]})
    uptime_after = uptime_line()

    # The tables.
    def f3(v):
        return "-" if v != v else f"{v:.3f}"

    print(f"DIS peer check: oflow --algo dis (reference backend, its defaults: --robust level-norm) against "
          f"OpenCV {cv2.__version__} cv2.DISOpticalFlow (CPU) with the same preset")
    print(f"Accuracy: the motion x photometry matrix (matrix_frames seed {a.seed}, native sizes), frames rounded "
          f"and clipped to 8 bits, the same PNGs for both; EPE over all pixels")
    print(f"Time: camera-motion frames, median of {a.repeat} calls, oflow-cli --backend reference --no-validity; "
          f"{os.cpu_count()} CPUs")
    print(f"uptime before timing: {uptime_before}")
    print(f"uptime after timing:  {uptime_after}")
    summary = {}
    for preset in presets:
        rows = [r for r in epe_rows if r["preset"] == preset]
        print(f"\n## preset {preset}\n")
        print("| motion | photometry | size | OpenCV EPE | oflow EPE | oflow / OpenCV |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            flag = " **" if r["ratio"] > DIS_EPE_RATIO_MAX else ""
            print(f"| {r['motion']} | {r['photometry']} | {r['width']}x{r['height']} | {f3(r['opencv_epe'])} | "
                  f"{f3(r['oflow_epe'])} | {r['ratio']:.2f}{flag} |")
        cv_mean = float(np.mean([r["opencv_epe"] for r in rows]))
        of_mean = float(np.mean([r["oflow_epe"] for r in rows]))
        worst = max(rows, key=lambda r: r["ratio"])
        above = [r for r in rows if r["ratio"] > DIS_EPE_RATIO_MAX]
        print(f"| **mean ({len(rows)} cells)** | | | **{cv_mean:.3f}** | **{of_mean:.3f}** | **{of_mean / cv_mean:.2f}** |")
        print(f"\nWorst cell ratio: {worst['ratio']:.2f} ({worst['motion']}/{worst['photometry']}); "
              f"best: {min(r['ratio'] for r in rows):.2f}; cells above {DIS_EPE_RATIO_MAX}x: {len(above)}"
              + (" (" + ", ".join(f"{r['motion']}/{r['photometry']} {r['ratio']:.2f}" for r in above) + ")"
                 if above else ""))
        trows = [r for r in time_rows if r["preset"] == preset]
        print(f"\nTime per frame, ms (median of {a.repeat}); others' CPU use: share of the {os.cpu_count()} CPUs "
              f"busy in 1 s just before, this script idle")
        print("| size | OpenCV 1 thread | oflow 1 thread | oflow / OpenCV | oflow 2 threads | oflow speed-up 2 threads "
              "| others' CPU % | load 1 min before / after |")
        print("|---|---|---|---|---|---|---|---|")
        for r in trows:
            flag = " **" if r["ratio"] > DIS_TIME_RATIO_MAX else ""
            print(f"| {r['size']} | {r['opencv_ms']:.1f} | {r['oflow_ms']:.1f} | {r['ratio']:.2f}{flag} | "
                  f"{r['oflow_ms_2threads']:.1f} | {r['speedup_2threads']:.2f}x | {r['others_cpu_percent']:.0f} | "
                  f"{r['load1_before']:.2f} / {r['load1_after']:.2f} |")
        t_above = [r for r in trows if r["ratio"] > DIS_TIME_RATIO_MAX]
        met = {"mean_epe": of_mean <= cv_mean, "worst_cell": not above, "time": bool(trows) and not t_above,
               "threads_pay": bool(trows) and all(r["speedup_2threads"] > 1.0 for r in trows)}
        summary[preset] = {"opencv_mean_epe": cv_mean, "oflow_mean_epe": of_mean, "worst_ratio": worst["ratio"],
                           "worst_cell": f"{worst['motion']}/{worst['photometry']}", "cells_above": len(above),
                           "targets_met": met}

        def yes(ok):
            return "met" if ok else "NOT met"
        print(f"\nTargets, {preset}: mean EPE <= OpenCV's: {yes(met['mean_epe'])} ({of_mean:.3f} vs {cv_mean:.3f}); "
              f"no cell above {DIS_EPE_RATIO_MAX}x: {yes(met['worst_cell'])} (worst {worst['ratio']:.2f}); "
              f"time <= {DIS_TIME_RATIO_MAX}x OpenCV at 1 thread: {yes(met['time'])}"
              + (f" ({', '.join(r['size'] + ' ' + format(r['ratio'], '.2f') for r in t_above)})" if t_above else "")
              + f"; 2 threads faster at every size: {yes(met['threads_pay'])}")

    if a.dis_out:
        if os.path.dirname(a.dis_out):
            os.makedirs(os.path.dirname(a.dis_out), exist_ok=True)
        command = " ".join(shlex.quote(v) for v in [os.path.relpath(sys.argv[0])] + sys.argv[1:])
        stamp = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
        if a.dis_out.endswith(".json"):
            with open(a.dis_out, "w") as f:
                json.dump({"opencv": cv2.__version__, "seed": a.seed, "repeat": a.repeat, "command": command,
                           "date": stamp, "cpus": os.cpu_count(), "uptime_before": uptime_before,
                           "uptime_after": uptime_after, "epe": epe_rows, "time": time_rows,
                           "summary": summary}, f, indent=1)
        else:
            with open(a.dis_out, "w") as f:
                f.write(f"# DIS peer check: oflow --algo dis --preset P (reference) vs OpenCV {cv2.__version__} "
                        f"cv2.DISOpticalFlow; matrix_frames seed {a.seed}, 8-bit PNGs for both; EPE over all pixels\n")
                f.write(f"# time: ms, median of {a.repeat}, 1 thread unless named; {stamp}, {os.cpu_count()} CPUs; "
                        f"uptime before: {uptime_before}; after: {uptime_after}\n")
                f.write(f"# command: {command}\n")
                f.write("table\tpreset\tmotion\tphotometry\twidth\theight\topencv_epe\toflow_epe\tratio\n")
                for r in epe_rows:
                    f.write(f"epe\t{r['preset']}\t{r['motion']}\t{r['photometry']}\t{r['width']}\t{r['height']}\t"
                            f"{r['opencv_epe']:.4f}\t{r['oflow_epe']:.4f}\t{r['ratio']:.3f}\n")
                f.write("table\tpreset\topencv_mean_epe\toflow_mean_epe\tmean_ratio\tworst_ratio\tworst_cell\t"
                        "cells_above_1.15\n")
                for p, s in summary.items():
                    f.write(f"summary\t{p}\t{s['opencv_mean_epe']:.4f}\t{s['oflow_mean_epe']:.4f}\t"
                            f"{s['oflow_mean_epe'] / s['opencv_mean_epe']:.3f}\t{s['worst_ratio']:.3f}\t"
                            f"{s['worst_cell']}\t{s['cells_above']}\n")
                f.write("table\tpreset\tsize\topencv_ms\toflow_ms\tratio\toflow_ms_2threads\tspeedup_2threads\t"
                        "others_cpu_percent\tload1_before\tload1_after\n")
                for r in time_rows:
                    f.write(f"time\t{r['preset']}\t{r['size']}\t{r['opencv_ms']:.2f}\t{r['oflow_ms']:.2f}\t"
                            f"{r['ratio']:.3f}\t{r['oflow_ms_2threads']:.2f}\t{r['speedup_2threads']:.3f}\t"
                            f"{r['others_cpu_percent']:.0f}\t{r['load1_before']:.2f}\t{r['load1_after']:.2f}\n")
        print(f"\nwrote {a.dis_out}")
    if not a.dis_dir:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=None, help="oflow-cli (every mode but --sor-anchor)")
    ap.add_argument("--sor-anchor", action="store_true",
                    help="time one red-black SOR iteration per pixel against cv2.VariationalRefinement")
    ap.add_argument("--bench", default="build/host/samples/bench/oflow-bench", help="oflow-bench (--sor-anchor)")
    ap.add_argument("--bench-json", default=None,
                    help="--sor-anchor: read oflow's side from this `oflow-bench --cpu --json` output "
                         "(1 thread, same --size) instead of running the bench")
    ap.add_argument("--lk", action="store_true",
                    help="dense LK against OpenCV's calcOpticalFlowPyrLK on every pixel (lk_peer)")
    ap.add_argument("--lk-sizes", default="160x120,320x240", help="--lk: frame sizes")
    ap.add_argument("--window", type=int, default=11, help="--lk: window side (oflow's lk.window)")
    ap.add_argument("--min-eigen", type=float, default=1.0,
                    help="--lk: oflow's lk.min_eigen; OpenCV's minEigThreshold is it / 1024")
    ap.add_argument("--lk-iters", type=int, default=10, help="--lk: Newton steps per level")
    ap.add_argument("--lk-raised-iters", type=int, default=50,
                    help="--lk: the stopping variant's steps per level (epsilon 0; OpenCV caps at 100)")
    ap.add_argument("--levels", type=int, default=0, help="--lk: pyramid levels, 0 = oflow's automatic count")
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
                    help="exposure grid subset: gains 0.8 1.1, offsets -20 20, sigma 3; --dis: the cells up to "
                         "512x512 with photometry none / gain-noise, the first time size")
    ap.add_argument("--jobs", type=int, default=None,
                    help="exposure grid points (default 1), --matrix or --photos cells (default 2) or --dis accuracy runs "
                         "(default 1; never the timing) at a time")
    ap.add_argument("--seed", type=int, default=1, help="exposure grid / --matrix texture seed")
    ap.add_argument("--matrix", action="store_true",
                    help="OpenCV's DualTVL1 on the motion x photometry matrix (opencv_matrix), to --matrix-out")
    ap.add_argument("--matrix-out", default="tests/data/opencv_matrix.tsv", help="--matrix: the TSV written")
    ap.add_argument("--frames-tool", default="build/host/tests/matrix_frames",
                    help="--matrix, --dis: the matrix_frames tool (tests/tools/matrix_frames.cpp)")
    ap.add_argument("--photos", action="store_true",
                    help="OpenCV's DualTVL1 and DIS on the photograph set (opencv_photos), to --photos-out")
    ap.add_argument("--photos-out", default="tests/data/opencv_photo.tsv", help="--photos: the TSV written")
    ap.add_argument("--photo-frames-tool", default="build/host/tests/photo_frames",
                    help="--photos: the photo_frames tool (tests/tools/photo_frames.cpp)")
    ap.add_argument("--photo-cells", default="all", help="--photos: photo_frames --cells (all, quick, sanitize)")
    ap.add_argument("--photo-dirs", default=PHOTO_DIRS,
                    help="--photos: comma-separated folders of the photographs (photo_frames --photo-dir)")
    ap.add_argument("--dis", action="store_true",
                    help="DIS presets against OpenCV's cv2.DISOpticalFlow: matrix EPE and 1-thread time (dis_peer)")
    ap.add_argument("--dis-out", default=None, help="--dis: also write the results to this TSV (.json: JSON)")
    ap.add_argument("--dis-presets", default="", help="--dis: comma-separated subset of ultrafast,fast,medium")
    ap.add_argument("--dis-time-sizes", default=DIS_TIME_SIZES, help="--dis: the sizes timed")
    ap.add_argument("--dis-idle-wait", type=float, default=0.0,
                    help="--dis: before each timing block wait up to this many seconds for the others' CPU use "
                         "to drop to --dis-idle-busy (a shared machine)")
    ap.add_argument("--dis-idle-busy", type=float, default=25.0,
                    help="--dis: the share of all CPUs (%%) busy by others that --dis-idle-wait waits for")
    ap.add_argument("--dis-dir", default=None,
                    help="--dis: keep the frames (matrix, PNGs) in this directory and reuse them (default: a "
                         "temporary one, removed)")
    ap.add_argument("--backend", default="reference", help="oflow-cli --backend (exposure grid)")
    ap.add_argument("--median", type=int, choices=[3, 5], default=None,
                    help="exposure grid: OpenCV's median filter size, and oflow's default run's")
    ap.add_argument("--oflow-flags", default="",
                    help="exposure grid: extra oflow-cli flags for the default run")
    ap.add_argument("--before-flags", default="--robust none --median 0 --min-texture 0",
                    help="exposure grid: oflow-cli flags of the 'before' run")
    a = ap.parse_args()
    if a.jobs is None:
        a.jobs = 2 if a.matrix or a.photos else 1
    cv2.setNumThreads(a.threads)
    tmp = tempfile.mkdtemp(prefix="oflow-cmp-")
    if a.sor_anchor:
        sor_anchor(a, tmp)
        return
    if a.matrix:
        opencv_matrix(a, tmp)
        return
    if a.photos:
        opencv_photos(a, tmp)
        return
    if not a.cli:
        sys.exit("compare_opencv: --cli is required (except with --sor-anchor, --matrix and --photos)")
    if a.exposure:
        exposure_grid(a, tmp)
        return
    if a.dis:
        dis_peer(a, tmp)
        return
    if a.lk:
        lk_peer(a, tmp)
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
