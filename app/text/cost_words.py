"""What a routine costs, in plain words, for the panel and the terminal alike: "200 rows · about 25 min · about 210
model calls · about $0.84", and the limit it passed. From typed values (Costs,
LimitReached), never from English read back."""

from __future__ import annotations

from app.routine.types import Costs, Limit, LimitReached
from app.text.counts import model_calls_about, rows_count
from app.text.i18n import tr


def money(amount: float, currency: str) -> str:
    """ "$0.84"; a price set in Settings has no sign ("0.84"): it is in the money the person pays in."""
    digits = 2 if amount >= 0.1 or amount == 0 else 3
    return f"{currency}{amount:,.{digits}f}"


def about_count(count: int) -> int:
    """A count as an estimate says it: exact below 100, else to two figures (207 is about 210)."""
    if count < 100:
        return count
    return round(count, 2 - len(str(count)))


def about_duration(seconds: float) -> str:
    if seconds < 60:
        return tr("{s} s", s=max(5, round(seconds / 5) * 5))
    minutes = round(seconds / 60)
    if minutes < 60:
        return tr("{m} min", m=minutes)
    return tr("{h} h {m} min", h=minutes // 60, m=minutes % 60)


def estimate_words(rows: int, costs: Costs, seconds_left: float | None) -> str:
    """The rows to run and about what they take: the time (once a row has ended), the model calls, the money (once
    a call has told its tokens and the price is known)."""
    parts = [rows_count(rows)]
    if seconds_left is not None:
        parts.append(tr("about {time}", time=about_duration(seconds_left)))
    parts.append(model_calls_about(about_count(costs.calls_in_all)))
    if costs.in_all is not None:
        parts.append(tr("about {money}", money=money(costs.in_all, costs.currency)))
    return " · ".join(parts)


def before_run_words(rows: int, costs: Costs, limit: Limit) -> str:
    """The setup's line above Run routine: "200 rows · about 210 model calls · about $0.84 (a guess…) · asks you
    after 300 model calls"."""
    line = estimate_words(rows, costs, None) + " " + tr("(a guess from the task until the first row has run)")
    if limit.calls is not None:
        line += " · " + tr("asks you after {n} model calls", n=limit.calls)
    if limit.money is not None:
        line += " · " + tr("asks you once it has cost {money}", money=money(limit.money, costs.currency))
    return line


def limit_words(passed: LimitReached) -> str:
    """The limit the routine passed, and what it has cost."""
    costs = passed.costs
    if passed.what == "calls":
        return tr("It has made {n} model calls; your limit was {limit}.", n=costs.calls, limit=round(passed.limit))
    spent = money(costs.spent or 0.0, costs.currency)
    return tr("It has cost {spent}; your limit was {limit}.", spent=spent, limit=money(passed.limit, costs.currency))
