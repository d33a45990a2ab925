"""One row: one ordinary run of the agent in one slot, with the row's values as quoted data in its task and its secret
cells in a vault of its own; what became of it, as a RowOutcome."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol

from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.page import ForeignKeys, PageController
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import ConfirmHandler
from app.core.safety.secrets import SecretVault
from app.core.safety.untrusted import quoted
from app.core.tools.control import DONE
from app.core.types import ExecutionResult, RunOutcome, StepEvent
from app.routine.plan import RoutinePlan
from app.routine.replay import RowModel
from app.routine.teach import Teachable
from app.routine.types import MaybeSent, RowOutcome, RowStatus
from app.text.hand_off import quoted_reason
from app.text.i18n import tr


def _not_again() -> str:
    return tr("It is not run again unless you ask for it with --retry-interrupted; check the site first.")


class RowSlot(Protocol):
    """What a row needs of the browser it runs in (app/routine/browsers.py's Slot)."""

    @property
    def name(self) -> str: ...

    @property
    def controller(self) -> PageController: ...

    @property
    def alive(self) -> bool: ...

    def use(self, guardrails: Guardrails) -> None: ...

    @property
    def foreign_keys(self) -> Sequence[ForeignKeys]: ...


class RunnerSlot(RowSlot, Teachable, Protocol):
    """A row's window as the runner uses it (Show me once shows a row in it too)."""


class RowHistory(Protocol):
    """Saves a row's run in History (app/history/recorder.py)."""

    async def finish(self) -> str:
        """Waits for the save; the run's id ("" when none was saved)."""
        ...


def row_guardrails(base: Guardrails, plan: RoutinePlan, number: int, confirm: ConfirmHandler | None) -> Guardrails:
    """The routine's guardrails with this row's secret cells added as named secrets (they replace saved secrets of
    the same name, for this row only). A secret that names no sites goes where the routine's own would: its start
    page's site, the allowed sites, and the sites the template's own words name (``RoutinePlan.own_words``)."""
    row = plan.table.rows[number - 1]
    mine = {name: row.values[column] for column, name in plan.secrets.items()}
    kept = [secret for secret in base.secrets.secrets if secret.name not in mine]
    given = [base.secrets.given(n, value, one_time_code=n in plan.one_time_codes) for n, value in mine.items()]
    vault = SecretVault([*kept, *given], default_sites=base.secrets.default_sites, sources=base.secrets.sources)
    return dataclasses.replace(base, secrets=vault, confirm=confirm)


def build_agent(
    model: RowModel, slot: RowSlot, config: AgentConfig, guardrails: Guardrails, person_present: bool
) -> Agent:
    slot.use(guardrails)
    agent = Agent(model, slot.controller, config, guardrails=guardrails, person_present=person_present)
    model.follow(agent)
    return agent


def outcome_of(
    result: ExecutionResult,
    model: RowModel,
    *,
    slot: RowSlot,
    seconds: float,
    run: str,
    gave_up: str,
    outputs: tuple[str, ...],
    sent: bool,
    unanswered: bool = False,
) -> RowOutcome:
    """What the row came to. A row whose browser died, or that was stopped or broke after it may have sent its data
    (``sent``), is interrupted; a hand-off nobody took needs a person, and so does a row that was sent and then
    handed over because the model would have sent it again (``unclear``); only the agent's own done says done or
    failed."""
    status = _status(result, slot, gave_up)
    unclear = bool(model.refused) and status == RowStatus.NEEDS_PERSON
    text = result.data
    maybe_sent: MaybeSent | None = None
    if status == RowStatus.INTERRUPTED:
        text = tr(
            "The browser this row ran in went away in the middle of the row ({browser}), so the row's form may or may "
            "not have been submitted. Check the site; run again with --retry-interrupted to redo it.",
            browser=slot.name,
        )
        maybe_sent = MaybeSent.BROWSER_GONE
    elif sent and status in (RowStatus.STOPPED, RowStatus.ERROR):
        if status == RowStatus.STOPPED:
            maybe_sent = MaybeSent.STOPPED
            text = tr(
                "The routine was stopped after this row may have sent its data (an action that can submit a form had "
                "begun)."
            )
        else:
            maybe_sent = MaybeSent.ERROR
            text = tr(
                "{error}. This came after the row may have sent its data (an action that can submit a form had begun).",
                error=_first_line(result.data),
            )
        text += " " + _not_again()
        status = RowStatus.INTERRUPTED
    elif unclear:
        text, maybe_sent = f"{model.refused} {_not_again()}", MaybeSent.ANSWER_UNCLEAR
    elif gave_up and status == RowStatus.NEEDS_PERSON:
        said = quoted_reason(gave_up)
        text = (
            tr(
                "Nobody took this row when the agent handed it over, so the routine went on without it; it is tried "
                "again next run. The agent had said: {said}",
                said=said,
            )
            if unanswered
            else tr(
                "You gave this row up when the agent handed it to you, so it was not finished; it is tried again next "
                "run. The agent had said: {said}",
                said=said,
            )
        )
    elif status == RowStatus.DONE and slot.foreign_keys:  # someone typed into the row's window: its data may be wrong
        status, field = RowStatus.NEEDS_PERSON, slot.foreign_keys[0]
        text = tr(
            "Keys the agent did not type reached the page: {field} held {holds} after it typed {typed}. The site may "
            "have saved the row so: check it there.",
            field=field.field,
            holds=quoted(field.holds),
            typed=quoted(field.typed),
        )
        if sent:  # the site may hold the row as it was garbled: never sent again blindly
            unclear, maybe_sent = True, MaybeSent.FOREIGN_KEYS
            text = f"{text} {_not_again()}"
    return RowOutcome(
        status=status,
        result=text,
        steps=result.steps,
        model_calls=model.calls,
        seconds=round(seconds, 1),
        browser=slot.name,
        run=run,
        outputs=_outputs(result, outputs) if status in (RowStatus.DONE, RowStatus.FAILED) else {},
        replayed=model.replayed_steps > 0,
        unclear=unclear,
        maybe_sent=maybe_sent,
    )


def cut_short(browser: str) -> RowOutcome:
    """A row in flight when the routine ended on a fault of the program: it may or may not have sent its data, so it
    is never run again blindly (never ``done``)."""
    said = tr(
        "The routine ended on an error while this row was running, so its form may or may not have been submitted."
    )
    return RowOutcome(RowStatus.INTERRUPTED, f"{said} {_not_again()}", browser=browser, maybe_sent=MaybeSent.ERROR)


def _status(result: ExecutionResult, slot: RowSlot, gave_up: str) -> RowStatus:
    """The run's outcome as the row's, but a hand-off given up (a stop) needs a person, and a row whose browser died
    before the agent ended it is interrupted."""
    outcome = result.outcome
    if gave_up and outcome is RunOutcome.STOPPED:
        return RowStatus.NEEDS_PERSON
    if not slot.alive and outcome in (RunOutcome.STOPPED, RunOutcome.ERROR):
        return RowStatus.INTERRUPTED
    return RowStatus.of(outcome)


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or ["no words"])[0].rstrip(".")


def _outputs(result: ExecutionResult, columns: tuple[str, ...]) -> dict[str, str]:
    done = next(
        (e for e in reversed(result.history) if isinstance(e, StepEvent) and e.action.name == DONE),
        None,
    )
    data: Any = done.action.input.get("data") if done is not None else None
    if not isinstance(data, dict):
        return {}
    return {column: str(data.get(column, "")) for column in columns}
