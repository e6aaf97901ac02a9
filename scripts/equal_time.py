#!/usr/bin/python3
"""EPE of Horn-Schunck and CLG (Jacobi and red-black SOR) beside TV-L1 at equal CPU time.

For each case, TV-L1 runs with the library's defaults (oflow-cli --synth CASE, 1 thread): its
median time per frame is the budget. Each HS/CLG variant (its defaults, epsilon 0 so that the
work is fixed) is timed at two iteration counts, t(n) = a + b n is fitted, and it runs again
at the n that costs TV-L1's time; its EPE and time are printed beside TV-L1's. The cases: the
seven synthetic ones and two exposure changes of frame 1 (gain 1.25, offset +20, noise 3 on
smooth-field and fine-texture).

Usage: scripts/equal_time.py [--cli build/host/samples/oflow-cli] [--size 320x240] [--repeat 3]
Output: a Markdown table (docs/accuracy.md section 9 has one).
"""
import argparse
import json
import subprocess
import sys

CASES = [("translation", []), ("rotation-zoom", []), ("smooth-field", []), ("occlusion", []),
         ("noise-gain", []), ("fine-texture", []), ("camera-motion", []),
         ("smooth-field", ["--exposure", "1.25,20,3"]), ("fine-texture", ["--exposure", "1.25,20,3"])]
VARIANTS = [("hs", "jacobi"), ("hs", "sor"), ("clg", "jacobi"), ("clg", "sor")]


def run(a, case, extra, flags):
    cmd = [a.cli, "--synth", case, "--size", a.size, "--threads", "1", "--repeat", str(a.repeat),
           "--json"] + extra + flags
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    return d["epe"], d["ms"], d["iterations"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/host/samples/oflow-cli")
    ap.add_argument("--size", default="320x240")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print(f"| case | TV-L1 EPE (ms) | " + " | ".join(f"{al.upper()} {so} EPE (ms, it/warp)" for al, so in VARIANTS) + " |")
    print("|---|---|" + "---|" * len(VARIANTS))
    for case, extra in CASES:
        name = case + (" " + extra[1] if extra else "")
        t_epe, t_ms, _ = run(a, case, extra, [])
        cells = [f"{t_epe:.4f} ({t_ms:.0f})"]
        for algo, solver in VARIANTS:
            base = ["--algo", algo, "--solver", solver, "--epsilon", "0"]
            lo, hi = 20, 200
            _, ms_lo, _ = run(a, case, extra, base + ["--iters", str(lo)])
            _, ms_hi, _ = run(a, case, extra, base + ["--iters", str(hi)])
            slope = (ms_hi - ms_lo) / (hi - lo)
            fixed = ms_lo - slope * lo
            n = int(round((t_ms - fixed) / slope)) if slope > 0 else lo
            n = max(1, min(n, 100000))
            epe, ms, _ = run(a, case, extra, base + ["--iters", str(n)])
            cells.append(f"{epe:.4f} ({ms:.0f}, {n})")
        print(f"| {name} | " + " | ".join(cells) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
