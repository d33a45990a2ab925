"""The routine's public vocabulary: a row's status and outcome, the routine's options, its events and summary.

Everything the panel or the CLI shows comes from these typed values, never from English parsed back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from app.core.safety.risky import ConfirmRequest
from app.core.types import RunOutcome

if TYPE_CHECKING:
    from app.core.page import ElementIdentity
    from app.routine.path import RoutinePath


class RowStatus(StrEnum):
    """How a row stands: how its run ended (``RowStatus.of`` a ``RunOutcome``, under the word the results file has
    always stored), or one of the row's own (interrupted, skipped, running)."""

    DONE = "done"  # the agent finished and said the row's work succeeded (checked on the page)
    FAILED = "failed"  # the agent finished and said it did not succeed (the site refused, the data was wrong)
    # A captcha, a code or a question nobody was there to answer; or a row sent once whose site's answer the agent
    # read as a reason to send it again (``RowOutcome.unclear``).
    NEEDS_PERSON = "needs_person"
    STOPPED = "stopped"  # the person stopped the routine while the row ran, before it could send anything
    ERROR = "error"  # something else went wrong before the row could send anything: a limit, the model; its cells
    # In flight when the process or its browser died, or stopped / broken after an action that may submit its form
    # had begun (Tool.may_send): its data may have been sent, so it is never run again blindly.
    INTERRUPTED = "interrupted"
    SKIPPED = "skipped"  # not started: the routine was stopped first
    RUNNING = "running"  # in flight (only in the state store, and only while a process holds the routine)

    @classmethod
    def of(cls, outcome: RunOutcome) -> RowStatus:
        """A row whose run ended so."""
        match outcome:
            case RunOutcome.SUCCESS:
                return cls.DONE
            case RunOutcome.FAILED:
                return cls.FAILED
            case RunOutcome.NEEDS_PERSON:
                return cls.NEEDS_PERSON
            case RunOutcome.STOPPED:
                return cls.STOPPED
            case RunOutcome.ERROR:
                return cls.ERROR

    @property
    def ends_as(self) -> RunOutcome | None:
        """The outcome the row counts as where a routine is told in one word (its exit code): its run's, and for
        the row's own an interrupted row as an error (one to look at) and a skipped one as stopped (None: running)."""
        own = {RowStatus.INTERRUPTED: RunOutcome.ERROR, RowStatus.SKIPPED: RunOutcome.STOPPED}
        return own.get(self) or next((outcome for outcome in RunOutcome if RowStatus.of(outcome) is self), None)


# What a row's status makes of it on the next run of the same routine (an unclear row is as an interrupted one).
RETRIED = frozenset({RowStatus.NEEDS_PERSON, RowStatus.STOPPED, RowStatus.ERROR, RowStatus.SKIPPED})


class MaybeSent(StrEnum):
    """Why a row whose data may have reached the site ended before anyone knew whether it did (interrupted, or
    unclear): for a view to say so in its own words."""

    BROWSER_GONE = "browser_gone"  # its browser went away in the middle of the row
    STOPPED = "stopped"  # the person stopped the routine after an action that may send had begun
    ERROR = "error"  # it broke after an action that may send had begun
    ANSWER_UNCLEAR = "answer_unclear"  # it was sent, and the model's next step could have sent it again
    FOREIGN_KEYS = "foreign_keys"  # it was sent after keys nobody typed here reached its page


@dataclass(frozen=True)
class RowOutcome:
    status: RowStatus
    result: str = ""  # the agent's final words, or what went wrong in plain words
    steps: int = 0
    model_calls: int = 0
    seconds: float = 0.0
    browser: str = ""  # which browser ran it: "window 2", or a remote endpoint's address
    run: str = ""  # its entry in History ("" when none was saved)
    outputs: dict[str, str] = field(default_factory=dict)  # --output-columns, as the agent filled them
    replayed: bool = False  # the row followed the learned path (the model confirmed, or took over part of it)
    # needs_person after its data was sent, the agent wanting to send it again: run again only with retry_interrupted
    unclear: bool = False
    # Interrupted or unclear: why, when this run knows it (an outcome read back from the state does not say).
    maybe_sent: MaybeSent | None = None


@dataclass(frozen=True)
class Costs:
    """What a run has cost so far, and about what it will in all (money: None while no price or no tokens are
    known)."""

    calls: int = 0
    calls_in_all: int = 0
    spent: float | None = None
    in_all: float | None = None
    currency: str = ""


@dataclass(frozen=True)
class Limit:
    """The most a run may cost before it pauses and asks the person: model calls, money, or both (None: none)."""

    calls: int | None = None
    money: float | None = None


@dataclass(frozen=True)
class RoutineOptions:
    rows_file: Path
    template: str
    results_file: Path | None = None  # None: <rows name>-results.csv beside the rows file
    secret_columns: tuple[str, ...] = ()
    # Secret columns whose cells are one-time codes' setup keys: each row types the code of the moment.
    totp_columns: tuple[str, ...] = ()
    output_columns: tuple[str, ...] = ()
    retry_failed: bool = False
    retry_interrupted: bool = False
    replay: bool = True
    parallel: int = 1  # per browser: windows of the local profile, or pages of each remote endpoint
    endpoints: tuple[str, ...] = ()  # remote browsers (CDP http/ws, Playwright server ws); empty: the local profile
    start_url: str = ""  # each row starts here (the CLI's --url); "" : where the previous row left its window
    # An MCP client wrote the template and the start page: the sites they name get no secret.
    from_client: bool = False
    # Show me once: the first row is done by the person while the app records it, and becomes the path.
    teach: bool = False
    # The state's keys of rows that may have reached the site (interrupted, unclear) which the person checked and
    # chose to run again (the panel's "Check and run again…"): they run, the others like them do not.
    rerun: frozenset[str] = frozenset()

    def runs_again(self, outcome: RowOutcome, key: str) -> bool:
        """Whether a row that an earlier run ended so runs this time: one whose data may have reached the site
        (interrupted, or unclear) only when asked for."""
        if outcome.status == RowStatus.INTERRUPTED or outcome.unclear:
            return self.retry_interrupted or key in self.rerun
        return outcome.status in RETRIED or (outcome.status == RowStatus.FAILED and self.retry_failed)

    def results_path(self) -> Path:
        if self.results_file is not None:
            return self.results_file
        return self.rows_file.with_name(f"{self.rows_file.stem}-results.csv")


# --- events (RoutineRunner.on) ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowsPlanned:
    """At the start of a run: the rows it runs (in the order they will start), and the outcomes earlier runs left on
    the others, which stay as they are."""

    queued: tuple[int, ...]
    kept: dict[int, RowOutcome]


@dataclass(frozen=True)
class RowStarted:
    number: int  # the row's number in the file, from 1
    browser: str
    replay: bool  # it follows the learned path (else the model drives it, learning the path if there is none yet)


@dataclass(frozen=True)
class RowActivity:
    """What a row in flight does now, in plain words (the current step), for a live row table."""

    number: int
    words: str
    paused: bool = False  # it holds after its step because the person paused the routine
    at_limit: bool = False  # it holds because the routine passed its limit and asks the person


@dataclass(frozen=True)
class RowFinished:
    number: int
    outcome: RowOutcome


@dataclass(frozen=True)
class RowsFinished:
    """The rest of a run of a huge file, all ended alike (``skipped`` on a Stop): one event instead of one per row."""

    rows: int
    outcome: RowOutcome


RequestKind = Literal["hand_off", "unclear", "confirm", "limit"]


@dataclass(frozen=True)
class PersonRequest:
    """A row waiting for the person: ``kind`` hand_off (act in its browser, then continue), unclear (the row was
    sent and the model's next step could have sent it again, so the routine held it back: check the site, then
    continue or give it up) or confirm (a risky moment: allow it or not). Served one at a time, in the order they
    came (RoutineRunner.person_queue)."""

    id: int
    number: int
    kind: RequestKind
    # hand_off: what the agent says; unclear: the step held back, in plain words; confirm: the act (and its site);
    # limit: the limit passed. Masked.
    words: str
    browser: str
    question: ConfirmRequest | None = None  # confirm: the question as typed data, for words in the person's language


BrowserNoteKind = Literal["waiting", "busy", "paused", "reconnecting", "gone"]


@dataclass(frozen=True)
class BrowserNote:
    """What a remote browser endpoint is doing to the routine, in plain words: ``waiting`` in a Selenium Grid's queue,
    ``busy`` (it answered 429 or 503: asked again in ``seconds``), ``paused`` (several rows in a row failed there: no
    row starts there for ``seconds``, the others go on), ``reconnecting`` (its browser went away between rows), or
    ``gone`` (no more rows go there; ``words`` says why)."""

    browser: str  # the endpoint, as shown (never its token)
    kind: BrowserNoteKind
    words: str
    seconds: float = 0.0


@dataclass(frozen=True)
class RoutineProgress:
    """Counts for a progress bar, of this run: its rows, their outcomes by status so far, rows left, the time left,
    and its model calls and money (so far, and about in all); ``earlier``: the rows it leaves as earlier runs ended
    them."""

    total: int
    counts: dict[str, int]
    in_flight: int
    left: int
    seconds_left: float | None  # None until a row has finished
    paused: bool
    path_learned: bool
    earlier: int = 0
    costs: Costs = Costs()
    at_limit: bool = False  # paused because it passed its limit: it asks the person whether to go on


@dataclass(frozen=True)
class LimitReached:
    """The run passed its limit (``what``: of calls or of money, ``limit`` that number): it is paused and asks the
    person, or it stops when nobody can be asked."""

    what: Literal["calls", "money"]
    limit: float
    costs: Costs


@dataclass(frozen=True)
class RoutineSummary:
    rows: int
    counts: dict[str, int]
    results: Path
    model_calls: int
    ran: int  # rows run this time
    seconds: float
    stopped: bool = False  # the person stopped the routine (Stop, Esc, Ctrl+C, SIGTERM)


@dataclass(frozen=True)
class TeachStarted:
    """Show me once: the person is to do row ``number`` in its window (``browser``) and press Done. ``cells``: the
    row's values that are not secrets, in the file's order (for the words that name the row)."""

    number: int
    browser: str
    cells: tuple[str, ...]


@dataclass(frozen=True)
class TaughtStep:
    """One step the person took in the row being shown, as the agent's own action would be: ``action`` the tool,
    ``input`` its input without the element, ``target`` the element (None for a key, a scroll, an address)."""

    number: int
    action: str
    input: dict[str, object]
    target: ElementIdentity | None
    secret: bool  # typed into a password or code field: ``input`` never holds the value


@dataclass(frozen=True)
class PathShown:
    """The path learned from the row the person showed, waiting for Use this path or Show me again."""

    number: int
    path: RoutinePath


# A routine runner's events, each with its payload: rows_planned (RowsPlanned), row_started (RowStarted),
# row_activity (RowActivity), row_finished (RowFinished), rows_finished (RowsFinished: the rest of a huge file at
# once), person_needed / person_done (PersonRequest), progress (RoutineProgress), limit_reached (LimitReached),
# browser_note (BrowserNote), path_changed (PathChange); with Show me once, teach_started (TeachStarted),
# taught_step (TaughtStep) and path_shown (PathShown), answered through the runner's ``teaching``.
RoutineEvent = Literal[
    "rows_planned",
    "row_started",
    "row_activity",
    "row_finished",
    "rows_finished",
    "person_needed",
    "person_done",
    "progress",
    "limit_reached",
    "teach_started",
    "taught_step",
    "path_shown",
    "path_changed",
    "browser_note",
]
