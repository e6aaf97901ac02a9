#!/usr/bin/python3
"""Scores oflow (and optionally OpenCV) on a folder of real image pairs with ground-truth flow.

DIR holds one folder per pair, in the Middlebury layout: frame0.png and frame1.png (8-bit, grey or
colour) and gt.flo (Middlebury .flo: float tag 202021.25, int32 width, int32 height, then
width * height (u, v) float32 pairs, row by row; the flow from frame0 to frame1). Pixels whose
ground truth is not finite or has |u| or |v| > 1e9 are unknown and are left out of every metric.
The pair's name is its folder's name. No data comes with the project: point DIR at your copy.

Each method runs on every pair:
  oflow-ALGO   oflow-cli FRAME0 FRAME1 --algo ALGO --backend B --threads N --no-validity --json
               -o TMP.flo [--flags ...], for each ALGO of --algos (tvl1, hs, clg, lk, dis), the
               library's defaults otherwise. --no-validity only drops the confidence pass (the
               flow is the same; the time is then the flow's alone, as OpenCV's is).
               --dis-presets: DIS runs once per preset (oflow-dis-ultrafast, -fast, -medium,
               oflow-cli --preset P) instead of once with the default preset (medium).
  cv-tvl1      --opencv: cv2.optflow.DualTVL1OpticalFlow_create() with OpenCV's defaults.
  cv-dis-P     --opencv: cv2.DISOpticalFlow_create(PRESET_ULTRAFAST | PRESET_FAST |
               PRESET_MEDIUM), defaults otherwise.
Both get the same grey frames: colour is converted to BT.601 luma, (299 R + 587 G + 114 B +
500) / 1000 in integers, as oflow-cli does (OpenCV's cvtColor BGR2GRAY, which OpenCV's own DIS
accuracy test uses, differs from it by at most one grey level). OpenCV runs with
cv2.setNumThreads(--threads), in this process, after all oflow runs.

Every flow is read back as float32 and scored here, in float64, over the known pixels K of the
ground truth (g = (gu, gv), the estimate f = (u, v)):
  EPE   mean over K of |f - g| (end-point error, px)
  AE    mean over K of acos(((u, v, 1) . (gu, gv, 1)) / (|(u, v, 1)| |(gu, gv, 1)|)), in degrees
        (angular error, Baker et al., IJCV 2011; the cosine clamped to [-1, 1])
  RMSE  sqrt(mean over K of |f - g|^2) (the metric of OpenCV's DenseOpticalFlow_DIS
        ReferenceAccuracy test)
A flow that is not finite at a known pixel is an error. Times, per run: "ms" is the solver's:
oflow-cli's own of_process time (its JSON "ms"), the wall time of OpenCV's calc(); "wall_ms" is
the whole oflow-cli process (start, PNG decoding, writing the .flo) or, for OpenCV, reading and
converting the frames plus calc(). With --jobs > 1 oflow-cli runs overlap and their times
include the contention.

Output: one row per pair and method, then per method its mean over all pairs and its mean over
each --groups prefix (default mb_: the folders whose name starts with mb_, e.g. the Middlebury
pairs; --groups "" for none). Aligned text, or a Markdown table with --markdown; --tsv FILE also
writes every row (and the means) tab-separated. Exit status 1 on any error; --keep-going
scores the rest and leaves a failed run out of the means (their "n" column says over how many
pairs each mean is).

Usage: scripts/score_pairs.py DIR [--cli build/host/samples/oflow-cli] [--algos tvl1,hs,clg,lk,dis]
           [--flags "--robust none"] [--backend reference] [--threads 2] [--jobs 1]
           [--dis-presets [ultrafast,fast,medium]] [--opencv] [--pairs NAME,NAME]
           [--groups mb_] [--markdown] [--tsv FILE] [--keep-going]
Needs numpy; --opencv needs python3-opencv with the contrib optflow module (cv-tvl1; without it
only the cv-dis rows run; without cv2 at all --opencv is skipped with a note).
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

ALGOS = ["tvl1", "hs", "clg", "lk", "dis"]
DIS_PRESETS = ["ultrafast", "fast", "medium"]
PAIR_FILES = ["frame0.png", "frame1.png", "gt.flo"]
FLO_TAG = 202021.25
UNKNOWN = 1e9


class ScoreError(Exception):
    pass


def png_size(path):
    """(width, height) from a PNG's IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ScoreError(f"{path}: not a PNG file")
    return struct.unpack(">II", head[16:24])


def read_flo(path):
    """A Middlebury .flo as a float32 array of shape (height, width, 2)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 12:
        raise ScoreError(f"{path}: not a .flo file (too short)")
    tag, = struct.unpack("<f", data[:4])
    w, h = struct.unpack("<ii", data[4:12])
    if tag != FLO_TAG:
        raise ScoreError(f"{path}: not a .flo file (tag {tag!r}, expected {FLO_TAG})")
    if w < 1 or h < 1:
        raise ScoreError(f"{path}: corrupt .flo (size {w}x{h})")
    need = 12 + 8 * w * h
    if len(data) != need:
        raise ScoreError(f"{path}: {w}x{h} .flo needs {need} bytes, the file has {len(data)}")
    return np.frombuffer(data, dtype="<f4", offset=12).reshape(h, w, 2)


def known_mask(gt):
    gu, gv = gt[..., 0], gt[..., 1]
    return np.isfinite(gu) & np.isfinite(gv) & (np.abs(gu) <= UNKNOWN) & (np.abs(gv) <= UNKNOWN)


def flow_metrics(flow, gt, known, where):
    """EPE, AE (degrees) and RMSE of flow against gt over the known pixels (module docstring)."""
    if flow.shape != gt.shape:
        raise ScoreError(f"{where}: flow is {flow.shape[1]}x{flow.shape[0]}, "
                         f"the ground truth {gt.shape[1]}x{gt.shape[0]}")
    u = flow[..., 0][known].astype(np.float64)
    v = flow[..., 1][known].astype(np.float64)
    gu = gt[..., 0][known].astype(np.float64)
    gv = gt[..., 1][known].astype(np.float64)
    bad = ~(np.isfinite(u) & np.isfinite(v))
    if bad.any():
        raise ScoreError(f"{where}: the flow is not finite at {int(bad.sum())} known pixels")
    du, dv = u - gu, v - gv
    se = du * du + dv * dv
    cos = (u * gu + v * gv + 1.0) / np.sqrt((u * u + v * v + 1.0) * (gu * gu + gv * gv + 1.0))
    ae = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    return float(np.sqrt(se).mean()), float(ae.mean()), float(np.sqrt(se.mean()))


class Pair:
    def __init__(self, name, folder):
        self.name = name
        self.folder = folder
        self.f0, self.f1, self.gt_path = (os.path.join(folder, f) for f in PAIR_FILES)
        self._gt = None

    def check(self):
        missing = [f for f in PAIR_FILES if not os.path.isfile(os.path.join(self.folder, f))]
        if missing:
            raise ScoreError(f"{self.folder}: missing {', '.join(missing)}")
        s0, s1 = png_size(self.f0), png_size(self.f1)
        gt = self.gt()
        sg = (gt.shape[1], gt.shape[0])
        if not s0 == s1 == sg:
            raise ScoreError(f"{self.folder}: size mismatch: frame0.png {s0[0]}x{s0[1]}, "
                             f"frame1.png {s1[0]}x{s1[1]}, gt.flo {sg[0]}x{sg[1]}")
        if not self.known.any():
            raise ScoreError(f"{self.gt_path}: no known pixel")

    def gt(self):
        if self._gt is None:
            self._gt = read_flo(self.gt_path)
            self.known = known_mask(self._gt)
        return self._gt


def find_pairs(root, only):
    if not os.path.isdir(root):
        raise ScoreError(f"{root}: not a folder")
    names = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    if only:
        want = [n for n in only.split(",") if n]
        absent = [n for n in want if n not in names]
        if absent:
            raise ScoreError(f"{root}: no pair folder {', '.join(absent)}")
        names = want
    if not names:
        raise ScoreError(f"{root}: no pair folders (each needs {', '.join(PAIR_FILES)})")
    pairs = [Pair(n, os.path.join(root, n)) for n in names]
    for p in pairs:
        p.check()
    return pairs


# ---------------------------------------------------------------------------------------------
# Methods: (name, kind, settings)


def oflow_methods(a):
    algos = [x for x in a.algos.split(",") if x]
    bad = [x for x in algos if x not in ALGOS]
    if bad:
        raise ScoreError(f"--algos: unknown {', '.join(bad)} (known: {', '.join(ALGOS)})")
    presets = [p for p in (a.dis_presets or "").split(",") if p]
    bad = [p for p in presets if p not in DIS_PRESETS]
    if bad:
        raise ScoreError(f"--dis-presets: unknown {', '.join(bad)} (known: {', '.join(DIS_PRESETS)})")
    out = []
    for algo in algos:
        if algo == "dis" and presets:
            out += [(f"oflow-dis-{p}", "oflow", ["--algo", "dis", "--preset", p]) for p in presets]
        else:
            out.append((f"oflow-{algo}", "oflow", ["--algo", algo]))
    return out


def opencv_methods(notes):
    try:
        import cv2
    except ImportError as e:
        notes.append(f"--opencv skipped: cannot import cv2 ({e})")
        return [], None
    out = []
    if hasattr(cv2, "optflow") and hasattr(cv2.optflow, "DualTVL1OpticalFlow_create"):
        out.append(("cv-tvl1", "opencv", lambda: cv2.optflow.DualTVL1OpticalFlow_create()))
    else:
        notes.append("cv-tvl1 skipped: this cv2 has no optflow module (opencv_contrib)")
    if hasattr(cv2, "DISOpticalFlow_create"):
        ids = {"ultrafast": cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST, "fast": cv2.DISOPTICAL_FLOW_PRESET_FAST,
               "medium": cv2.DISOPTICAL_FLOW_PRESET_MEDIUM}
        for p in DIS_PRESETS:
            out.append((f"cv-dis-{p}", "opencv", lambda i=ids[p]: cv2.DISOpticalFlow_create(i)))
    else:
        notes.append("cv-dis skipped: this cv2 has no DISOpticalFlow")
    return out, cv2


# ---------------------------------------------------------------------------------------------
# Runs


def run_oflow(a, pair, name, settings, tmp):
    out_flo = os.path.join(tmp, f"{pair.name}.{name}.flo")
    cmd = ([a.cli, pair.f0, pair.f1] + settings +
           ["--backend", a.backend, "--threads", str(a.threads), "--no-validity", "--json", "-o", out_flo] +
           shlex.split(a.flags))
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall_ms = (time.perf_counter() - t0) * 1e3
    where = f"{pair.name} {name}"
    if p.returncode != 0:
        raise ScoreError(f"{where}: oflow-cli failed (exit status {p.returncode}): {shlex.join(cmd)}\n"
                         + (p.stderr.strip() or "(no stderr)"))
    try:
        info = json.loads(p.stdout)
    except ValueError:
        raise ScoreError(f"{where}: cannot read oflow-cli's JSON output: {p.stdout[:200]!r}")
    if not os.path.isfile(out_flo):
        raise ScoreError(f"{where}: oflow-cli wrote no flow: {shlex.join(cmd)}")
    flow = read_flo(out_flo)
    os.remove(out_flo)
    epe, ae, rmse = flow_metrics(flow, pair.gt(), pair.known, where)
    return {"epe": epe, "ae": ae, "rmse": rmse, "ms": float(info.get("ms", float("nan"))),
            "wall_ms": wall_ms, "detail": oflow_detail(info)}


def oflow_detail(info):
    """A few fields of oflow-cli's JSON for the TSV: backend, levels, iterations, robust."""
    d = {k: info[k] for k in ("backend", "levels", "iterations") if k in info}
    for k in ("robust", "robust_kept", "kept"):
        if k in info and not isinstance(info[k], (dict, list)):
            d[k] = info[k]
    return " ".join(f"{k}={v}" for k, v in d.items())


def grey_u8(cv2, path):
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ScoreError(f"{path}: OpenCV cannot read it")
    if img.dtype != np.uint8:
        raise ScoreError(f"{path}: {img.dtype} samples; this script takes 8-bit frames")
    if img.ndim == 2:
        return img
    if img.shape[2] <= 2:  # grey (+ alpha)
        return np.ascontiguousarray(img[..., 0])
    b, g, r = (img[..., c].astype(np.uint32) for c in range(3))  # BGR(A) order
    return ((299 * r + 587 * g + 114 * b + 500) // 1000).astype(np.uint8)


def run_opencv(cv2, pair, name, make):
    t0 = time.perf_counter()
    i0, i1 = grey_u8(cv2, pair.f0), grey_u8(cv2, pair.f1)
    algo = make()
    t1 = time.perf_counter()
    flow = algo.calc(i0, i1, None)
    t2 = time.perf_counter()
    epe, ae, rmse = flow_metrics(np.asarray(flow, dtype=np.float32), pair.gt(), pair.known, f"{pair.name} {name}")
    return {"epe": epe, "ae": ae, "rmse": rmse, "ms": (t2 - t1) * 1e3, "wall_ms": (t2 - t0) * 1e3,
            "detail": f"opencv={cv2.__version__}"}


# ---------------------------------------------------------------------------------------------
# Output

COLUMNS = [("pair", "s"), ("method", "s"), ("n", "d"), ("known %", ".1f"), ("EPE", ".3f"), ("AE deg", ".2f"),
           ("RMSE", ".3f"), ("ms", ".1f"), ("wall ms", ".1f")]


def fmt(v, spec):
    if v is None or (isinstance(v, float) and v != v):
        return "-"
    return format(v, spec)


def mean_rows(label, pairs, methods, results):
    rows = []
    for name, _, _ in methods:
        got = [results[(p.name, name)] for p in pairs if "epe" in results.get((p.name, name), {})]
        row = {"pair": label, "method": name, "n": len(got),
               "known %": float(np.mean([100.0 * p.known.mean() for p in pairs]))}
        for key, col in (("epe", "EPE"), ("ae", "AE deg"), ("rmse", "RMSE"), ("ms", "ms"), ("wall_ms", "wall ms")):
            row[col] = float(np.mean([r[key] for r in got])) if got else None
        rows.append(row)
    return rows


def print_table(sections, markdown):
    heads = [c for c, _ in COLUMNS]
    cells = [[[fmt(r[c], s) for c, s in COLUMNS] for r in rows] for rows in sections]
    if markdown:
        print("| " + " | ".join(heads) + " |")
        print("|" + "|".join("---" if s == "s" else "---:" for _, s in COLUMNS) + "|")
        for sec in cells:
            for row in sec:
                print("| " + " | ".join(row) + " |")
        return
    width = [max([len(h)] + [len(row[i]) for sec in cells for row in sec]) for i, h in enumerate(heads)]

    def line(vals):
        return "  ".join(v.ljust(w) if s == "s" else v.rjust(w)
                         for v, w, (_, s) in zip(vals, width, COLUMNS)).rstrip()

    print(line(heads))
    for sec in cells:
        print("-" * len(line(heads)))
        for row in sec:
            print(line(row))


def write_tsv(path, sections, details):
    cols = [c for c, _ in COLUMNS] + ["detail"]
    with open(path, "w") as f:
        f.write("\t".join(c.replace(" ", "_") for c in cols) + "\n")
        for rows in sections:
            for r in rows:
                vals = [fmt(r[c], "s" if s == "s" else ("d" if s == "d" else ".6f")) for c, s in COLUMNS]
                f.write("\t".join(vals + [details.get((r["pair"], r["method"]), "")]) + "\n")


# ---------------------------------------------------------------------------------------------


def default_cli():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.relpath(os.path.join(here, "..", "build", "host", "samples", "oflow-cli"))


def main():
    ap = argparse.ArgumentParser(description="Score oflow (and OpenCV) on a folder of pairs with ground truth; "
                                 "the module docstring has the metrics.")
    ap.add_argument("dir", metavar="DIR", help="folder of pair folders (frame0.png, frame1.png, gt.flo)")
    ap.add_argument("--cli", default=default_cli(), help="oflow-cli binary (default: %(default)s)")
    ap.add_argument("--algos", default=",".join(ALGOS), help="oflow algorithms (default: %(default)s)")
    ap.add_argument("--flags", default="", help="extra oflow-cli flags for every oflow run, e.g. "
                    "\"--robust none\" (a single word needs the = form: --flags=--median=0)")
    ap.add_argument("--backend", default="reference", help="oflow-cli --backend (default: %(default)s)")
    ap.add_argument("--threads", type=int, default=2, help="oflow-cli --threads and cv2.setNumThreads (default: 2)")
    ap.add_argument("--jobs", type=int, default=1, help="oflow-cli processes at once (default: 1)")
    ap.add_argument("--dis-presets", nargs="?", const=",".join(DIS_PRESETS), default=None, metavar="LIST",
                    help="run oflow DIS once per preset (default list: %(const)s) instead of its default preset")
    ap.add_argument("--opencv", action="store_true", help="also OpenCV's DualTVL1 (defaults) and DIS presets")
    ap.add_argument("--pairs", default="", help="only these pair folders, comma-separated")
    ap.add_argument("--groups", default=None, help="comma-separated name prefixes to average separately "
                    "(default: mb_; \"\" for none)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--tsv", metavar="FILE", help="also write every row tab-separated to FILE")
    ap.add_argument("--keep-going", action="store_true", help="after a failed run, score the rest")
    a = ap.parse_args()
    if a.threads < 1 or a.jobs < 1:
        ap.error("--threads and --jobs must be >= 1")

    try:
        pairs = find_pairs(a.dir, a.pairs)
        methods = oflow_methods(a)
        if methods and not (os.path.isfile(a.cli) and os.access(a.cli, os.X_OK)):
            raise ScoreError(f"{a.cli}: no oflow-cli there (build it, or pass --cli PATH)")
    except ScoreError as e:
        sys.exit(f"score_pairs: {e}")
    notes = []
    cv2 = None
    if a.opencv:
        cv_methods, cv2 = opencv_methods(notes)
        methods += cv_methods
        if cv2 is not None:
            cv2.setNumThreads(a.threads)
    if not methods:
        sys.exit("score_pairs: no method to run")
    for n in notes:
        print(f"score_pairs: {n}", file=sys.stderr)

    results, failed = {}, []
    tasks = [(p, m) for p in pairs for m in methods]
    done = [0]

    def report(p, m, r):
        done[0] += 1
        print(f"[{done[0]}/{len(tasks)}] {p.name} {m[0]}: EPE {r['epe']:.3f} AE {r['ae']:.2f} "
              f"RMSE {r['rmse']:.3f}, {r['ms']:.1f} ms", file=sys.stderr, flush=True)

    def fail(p, m, e):
        done[0] += 1
        failed.append((p.name, m[0]))
        results[(p.name, m[0])] = {"error": str(e)}
        print(f"score_pairs: {e}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="score_pairs.") as tmp:
        oflow_tasks = [(p, m) for p, m in tasks if m[1] == "oflow"]
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            futs = {pool.submit(run_oflow, a, p, m[0], m[2], tmp): (p, m) for p, m in oflow_tasks}
            for fu in concurrent.futures.as_completed(futs):
                p, m = futs[fu]
                try:
                    results[(p.name, m[0])] = fu.result()
                    report(p, m, results[(p.name, m[0])])
                except ScoreError as e:
                    fail(p, m, e)
                    if not a.keep_going:
                        for f in futs:
                            f.cancel()
                        sys.exit(1)
        for p, m in tasks:
            if m[1] != "opencv":
                continue
            try:
                results[(p.name, m[0])] = run_opencv(cv2, p, m[0], m[2])
                report(p, m, results[(p.name, m[0])])
            except (ScoreError, cv2.error) as e:
                fail(p, m, ScoreError(f"{p.name} {m[0]}: {e}"))
                if not a.keep_going:
                    sys.exit(1)

    per_pair, details = [], {}
    for p in pairs:
        for name, _, _ in methods:
            r = results.get((p.name, name), {})
            ok = "epe" in r
            per_pair.append({"pair": p.name, "method": name, "n": 1 if ok else 0,
                             "known %": 100.0 * float(p.known.mean()),
                             "EPE": r.get("epe"), "AE deg": r.get("ae"), "RMSE": r.get("rmse"),
                             "ms": r.get("ms"), "wall ms": r.get("wall_ms")})
            details[(p.name, name)] = r.get("detail", "") if ok else "FAILED: " + r.get("error", "").split("\n")[0]
    sections = [per_pair, mean_rows(f"mean all ({len(pairs)})", pairs, methods, results)]
    for g in [g for g in (a.groups if a.groups is not None else "mb_").split(",") if g]:
        members = [p for p in pairs if p.name.startswith(g)]
        if members:
            sections.append(mean_rows(f"mean {g}* ({len(members)})", members, methods, results))
        elif a.groups is not None:
            print(f"score_pairs: --groups {g}: no pair's name starts with it", file=sys.stderr)

    setup = []
    if any(m[1] == "oflow" for m in methods):
        setup.append(f"oflow-cli {a.cli} --backend {a.backend} --threads {a.threads} --no-validity"
                     + (f" {a.flags}" if a.flags else "") + f", {a.jobs} at a time")
    if cv2 is not None:
        setup.append(f"OpenCV {cv2.__version__}, setNumThreads({a.threads})")
    print("; ".join(setup))
    for n in notes:
        print(f"note: {n}")
    print_table(sections, a.markdown)
    if a.tsv:
        write_tsv(a.tsv, sections, details)
    if failed:
        print(f"score_pairs: {len(failed)} run(s) failed: "
              + ", ".join(f"{p} {m}" for p, m in failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
