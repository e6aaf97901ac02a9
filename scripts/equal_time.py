#!/usr/bin/python3
"""EPE of Horn-Schunck and CLG (Jacobi and red-black SOR) beside TV-L1 at equal CPU time.

For each case TV-L1 runs with the library's defaults (oflow-cli --synth CASE --size WxH
--threads 1 --backend B --json: 5 warps x 300 iterations, epsilon 0.01, local normalisation,
median 5); its median time per frame (--repeat runs) is the budget. Each HS/CLG variant
(--algo hs|clg --solver jacobi|sor, its defaults otherwise: alpha 15, rho 2 for CLG, omega 1.4,
5 warps) runs with epsilon 0, so that --iters N (inner iterations per warp, every level) fixes
its work; it runs at N = 10 and 40, then at the N where the line through the two runs nearest
the budget meets it, until the time is within --tol (default 10 %) of TV-L1's (at most --tries
more runs; the run nearest the budget is kept). Printed per case: EPE and ms of TV-L1, and for
each variant its EPE, N, ms and time ratio to TV-L1 (marked ! beyond --tol); then the mean EPE over the cases and how many cases each variant wins.

The cases: every built-in synthetic case (`oflow-cli --synth list` names them) and exposure
changes of frame 1 (--exposure G,O,S; default gain 1.25, offset +20, noise 3 on smooth-field
and fine-texture). One thread, one size, one backend for all: timings are of this machine.

oflow-cli --json prints one object per run; this script reads its "epe" (mean end-point error
against the synthetic ground truth), "ms" (median of --repeat of_process calls) and
"iterations" (inner iterations of the frame, all levels and warps: of_info.last_iterations).

Usage: scripts/equal_time.py [--cli build/host/samples/oflow-cli] [--size 640x480] [--repeat 3]
           [--backend reference] [--cases smooth-field,occlusion] [--exposure 1.25,20,3]
           [--exposure-cases smooth-field,fine-texture] [--json FILE]
Output: a Markdown table (docs/accuracy.md section 9 has one) and, with --json, every run.
"""
import argparse
import json
import re
import subprocess
import sys

VARIANTS = [("hs", "jacobi", "HS Jacobi"), ("hs", "sor", "HS SOR"),
            ("clg", "jacobi", "CLG Jacobi"), ("clg", "sor", "CLG SOR")]


def synth_cases(cli):
    """The built-in cases, from the error oflow-cli gives for an unknown one."""
    r = subprocess.run([cli, "--synth", "list"], capture_output=True, text=True)
    m = re.search(r"\((.*) or all\)", r.stderr + r.stdout)
    if not m:
        sys.exit(f"equal_time: cannot read the case list from `{cli} --synth list`")
    return [c.strip() for c in m.group(1).split(",") if c.strip()]


class Runner:
    def __init__(self, a):
        self.a = a
        self.log = []

    def run(self, case, extra, flags):
        a = self.a
        cmd = [a.cli, "--synth", case, "--size", a.size, "--threads", "1", "--backend", a.backend,
               "--repeat", str(a.repeat), "--json"] + extra + flags
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        d = json.loads(out)
        rec = {"case": case, "extra": extra, "flags": flags, "epe": d["epe"], "ms": d["ms"],
               "iterations": d["iterations"], "backend": d["backend"]}
        self.log.append(rec)
        return rec


def equal_time_run(r, case, extra, algo, solver, budget_ms, a):
    """Runs (algo, solver) at the N per warp whose time per frame is closest to budget_ms."""
    base = ["--algo", algo, "--solver", solver, "--epsilon", "0"]
    pts = {}

    def at(n):
        if n not in pts:
            pts[n] = r.run(case, extra, base + ["--iters", str(n)])
        return pts[n]

    at(10)
    at(40)
    for _ in range(a.tries):
        # the secant through the two runs nearest the budget in time
        n0, n1 = sorted(sorted(pts, key=lambda k: abs(pts[k]["ms"] - budget_ms))[:2])
        slope = (pts[n1]["ms"] - pts[n0]["ms"]) / (n1 - n0)
        if slope > 0:
            n = int(round(n0 + (budget_ms - pts[n0]["ms"]) / slope))
        else:  # timing noise larger than the step: move away from the nearer point
            n = n1 * 2 if pts[n1]["ms"] < budget_ms else n0 // 2
        n = max(1, min(n, 100000))
        if n in pts:
            break
        if abs(at(n)["ms"] / budget_ms - 1.0) <= a.tol:
            break
    best = min(pts, key=lambda k: abs(pts[k]["ms"] - budget_ms))
    return best, pts[best]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/host/samples/oflow-cli")
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--repeat", type=int, default=3, help="of_process calls per run (median time)")
    ap.add_argument("--backend", default="reference", help="oflow-cli --backend for every run")
    ap.add_argument("--cases", default="", help="comma-separated subset of the synthetic cases")
    ap.add_argument("--exposure", default="1.25,20,3", help="gain,offset,noise of the exposure rows")
    ap.add_argument("--exposure-cases", default="smooth-field,fine-texture",
                    help="cases that also run with --exposure ('' for none)")
    ap.add_argument("--tol", type=float, default=0.10, help="time match to TV-L1's, relative")
    ap.add_argument("--tries", type=int, default=4, help="runs per variant after the two fit points")
    ap.add_argument("--json", default=None, help="write every run here")
    a = ap.parse_args()

    names = synth_cases(a.cli)
    cases = [(c, []) for c in (a.cases.split(",") if a.cases else names) if c]
    cases += [(c, ["--exposure", a.exposure]) for c in a.exposure_cases.split(",") if c]
    r = Runner(a)
    print(f"EPE (px) at equal CPU time, {a.size}, 1 thread, backend {a.backend}; TV-L1 with the defaults "
          f"sets the time; HS/CLG with epsilon 0 at N inner iterations per warp (median of {a.repeat} "
          f"frames each)\n")
    print("| case | TV-L1 EPE (ms, iterations) | "
          + " | ".join(f"{label} EPE (N/warp, ms, x TV-L1 time)" for _, _, label in VARIANTS) + " |")
    print("|---|---|" + "---|" * len(VARIANTS))
    sums = {"tvl1": 0.0, **{v[2]: 0.0 for v in VARIANTS}}
    wins = {v[2]: 0 for v in VARIANTS}
    ratios = []
    rows = []
    for case, extra in cases:
        name = case + (f" (exposure {extra[1]})" if extra else "")
        t = r.run(case, extra, [])
        cells = [f"{t['epe']:.4f} ({t['ms']:.0f}, {t['iterations']})"]
        sums["tvl1"] += t["epe"]
        row = {"case": name, "tvl1": t, "variants": {}}
        for algo, solver, label in VARIANTS:
            n, v = equal_time_run(r, case, extra, algo, solver, t["ms"], a)
            ratio = v["ms"] / t["ms"]
            ratios.append(ratio)
            mark = "" if abs(ratio - 1.0) <= a.tol else " !"
            cells.append(f"{v['epe']:.4f} ({n}, {v['ms']:.0f}, {ratio:.2f}{mark})")
            sums[label] += v["epe"]
            wins[label] += v["epe"] < t["epe"]
            row["variants"][label] = {"n_per_warp": n, **v}
        rows.append(row)
        print(f"| {name} | " + " | ".join(cells) + " |")
        sys.stdout.flush()
    k = len(cases)
    print(f"| mean EPE | {sums['tvl1'] / k:.4f} | "
          + " | ".join(f"{sums[label] / k:.4f} (better than TV-L1 on {wins[label]} of {k})"
                       for _, _, label in VARIANTS) + " |")
    off = [x for x in ratios if abs(x - 1.0) > a.tol]
    print(f"\ntime ratios to TV-L1: {min(ratios):.2f} .. {max(ratios):.2f}"
          + (f"; {len(off)} outside +-{a.tol:.0%} (marked !)" if off else f", all within +-{a.tol:.0%}"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"size": a.size, "backend": a.backend, "repeat": a.repeat, "rows": rows, "runs": r.log}, f,
                      indent=1)


if __name__ == "__main__":
    main()
