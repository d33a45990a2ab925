"""What masking secrets costs: one 30 KB prompt-sized text masked by a vault of five secrets (their whole values and
their JSON/URL forms, clipped starts, spelled-out forms, and every piece of 8 characters or more), median of 50.

Run: .venv/bin/python -m tests.bench.bench_masking
"""

from __future__ import annotations

import secrets
import statistics
import time

from pydantic import SecretStr

from app.core.safety.secrets import Secret, SecretVault

RUNS = 50


def main() -> None:
    vault = SecretVault([Secret(f"s{i}", SecretStr("pw-" + secrets.token_urlsafe(24))) for i in range(5)])
    text = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. [12]<button>Save /> " * 400
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        vault.mask(text)
        times.append((time.perf_counter() - started) * 1000)
    print(f"masking {len(text):,} characters with 5 secrets: {statistics.median(times):.2f} ms (median of {RUNS})")


if __name__ == "__main__":
    main()
