"""What a routine will cost, before it runs and as its rows end, and its limit: pure arithmetic on typed values."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from app.core.types import Usage
from app.routine.cost import Meter, before_run, first_row_calls, limit_of, token_price
from app.routine.types import Limit, RowOutcome, RowStatus
from app.settings.model import Settings
from app.settings.presets import TokenPrice

PRICE = TokenPrice(0.40, 1.60, "$")


@dataclass
class InFlight:
    """A row in flight, as the meter reads it (RowModel's calls and usage)."""

    calls: int
    usage: Usage = field(default_factory=Usage)


def test_before_any_row_the_calls_are_one_learning_row_and_one_call_for_each_other_row() -> None:
    meter = Meter(price=PRICE, limit=Limit(), first_row=first_row_calls(5), replays=True)
    costs = meter.costs(left=200, learns=True)
    assert (costs.calls, costs.calls_in_all) == (0, 8 + 199)
    assert costs.spent is None  # no call yet
    assert costs.in_all == PRICE.of(3_000, 150) * 207  # a typical call's tokens, until calls tell theirs
    known_path = meter.costs(left=200, learns=False)
    assert known_path.calls_in_all == 200
    alone = Meter(price=None, limit=Limit(), first_row=8, replays=False).costs(left=10, learns=True)
    assert alone.calls_in_all == 80


def test_after_the_first_rows_the_estimate_is_theirs_and_the_money_follows_the_tokens() -> None:
    meter = Meter(price=PRICE, limit=Limit(), first_row=8, replays=True)
    meter.row_ended(RowOutcome(RowStatus.DONE, model_calls=10), Usage(prompt_tokens=90_000, completion_tokens=2_000))
    meter.row_ended(
        RowOutcome(RowStatus.DONE, model_calls=2, replayed=True), Usage(prompt_tokens=18_000, completion_tokens=400)
    )
    costs = meter.costs(left=198, learns=False)
    assert (costs.calls, costs.calls_in_all) == (12, 12 + 198 * 2)
    assert Meter(price=None, limit=Limit(), first_row=8, replays=True).costs(left=9, learns=True).in_all is None
    spent = (108_000 * 0.40 + 2_400 * 1.60) / 1_000_000
    assert costs.spent == spent and costs.currency == "$"
    assert costs.in_all is not None and abs(costs.in_all - spent / 12 * 408) < 1e-9


def test_the_limit_is_said_once_when_passed_then_no_more() -> None:
    meter = Meter(price=PRICE, limit=Limit(calls=10), first_row=8, replays=True)
    assert meter.passed(meter.costs(left=5, learns=True, in_flight=[InFlight(9)])) is None
    passed = meter.passed(meter.costs(left=5, learns=True, in_flight=[InFlight(4), InFlight(6)]))
    assert passed is not None and (passed.what, passed.limit, passed.costs.calls) == ("calls", 10, 10)
    assert meter.passed(meter.costs(left=5, learns=True, in_flight=[InFlight(30)])) is None  # the person let it go on
    money = Meter(price=PRICE, limit=Limit(money=0.05), first_row=8, replays=True)
    money.row_ended(RowOutcome(RowStatus.DONE, model_calls=8), Usage(prompt_tokens=100_000, completion_tokens=0))
    assert money.passed(money.costs(left=5, learns=False)) is None  # $0.04
    money.row_ended(RowOutcome(RowStatus.DONE, model_calls=1), Usage(prompt_tokens=30_000, completion_tokens=0))
    passed = money.passed(money.costs(left=4, learns=False))
    assert passed is not None and passed.what == "money"


def test_the_price_is_the_one_set_in_settings_else_a_known_providers_own_models() -> None:
    assert token_price(Settings()) == TokenPrice(0.40, 1.60, "$")  # OpenAI's gpt-4.1-mini
    assert token_price(Settings(model="gpt-5")) is None  # another model: not known
    assert token_price(Settings(provider="custom", base_url="http://127.0.0.1:1/v1", model="m")) is None
    set_here = Settings(provider="custom", base_url="http://127.0.0.1:1/v1", model="m", price_per_million_tokens=2)
    assert token_price(set_here) == TokenPrice(2, 2, "")


def test_the_time_left_is_each_kind_of_rows_own_once_one_ended() -> None:
    meter = Meter(price=None, limit=Limit(), first_row=8, replays=True)
    assert meter.seconds_left(left=10, learns=True, at_once=1) is None
    meter.row_ended(RowOutcome(RowStatus.DONE, model_calls=8, seconds=40.0), Usage())
    assert meter.seconds_left(left=10, learns=False, at_once=2) == 10 * 40 / 2  # replayed rows: as that one, for now
    meter.row_ended(RowOutcome(RowStatus.DONE, model_calls=1, seconds=6.0, replayed=True), Usage())
    assert meter.seconds_left(left=9, learns=False, at_once=1) == 9 * 6
    assert meter.seconds_left(left=1, learns=False, at_once=4) == 6  # no more at once than rows left


def test_the_money_counts_the_tokens_of_the_rows_still_in_flight() -> None:
    meter = Meter(price=PRICE, limit=Limit(money=0.05), first_row=8, replays=False)
    learning = InFlight(6, Usage(prompt_tokens=130_000, completion_tokens=0))  # one long row, not ended
    costs = meter.costs(left=3, learns=False, in_flight=[learning])
    assert costs.calls == 6 and costs.spent == 130_000 * 0.40 / 1_000_000
    passed = meter.passed(costs)
    assert passed is not None and passed.what == "money"  # the limit does not wait for the row to end


def test_the_limit_is_the_settings_and_one_of_money_without_a_price_is_refused() -> None:
    assert limit_of(Settings()) == Limit()
    assert limit_of(Settings(routine_max_calls=300, routine_max_cost=2.5)) == Limit(calls=300, money=2.5)
    unknown = Settings(provider="custom", base_url="http://127.0.0.1:1/v1", model="m", routine_max_cost=2.5)
    with pytest.raises(ValueError, match="Price per million tokens"):
        limit_of(unknown)  # a limit that cannot be kept is not ignored
    assert limit_of(unknown.model_copy(update={"price_per_million_tokens": 3})).money == 2.5


def test_calls_whose_tokens_were_not_told_cost_as_a_typical_call_so_a_limit_of_money_holds() -> None:
    meter = Meter(price=PRICE, limit=Limit(money=0.01), first_row=8, replays=True)
    meter.row_ended(RowOutcome(RowStatus.DONE, model_calls=8), Usage())  # a provider that tells no usage
    costs = meter.costs(left=5, learns=False)
    assert costs.spent == PRICE.of(3_000, 150) * 8
    assert meter.passed(costs) is not None


def test_before_run_the_first_row_learns_and_the_others_replay() -> None:
    costs = before_run(200, 5, Settings())
    assert (costs.calls, costs.calls_in_all, costs.currency) == (0, 8 + 199, "$")
    assert costs.in_all == TokenPrice(0.40, 1.60).of(3_000, 150) * 207
    assert before_run(200, 5, Settings(model="another")).in_all is None
