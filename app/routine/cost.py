"""What a routine costs: model calls and money so far, about how many in all, and the limit the person set.

Before any row has run, the calls are a guess from the template: a row that learns the path takes about one call per
column of the template and a few more (``first_row_calls``), a row that replays it one confirming call; the money, a
guess of a typical call's tokens (``TYPICAL_CALL``), where the model's price is known (``token_price``: set in
Settings, or a known provider's own model). Each row that ends teaches the estimate what its kind of row really
takes, and the tokens of the calls made so far give the money. The limit (a number
of calls, or an amount of money) is said once, when it is passed: the routine pauses and asks the person, who may let
it go on without it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from app.core.types import Usage
from app.routine.types import Costs, Limit, LimitReached, RowOutcome
from app.settings.model import Settings
from app.settings.presets import TokenPrice, preset

NO_LIMIT = Limit()
# A replayed row: one confirming call, unless the page differed and the model took part of the row over.
REPLAYED_ROW_CALLS = 1
# A row the model does alone: a step per field of the form (about one per column), the step that sends it, the
# confirming done, and a step or two to find its way.
_FIRST_ROW_EXTRA = 3
# A call as the model reads it, for the money before any call told its tokens: the fixed part (system prompt and tool
# schema, about 1,400 tokens), a form's listing (500 to 2,600) and the history so far; the answer, about 150.
TYPICAL_CALL = Usage(prompt_tokens=3_000, completion_tokens=150)
NO_PRICE = (
    "A limit of money needs the model's price, and that of {model} is not known: give it in Settings → Model → Price "
    "per million tokens (--price-per-million-tokens), or limit the model calls instead (--max-calls)."
)


def token_price(settings: Settings) -> TokenPrice | None:
    """The model's price: the one set in Settings, else the list price of a known provider's own model; None when
    neither is known."""
    if settings.price_per_million_tokens > 0:
        return TokenPrice(settings.price_per_million_tokens, settings.price_per_million_tokens)
    known = preset(settings.provider)
    same = settings.model == known.model and settings.base_url.rstrip("/") == known.base_url.rstrip("/")
    return known.price if same else None


def limit_of(settings: Settings) -> Limit:
    """The routine's limit in Settings (or the run's --max-calls, --max-cost); ValueError (plain words) for a limit
    of money while the model's price is not known: a limit that cannot be kept is refused, not ignored."""
    money = settings.routine_max_cost or None
    if money is not None and token_price(settings) is None:
        raise ValueError(NO_PRICE.format(model=settings.model))
    return Limit(calls=settings.routine_max_calls or None, money=money)


def before_run(rows: int, columns: int, settings: Settings) -> Costs:
    """About what ``rows`` rows of a template naming ``columns`` columns cost, before any row ran (the panel's line
    above Run routine): the first row learns the path, the others replay it."""
    meter = Meter(price=token_price(settings), limit=Limit(), first_row=first_row_calls(columns), replays=True)
    return meter.costs(left=rows, learns=True)


def first_row_calls(columns: int) -> int:
    """About how many calls a row takes when the model does it alone (before any row has shown it)."""
    return columns + _FIRST_ROW_EXTRA


def rows_ahead(rows: int, *, model_row: float, replayed_row: float, learns: bool, replays: bool) -> float:
    """About how many calls (or seconds) ``rows`` rows take, a row the model does alone taking ``model_row``, one
    that replays the path ``replayed_row``: each one the model's (``replays`` False), or one that learns the path
    (``learns``) and the rest replaying it."""
    if rows <= 0:
        return 0
    if not replays:
        return rows * model_row
    return (model_row if learns else replayed_row) + (rows - 1) * replayed_row


class Spending(Protocol):
    """A row in flight, as the meter reads it (RowModel): its model calls and their tokens so far."""

    calls: int
    usage: Usage


@dataclass
class _Ended:
    """The rows of one kind that ended, in sums: a routine of any length holds three numbers."""

    rows: int = 0
    calls: int = 0
    seconds: float = 0.0

    def add(self, calls: int, seconds: float) -> None:
        self.rows += 1
        self.calls += calls
        self.seconds += seconds

    def calls_each(self) -> float:
        return self.calls / self.rows if self.rows else 0.0

    def seconds_each(self) -> float:
        return self.seconds / self.rows if self.rows else 0.0


class Meter:
    """Fed by the runner: each row's calls and tokens as it ends, and the calls of the rows in flight."""

    def __init__(self, *, price: TokenPrice | None, limit: Limit, first_row: int, replays: bool) -> None:
        self._price = price
        self._limit = limit
        self._first_row = first_row
        self._replays = replays
        # The calls and seconds of the rows the model did alone, and of the rows that followed the path.
        self._model_rows = _Ended()
        self._replayed_rows = _Ended()
        self._calls = 0
        self._usage = Usage()
        self._told = False  # the limit was passed and said once: it no longer applies

    def row_ended(self, outcome: RowOutcome, usage: Usage) -> None:
        self._calls += outcome.model_calls
        self._usage += usage
        if outcome.model_calls:
            kind = self._replayed_rows if outcome.replayed else self._model_rows
            kind.add(outcome.model_calls, outcome.seconds)

    @property
    def calls(self) -> int:
        """The calls of the rows that ended."""
        return self._calls

    def costs(self, *, left: int, learns: bool, in_flight: Iterable[Spending] = ()) -> Costs:
        """``left``: the rows not ended yet (those ``in_flight`` included, with their calls and tokens so far);
        ``learns``: one of them is to learn the path."""
        in_flight = list(in_flight)
        calls = self._calls + sum(row.calls for row in in_flight)
        model_row = round(self._model_rows.calls_each()) or self._first_row
        replayed_row = round(self._replayed_rows.calls_each()) or REPLAYED_ROW_CALLS
        ahead = rows_ahead(left, model_row=model_row, replayed_row=replayed_row, learns=learns, replays=self._replays)
        in_all = max(calls, self._calls + round(ahead))
        told = sum((row.usage for row in in_flight), self._usage)
        typical = self._money(TYPICAL_CALL)
        # Calls whose tokens the provider did not tell cost as a typical call: a limit of money still holds.
        guessed = typical * calls if typical is not None and calls else None
        spent = self._money(told) if told.total_tokens else guessed
        per_call = spent / calls if spent is not None and calls else typical
        return Costs(
            calls=calls,
            calls_in_all=in_all,
            spent=spent,
            in_all=per_call * in_all if per_call is not None else None,
            currency=self._price.currency if self._price is not None else "",
        )

    def seconds_left(self, *, left: int, learns: bool, at_once: int) -> float | None:
        """About how long the rows not ended yet take, ``at_once`` at a time (None until a row has ended): each kind
        of row as long as those of its kind took so far (as the other kind, while none has ended)."""
        model_row = self._model_rows.seconds_each()
        replayed_row = self._replayed_rows.seconds_each()
        if not (model_row or replayed_row):
            return None
        ahead = rows_ahead(
            left,
            model_row=model_row or replayed_row,
            replayed_row=replayed_row or model_row,
            learns=learns,
            replays=self._replays,
        )
        return ahead / max(1, min(at_once, left))

    def passed(self, costs: Costs) -> LimitReached | None:
        """The limit, the first time ``costs`` pass it; never again after (the person lets the run go on, or it
        stops)."""
        limit = self._limit
        reached = None
        if limit.calls is not None and costs.calls >= limit.calls:
            reached = LimitReached("calls", limit.calls, costs)
        elif limit.money is not None and costs.spent is not None and costs.spent >= limit.money:
            reached = LimitReached("money", limit.money, costs)
        if reached is None or self._told:
            return None
        self._told = True
        return reached

    def _money(self, usage: Usage) -> float | None:
        if self._price is None:
            return None
        return self._price.of(usage.prompt_tokens, usage.completion_tokens)
