"""A headed routine from the command line while a person types into another program, on a desktop of its own (Xvfb +
openbox, tests/x_desktop.py): how many of the person's keys reached that program, how often one of the routine's
windows was the active one (sampled before each key), and every change of the active window. The scripted model and
the CRM-like site of the routine tests; the stored records are checked against the rows.

    .venv/bin/python -m tests.bench.bench_routine_keyboard [--rows 6] [--parallel 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.waiting import sync_until
from tests.x_desktop import Person, active_windows, other_application, x_desktop

ROOT = Path(__file__).resolve().parents[2]
KEY = "(keysym 0x71, q)"  # the letter the person types, as xev reports it


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=6)
    parser.add_argument("--parallel", type=int, default=3)
    args = parser.parse_args()
    server = FakeLLMServer().start()
    server.fallback = crm_model()
    customers = [(f"Customer {i}", f"c{i}@x.test", "Pro", "2026-01-05", "no") for i in range(1, args.rows + 1)]
    with tempfile.TemporaryDirectory(prefix="bench-keyboard-") as tmp, crm_site() as site, x_desktop() as desktop:
        rows = Path(tmp) / "rows.csv"
        rows.write_text("name,email,plan,start,newsletter\n" + "".join(",".join(c) + "\n" for c in customers))
        env = {k: v for k, v in desktop.env().items() if not k.startswith(("OPENAI_", "PAGE_AGENT_"))}
        env.update(PAGE_AGENT_HOME=str(Path(tmp) / "home"), OPENAI_API_KEY="sk-bench", PAGE_AGENT_MODEL="fake")
        env.update(OPENAI_BASE_URL=server.base_url, PYTHONPATH=os.pathsep.join(sys.path))
        command = [sys.executable, "-m", "app", "run", TEMPLATE, "--rows", str(rows), "--url", site.new_url]
        command += ["--parallel", str(args.parallel), "--headed", "--json"]
        with other_application(desktop, "editor", "520x420+800+300") as (editor, keys):
            started = time.monotonic()
            with active_windows(desktop) as seen, Person(desktop) as person:
                done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
            seconds = time.monotonic() - started
            typed = person.typed
            with contextlib.suppress(AssertionError):  # then as many as came
                sync_until(lambda: keys.count(KEY) >= 2 * typed, 10, "the keys in the editor")
    server.stop()
    if done.returncode != 0:
        raise SystemExit(f"the routine exited {done.returncode}:\n{done.stderr[-3000:]}")
    reached = keys.count(KEY) // 2  # a press and a release each
    elsewhere = sum(1 for window in person.active if window != editor)
    stored = sorted((r["name"], r["email"], r["plan"], r["start"], r["newsletter"]) for r in site.records)
    print(f"A headed routine of {args.rows} rows, {args.parallel} at a time, {seconds:.0f} s, while a person typed:")
    print(f"  keys that reached the person's program: {reached} of {typed}")
    print(f"  samples with another window active (a routine's): {elsewhere} of {len(person.active)}")
    print(f"  changes of the active window: {sum(1 for w in seen.changes[1:] if w != editor)} away from the program")
    print(f"  records stored exactly as the rows: {stored == sorted(customers)}; {json.loads(done.stdout)['counts']}")


if __name__ == "__main__":
    main()
