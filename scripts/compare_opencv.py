#!/usr/bin/python3
"""Accuracy and speed of oflow's reference TV-L1 against OpenCV's CPU DualTVL1OpticalFlow.

Both run on the same 8-bit frames (written by `oflow-cli --synth CASE --save-frames`), with the
same schedule: pyramid levels, factor 0.5, warps, inner iterations, one outer iteration, no
median filter, same tau/lambda/theta and epsilon. OpenCV is used only here, never by the build.

Needs Debian's python3-opencv (cv2 with the contrib optflow module) and numpy.
Usage: scripts/compare_opencv.py --cli build/samples/oflow-cli [--size 640x480] [--threads 1]
"""
import argparse
import json
import os
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


def run_cli(cli, args):
    p = subprocess.run([cli] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("oflow-cli failed: " + p.stderr.strip())
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--size", default="640x480", help="accuracy frames")
    ap.add_argument("--time-sizes", default="640x480,1280x720")
    ap.add_argument("--warps", type=int, default=5)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--epsilon", type=float, default=0.01)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    cv2.setNumThreads(a.threads)
    tmp = tempfile.mkdtemp(prefix="oflow-cmp-")

    def opencv(levels, epsilon):
        # Setters, not keywords: the binding's keyword is misspelt ("innnerIterations").
        o = cv2.optflow.DualTVL1OpticalFlow_create()
        o.setTau(0.25)
        o.setLambda(0.15)
        o.setTheta(0.3)
        o.setScalesNumber(levels)
        o.setWarpingsNumber(a.warps)
        o.setEpsilon(max(epsilon, 1e-12))
        o.setInnerIterations(a.iters)
        o.setOuterIterations(1)
        o.setScaleStep(0.5)
        o.setGamma(0.0)
        o.setMedianFiltering(1)
        o.setUseInitialFlow(False)
        return o

    def ours_args(levels, epsilon, repeat):
        return ["--levels", str(levels), "--scale", "0.5", "--warps", str(a.warps),
                "--iters", str(a.iters), "--epsilon", str(epsilon), "--threads", str(a.threads),
                "--backend", "reference", "--repeat", str(repeat), "--json"]

    w, h = (int(v) for v in a.size.split("x"))
    levels = auto_levels(w, h)
    print(f"Accuracy at {w}x{h}: levels {levels}, factor 0.5, warps {a.warps}, "
          f"iterations {a.iters}, epsilon {a.epsilon}, 1 outer iteration, no median filter")
    print("| case | oflow EPE | OpenCV EPE | oflow AAE | OpenCV AAE |")
    print("|---|---|---|---|---|")
    sums = np.zeros(4)
    for case in CASES:
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
    n = len(CASES)
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
    main()
