"""Collect a device check's outputs into OUTDIR/device_check.json (tools/device_check.sh).

    python tools/device_summary.py OUTDIR [--seconds N]

Reads OUTDIR/steps.tsv, tests.xml (JUnit) and bench/*.json; probes the GL
context for the driver's names and features; prints the headline ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from run_all import print_table, table  # noqa: E402  (benchmarks/ is not a package)


def machine() -> dict:
    info = {"system": platform.platform(), "cpus": os.cpu_count(), "python": sys.version.split()[0]}
    if shutil.which("nvidia-smi"):
        query = ["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                 "--format=csv,noheader"]  # fmt: skip
        done = subprocess.run(query, capture_output=True, text=True, check=False)
        info["gpu"] = done.stdout.strip() or done.stderr.strip()
    return info


def gl() -> dict:
    try:
        from hypergl import probe

        caps = probe()
    except Exception as exc:  # the summary is written whatever failed
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"vendor": caps.vendor, "renderer": caps.renderer, "version": caps.version,
            "glsl": caps.glsl_version, **caps.features()}  # fmt: skip


def steps(out: Path) -> list[dict]:
    path = out / "steps.tsv"
    rows = [line.split("\t") for line in path.read_text().splitlines()] if path.exists() else []
    return [{"step": name, "exit": int(rc), "seconds": int(s)} for name, rc, s in rows]


def tests(out: Path) -> dict:
    path = out / "tests.xml"
    if not path.exists():
        return {"error": "no tests.xml: the test step did not run or was killed"}
    root = ElementTree.parse(path).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    counts = {k: int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")}
    failed, skipped = [], {}
    for case in suite.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        for kind in ("failure", "error"):
            found = case.find(kind)
            if found is not None:
                failed.append({"test": name, "message": (found.get("message") or "")[:500]})
        skip = case.find("skipped")
        if skip is not None:
            reason = skip.get("message") or ""
            skipped[reason] = skipped.get(reason, 0) + 1
    return {**counts, "failed": failed, "skip_reasons": skipped}


def benchmarks(out: Path) -> dict:
    results = {}
    for path in sorted((out / "bench").glob("*.json")):
        try:
            results[path.stem] = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            results[path.stem] = {"error": f"unreadable JSON: {exc}"}
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seconds", type=int, default=None, help="the whole check's time")
    args = parser.parse_args()
    bench = benchmarks(args.out)
    rows = [row for row in table(bench) if row["benchmark"] in bench]
    summary = {
        "machine": machine(),
        "gl": gl(),
        "seconds": args.seconds,
        "steps": steps(args.out),
        "tests": tests(args.out),
        "headlines": rows,
        "benchmarks": bench,
    }
    path = args.out / "device_check.json"
    path.write_text(json.dumps(summary, indent=2, default=str) + "\n")
    t = summary["tests"]
    if "error" not in t:
        print(f"tests: {t['tests']} run, {t['failures']} failed, {t['errors']} errors, "
              f"{t['skipped']} skipped")  # fmt: skip
        for failure in t["failed"]:
            print(f"  FAILED {failure['test']}: {failure['message'][:200]}")
    if rows:
        print_table(rows)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
