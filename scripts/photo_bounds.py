#!/usr/bin/python3
"""Writes tests/data/photo_bounds.tsv, the bounds of the photograph set (tests/photo_set.cpp),
from `photo_set --study` printouts of the reference path.

Per cell (photo, motion, photometry): bound = 1.3 x the measured EPE. A key is "tvl1" for an
algorithm's defaults and "tvl1:none" for a run with --robust none (photo_set reads the rows of the
key it runs: ALGO, or ALGO:MODE under --robust MODE).

Two ways in:
  --build DIR: runs DIR/tests/photo_set --study --cells all --backend reference for every
               algorithm (--algos), with the photograph folders DIR's CMake cache found
               (OF_PHOTO_SKIMAGE_DIR, OF_PHOTO_OPENCV_DIR), and --robust MODE when given (the
               keys are then ALGO:MODE); keeps each printout in --keep-printouts DIR if given.
               This is the whole re-measurement after a change of the defaults:
                   scripts/photo_bounds.py --build build/host
  KEY=FILE[,FILE...]: printouts already made; with several files for a key the bound is 1.3 x
               the largest EPE among them (e.g. the reference and the NEON path).
--keep: the rows of the existing output file whose key no given printout has stay as they are
(another mode's rows need not be measured again).

Usage: scripts/photo_bounds.py [-o FILE] [--keep] (--build DIR [--algos tvl1,hs,clg,lk,dis]
           [--robust MODE] [--keep-printouts DIR] | KEY=FILE[,FILE...] ...)
"""
import argparse
import datetime
import os
import platform
import re
import subprocess
import sys

MOTIONS = ("small", "medium", "large", "stream")
LIGHTS = ("none", "ramp", "gain-noise", "vignette")


def read_study(text):
    """{(photo, motion, photometry): EPE} of a photo_set printout (its cell rows)."""
    rows = {}
    for line in text.splitlines():
        t = line.split()
        if len(t) == 8 and t[1] in MOTIONS and t[2] in LIGHTS:
            rows[(t[0], t[1], t[2])] = float(t[3])
    return rows


def cache_value(build, name):
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(r"^%s:[A-Z]+=(.*)$" % name, line.strip())
            if m:
                return m.group(1)
    return ""


def run_studies(a):
    """Runs photo_set --study --cells all per algorithm: {key: [printout text]}, and the command."""
    tool = os.path.join(a.build, "tests", "photo_set")
    if not os.path.isfile(tool):
        sys.exit(f"photo_bounds: {tool}: not found (build the photo_set target)")
    dirs = [cache_value(a.build, v) for v in ("OF_PHOTO_SKIMAGE_DIR", "OF_PHOTO_OPENCV_DIR")]
    if not all(dirs) or cache_value(a.build, "OF_HAVE_PHOTOS") != "ON":
        sys.exit(f"photo_bounds: {a.build} did not find the photographs (OF_HAVE_PHOTOS; Debian: python3-skimage, "
                 "opencv-doc)")
    out = {}
    for algo in a.algos.split(","):
        cmd = [tool, "--algo", algo, "--study", "--cells", "all", "--backend", "reference"]
        for d in dirs:
            cmd += ["--photo-dir", d]
        if a.robust:
            cmd += ["--robust", a.robust]
        print("photo_bounds: " + " ".join(cmd[1:]), flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"photo_bounds: photo_set --algo {algo} failed ({p.returncode}): {p.stderr.strip()}")
        print(p.stdout.strip().splitlines()[-1], flush=True)
        if a.keep_printouts:
            os.makedirs(a.keep_printouts, exist_ok=True)
            name = algo + (("_" + a.robust) if a.robust else "_default") + ".txt"
            with open(os.path.join(a.keep_printouts, name), "w") as f:
                f.write(p.stdout)
        out[algo + (":" + a.robust if a.robust else "")] = [p.stdout]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", default="tests/data/photo_bounds.tsv")
    ap.add_argument("--keep", action="store_true", help="keep the output's rows of the keys not given")
    ap.add_argument("--build", default=None, help="run the studies with this build's photo_set")
    ap.add_argument("--algos", default="tvl1,hs,clg,lk,dis", help="--build: the algorithms")
    ap.add_argument("--robust", default=None, help="--build: photo_set --robust MODE (keys ALGO:MODE)")
    ap.add_argument("--keep-printouts", default=None, help="--build: write each printout into this folder")
    ap.add_argument("studies", nargs="*", help="KEY=FILE[,FILE...]")
    a = ap.parse_args()
    if bool(a.build) == bool(a.studies):
        sys.exit("photo_bounds: give --build DIR or KEY=FILE printouts (not both)")
    if a.build:
        studies = run_studies(a)
    else:
        studies = {}
        for spec in a.studies:
            key, files = spec.split("=", 1)
            studies[key] = [open(p).read() for p in files.split(",")]
    kept = []
    if a.keep and os.path.isfile(a.o):
        for line in open(a.o):
            t = line.split()
            if t and not t[0].startswith("#") and t[0] not in studies:
                kept.append(line.rstrip("\n"))
    command = " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:])
    out = ["# The photograph set's bounds (tests/photo_set.cpp), written by scripts/photo_bounds.py on",
           "# %s from photo_set --study --cells all printouts of the reference path (%s, 2 threads)."
           % (datetime.date.today(), platform.machine()),
           "# bound = 1.3 x the measured EPE (with several printouts of a key: the largest). Re-measure",
           "# after a change of the defaults (a few minutes to half an hour on two cores):",
           "#   scripts/photo_bounds.py --build build/host",
           "# this file: " + command,
           "# key photo motion photometry bound measured"] + kept
    for key, texts in studies.items():
        cells = {}
        for text in texts:
            for cell, e in read_study(text).items():
                cells[cell] = max(e, cells.get(cell, e))
        if not cells:
            sys.exit(f"photo_bounds: no cell rows in the printout of {key}")
        for (photo, motion, light), e in cells.items():
            out.append("%s %s %s %s %.4f %.4f" % (key, photo, motion, light, 1.3 * e, e))
    with open(a.o, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {a.o}")


if __name__ == "__main__":
    main()
