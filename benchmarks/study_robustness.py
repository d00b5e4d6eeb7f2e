"""Studies that cannot mix, leak or waste work: figures for issue 16, items 1-4.

Prints, as markdown tables:

* **configurations**: ``compare`` on the examples with ``-t 2``, ``-t 1`` and ``-t 2``
  again on one database: what the third run ran and reported, and the rows per
  configuration the database holds (``results --json``);
* **read-only results**: whether ``results`` changed any byte of the study, of a
  0-byte file and of a foreign SQLite file (and what it answered);
* **shared work**: two ``compare`` processes started together on one database, a
  0.5 s heuristic on ``--instances`` instances: runs done by each, wall time, and one
  process alone for comparison;
* **orphans**: ``compare -j 2`` killed by SIGKILL and by SIGTERM while its workers
  are busy, ``--repeats`` times each: the time until every worker is gone.

Usage: ``python benchmarks/study_robustness.py [--instances 24] [--repeats 5]``.
Timings on a shared 2-core machine are inflated by other jobs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

SCRIPT = """
import sys, time
import exactsched
from exactsched.cli import main

@exactsched.register("bench-slow", kind="heuristic", description="heft, slowly", source="bench")
def slow(problem):
    time.sleep(0.5)
    return exactsched.solve(problem, "heft").schedule

@exactsched.register("bench-sleep", kind="heuristic", description="sleeps", source="bench")
def sleep(problem):
    time.sleep(300)

sys.exit(main(sys.argv[1:]))
"""


def _env() -> dict[str, str]:
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def _cli(script: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), *args], env=_env(),
                          capture_output=True, text=True, check=False)  # fmt: skip


def configurations(script: Path, work: Path) -> None:
    db = work / "config.sqlite"
    base = ["compare", str(EXAMPLES / "topcuoglu2002.json"), str(EXAMPLES / "mesh-isolation.json"),
            "--methods", "heft,cpop", "-w", "1", "--db", str(db), "--json"]  # fmt: skip
    docs = [json.loads(_cli(script, *base, "-t", t).stdout) for t in ("2", "1", "2")]
    third = docs[-1]
    limits = Counter(json.loads(r["options"]).get("time_limit") for r in third["rows"])
    rows = json.loads(_cli(script, "results", str(db), "--json").stdout)
    print("## Configurations (-t 2, -t 1, -t 2 on one database)\n")
    print(f"third run: ran {third['ran']}, from the database {third['skipped']}, "
          f"reported {len(third['rows'])} rows, time limits of the reported rows: "
          f"{dict(limits)}\n")  # fmt: skip
    print("| label | config | rows |\n| --- | --- | --- |")
    for (label, config), n in sorted(Counter((r["label"], r["config"]) for r in rows).items()):
        print(f"| {label} | {config} | {n} |")
    print()


def _hashes(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}  # fmt: skip


def readonly(script: Path, work: Path) -> None:
    folder = work / "ro"
    folder.mkdir()
    study = folder / "study.sqlite"
    _cli(script, "compare", str(EXAMPLES / "topcuoglu2002.json"), "--exact", "none",
         "--methods", "heft", "-q", "--db", str(study))  # fmt: skip
    (folder / "empty.sqlite").write_bytes(b"")
    with sqlite3.connect(folder / "foreign.sqlite") as con:
        con.execute("CREATE TABLE mine (x)")
    con.close()
    print("## results is read-only\n\n| file | exit | answer | files unchanged |")
    print("| --- | --- | --- | --- |")
    for name in ("study.sqlite", "empty.sqlite", "foreign.sqlite"):
        before = _hashes(folder)
        proc = _cli(script, "results", str(folder / name), "--json")
        answer = f"{len(json.loads(proc.stdout))} rows" if proc.returncode == 0 else (
            proc.stderr.strip().split(": ", 2)[-1])  # fmt: skip
        print(f"| {name} | {proc.returncode} | {answer} | {_hashes(folder) == before} |")
    print()


def shared(script: Path, work: Path, count: int) -> None:
    from exactsched.generators import random_instance

    folder = work / "inst"
    folder.mkdir()
    for seed in range(count):
        p = random_instance(6, 3, seed=seed)
        (folder / f"r{seed}.json").write_text(json.dumps(p.to_json()))

    def argv(db: Path) -> list[str]:
        return [sys.executable, str(script), "compare", str(folder), "--methods", "bench-slow",
                "--exact", "none", "-j", "1", "--db", str(db), "--json"]  # fmt: skip

    started = time.monotonic()
    procs = [subprocess.Popen(argv(work / "shared.sqlite"), env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) for _ in range(2)]  # fmt: skip
    ran = [json.loads(p.communicate()[0])["ran"] for p in procs]
    together = time.monotonic() - started
    started = time.monotonic()
    subprocess.run(argv(work / "alone.sqlite"), env=_env(), capture_output=True, check=True)
    alone = time.monotonic() - started
    print(f"## Two compare processes on one database ({count} runs of 0.5 s, -j 1 each)\n")
    print("| runs by process A | runs by process B | wall time, both | wall time, one alone |")
    print("| --- | --- | --- | --- |")
    print(f"| {ran[0]} | {ran[1]} | {together:.1f} s | {alone:.1f} s |\n")


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def orphans(script: Path, repeats: int) -> None:
    argv = [sys.executable, str(script), "compare", str(EXAMPLES / "topcuoglu2002.json"),
            str(EXAMPLES / "mesh-isolation.json"), "--methods", "bench-sleep", "--exact", "none",
            "-j", "2", "-q"]  # fmt: skip
    print("## Workers after their parent is killed (compare -j 2, both workers busy)\n")
    print("| signal | runs | workers | seconds until all gone: median | max | left after 5 s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for sig in (signal.SIGKILL, signal.SIGTERM):
        times, left, seen = [], 0, 0
        for _ in range(repeats):
            proc = subprocess.Popen(argv, env=_env(), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)  # fmt: skip
            deadline = time.monotonic() + 60
            while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            workers = _children(proc.pid)
            seen += len(workers)
            time.sleep(0.5)
            proc.send_signal(sig)
            proc.wait()
            killed = time.monotonic()
            while any(_alive(w) for w in workers) and time.monotonic() - killed < 5:
                time.sleep(0.005)
            times.append(time.monotonic() - killed)
            for w in workers:
                if _alive(w):
                    left += 1
                    os.kill(w, signal.SIGKILL)
        print(f"| {sig.name} | {repeats} | {seen} | {statistics.median(times):.3f} | "
              f"{max(times):.3f} | {left} |")  # fmt: skip
    print()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        script = work / "run.py"
        script.write_text(SCRIPT)
        configurations(script, work)
        readonly(script, work)
        shared(script, work, args.instances)
        if sys.platform.startswith("linux"):
            orphans(script, args.repeats)


if __name__ == "__main__":
    main()
