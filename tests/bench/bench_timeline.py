"""What a long run costs the panel's timeline: 250 steps told one event at a time (with notes, page changes and
retries among them), then laid out and painted, then scrolled from the bottom to the top in 40 repaints; medians of 5.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.bench.bench_timeline
"""

from __future__ import annotations

import statistics
import time

from PySide6.QtWidgets import QApplication

from app.core.types import HistoricalEvent
from app.ui.timeline.model import TimelineModel
from app.ui.timeline.view import TimelineView
from tests.ui.test_timeline import long_history

RUNS = 5
STEPS = 250


def one_run(history: list[HistoricalEvent]) -> tuple[float, float, float]:
    model = TimelineModel()
    view = TimelineView(model)
    model.setParent(view)
    view.resize(420, 700)
    view.show()
    model.start_run(f"Fill in {STEPS} fields", follow_up=False)
    started = time.perf_counter()
    for event in history:  # one event_added at a time, as a run tells them
        model.add_event(event)
    told = time.perf_counter() - started
    QApplication.processEvents()
    view.grab()
    shown = time.perf_counter() - started
    bar = view.verticalScrollBar()
    scroll_started = time.perf_counter()
    for value in range(bar.maximum(), 0, -max(1, bar.maximum() // 40)):
        bar.setValue(value)
        view.viewport().repaint()
    scrolled = time.perf_counter() - scroll_started
    view.close()
    view.deleteLater()
    return told * 1000, shown * 1000, scrolled * 1000


def main() -> None:
    application = QApplication.instance() or QApplication([])
    history = long_history(STEPS)
    runs = [one_run(history) for _ in range(RUNS)]
    application.processEvents()
    told, shown, scrolled = (statistics.median(figures) for figures in zip(*runs, strict=True))
    print(
        f"{STEPS} steps ({len(history)} events): told {told:.0f} ms, laid out and painted {shown:.0f} ms, "
        f"40 repaints scrolling up {scrolled:.0f} ms (medians of {RUNS})"
    )


if __name__ == "__main__":
    main()
