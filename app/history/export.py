"""A saved run as JSON, or as one self-contained HTML page (inline CSS, no scripts, no external assets) that
reads like the panel's timeline and follows the reader's light or dark preference."""

from __future__ import annotations

from datetime import datetime
from html import escape

from app.core.clean_text import valid_json, valid_text
from app.core.languages import LANGUAGES
from app.core.safety.secrets import mask_everywhere, masked_model
from app.core.types import (
    ErrorEvent,
    HistoricalEvent,
    ObservationEvent,
    RetryEvent,
    RunOutcome,
    StepEvent,
    UserTakeoverEvent,
)
from app.history.records import RunRecord, TaskRun
from app.text.counts import steps_count
from app.text.i18n import language, tr
from app.text.wording import (
    Reading,
    action_details,
    action_failed,
    describe_action,
    describe_outcome,
    displayable,
    evaluation_reading,
    failure_words,
    format_duration,
    format_tokens,
    plain_error,
    plain_observation,
    plain_retry,
    takeover_title,
)

# The agent's judgement as small inline pictures: emoji glyphs show as empty boxes where no emoji font is installed.
_MARK_PATHS = {
    Reading.SUCCESS: ("ok", "M4.5 8.2l2.3 2.3 4.7-5"),
    Reading.FAILURE: ("fail", "M5.2 5.2l5.6 5.6M10.8 5.2l-5.6 5.6"),
    Reading.UNKNOWN: ("stopped", "M6.1 6.2a1.9 1.9 0 1 1 2.6 1.8c-.5.2-.7.6-.7 1.1v.4M8 11.6v.1"),
}


def export_json(record: RunRecord) -> str:
    # Validating again drops any secret-looking setting, even from a record built by hand.
    return valid_json(_masked(record), indent=2)


def _masked(record: RunRecord) -> RunRecord:
    """A copy without any value a live secret vault or the process's API keys hold (a run saved before the
    secret was known is exported clean too)."""
    return masked_model(record, mask_everywhere)


# The badge's colour class for each way a run can end (the report's stylesheet has one rule per class).
_TONE = {
    RunOutcome.SUCCESS: "ok",
    RunOutcome.FAILED: "fail",
    RunOutcome.ERROR: "fail",
    RunOutcome.STOPPED: "stopped",
    RunOutcome.NEEDS_PERSON: "person",
}


def export_html(record: RunRecord) -> str:
    record = _masked(record)
    label, tone = describe_outcome(record.outcome), _TONE[record.outcome]
    title = record.tasks[0].task if record.tasks else tr("Run")
    facts = [_local(record.started_at), steps_count(record.steps)]
    model = record.settings.get("model")
    if record.model_called:
        facts.append(tr("{tokens} tokens", tokens=format_tokens(record.usage.total_tokens)))
        if model:
            facts.append(tr("model {model}", model=model))
    elif record.replay:  # the demo has its badge; neither called a model, so neither has a model or tokens
        facts.append(tr("Replayed from a recording"))
    demo = f'<span class="badge demo">{_e(tr("Replayed demo"))}</span>' if record.demo else ""
    tasks = "\n".join(_task_html(task, number) for number, task in enumerate(record.tasks, start=1))
    return f"""<!DOCTYPE html>
<html lang="{LANGUAGES[language()].html_lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Page Agent Desktop">
<title>{_e(tr("Page Agent run"))}: {_e(_short(title, 80))}</title>
<style>{_CSS}</style>
</head>
<body>
<header>
  <p class="kicker">{_e(tr("Page Agent run"))}</p>
  <h1>{_e(title)}</h1>
  <p class="facts"><span class="badge {tone}">{_e(label)}</span>{demo} {" · ".join(_e(f) for f in facts)}</p>
</header>
<main>
{tasks}
</main>
</body>
</html>
"""


def _task_html(task: TaskRun, number: int) -> str:
    heading = tr("Follow-up") if task.follow_up else tr("Task")
    label, tone = describe_outcome(task.outcome), _TONE[task.outcome]
    events = "\n".join(_event_html(event) for event in task.events)
    return f"""<section class="task">
  <h2><span class="muted">{_e(heading)} {number}</span> {_e(task.task)}</h2>
  <ol class="timeline">
{events}
  </ol>
  <div class="result {tone}">
    <p class="result-head"><span class="badge {tone}">{_e(label)}</span>
      <span class="muted">{_e(steps_count(task.steps))} · {_e(_local(task.finished_at))}</span></p>
    <div class="text">{_e(_result_text(task))}</div>
  </div>
</section>"""


def _result_text(task: TaskRun) -> str:
    """An error's result is the error's own message, shown in the report's language like the error itself."""
    error = next((e for e in reversed(task.events) if isinstance(e, ErrorEvent) and e.message == task.result), None)
    return plain_error(error) if error is not None else task.result


def _event_html(event: HistoricalEvent) -> str:
    match event:
        case StepEvent():
            return _step_html(event)
        case ObservationEvent():
            return _note("observation", tr("Observation"), plain_observation(event))
        case RetryEvent():
            return _note(
                "retry",
                tr("Retry {attempt} of {max}", attempt=event.attempt, max=event.max_attempts),
                plain_retry(event.message),
            )
        case ErrorEvent():
            return _note("error", tr("Error"), plain_error(event))
        case UserTakeoverEvent():
            lines = [
                tr("Before: {title} {url}", title=event.before_title, url=event.before_url),
                tr("After: {title} {url}", title=event.after_title, url=event.after_url),
            ]
            if event.note:
                lines.append(event.note)
            return _note("takeover", takeover_title(event), "\n".join(lines))


def _step_html(step: StepEvent) -> str:
    reflection = step.reflection
    rows: list[str] = []
    if reflection.evaluation_previous_goal:
        reading, text = evaluation_reading(reflection.evaluation_previous_goal)
        rows.append(_row(tr("Previous goal"), _plain(text), mark=_mark(reading)))
    if reflection.memory:
        rows.append(_row(tr("Memory"), _plain(reflection.memory)))
    if reflection.next_goal:
        rows.append(_row(tr("Next goal"), _plain(reflection.next_goal)))
    if action_failed(step):
        rows.append(_row(tr("Result"), failure_words(step)))
    meta = [format_duration(step.duration)]
    if step.usage.total_tokens:
        meta.append(tr("{tokens} tokens", tokens=format_tokens(step.usage.total_tokens)))
    return f"""    <li class="step">
      <p class="step-head"><span class="num">{step.step_index}</span>
        <strong>{_e(describe_action(step.action.name, step.action.input, step.action.target))}</strong>
        <span class="muted">{_e(" · ".join(meta))}</span></p>
      <dl>{"".join(rows)}</dl>
      <details><summary>{_e(tr("Details"))}</summary><pre>{_e(action_details(step))}</pre></details>
    </li>"""


def _plain(text: str) -> str:
    return displayable(text, emoji_font=False)


def _mark(reading: Reading) -> str:
    tone, path = _MARK_PATHS[reading]
    label = {Reading.SUCCESS: tr("Success"), Reading.FAILURE: tr("Failed"), Reading.UNKNOWN: tr("Unclear")}[reading]
    return (
        f'<svg class="mark {tone}" viewBox="0 0 16 16" width="16" height="16" role="img" '
        f'aria-label="{_e(label)}"><circle cx="8" cy="8" r="7.2"/><path d="{path}"/></svg>'
    )


def _row(label: str, value: str, *, mark: str = "") -> str:
    return f"<dt>{_e(label)}</dt><dd>{mark}{_e(value)}</dd>"


def _note(kind: str, label: str, text: str) -> str:
    return f'    <li class="note {kind}"><strong>{_e(label)}</strong><div class="text">{_e(text)}</div></li>'


def _e(text: object) -> str:
    # Valid here, where every text enters the page: one lone surrogate would make the whole file unwritable.
    return escape(valid_text(str(text)), quote=True)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _local(moment: datetime) -> str:
    return f"{moment.astimezone():%Y-%m-%d %H:%M}"


_CSS = """
:root {
  color-scheme: light dark;
  --bg: #f4f5f7; --surface: #ffffff; --border: #dfe2e8; --text: #1c2230; --muted: #667085;
  --accent: #3a66f0; --ok: #18a048; --fail: #d92d2d; --warn: #d07a06; --paused: #7a45e6; --neutral: #8a93a3;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #181a1f; --surface: #23262d; --border: #343842; --text: #e7e9ee; --muted: #9aa2b1;
    --accent: #6f93ff; --ok: #3cc46e; --fail: #f26a6a; --warn: #f0a23b; --paused: #a789fa; --neutral: #7d8595;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; padding: 32px 20px 64px; background: var(--bg); color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", sans-serif;
}
header, main { max-width: 860px; margin: 0 auto; }
h1 { font-size: 24px; margin: 4px 0 8px; white-space: pre-wrap; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 32px 0 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.kicker { margin: 0; color: var(--muted); text-transform: uppercase; letter-spacing: .06em; font-size: 12px; }
.facts { color: var(--muted); margin: 0; }
.muted { color: var(--muted); font-weight: 400; }
.badge {
  display: inline-block; padding: 1px 10px; border-radius: 999px; font-size: 12px; font-weight: 600;
  margin-right: 6px; color: var(--c); background: color-mix(in srgb, var(--c) 15%, transparent);
  border: 1px solid color-mix(in srgb, var(--c) 45%, transparent);
}
.ok { --c: var(--ok); } .fail { --c: var(--fail); } .stopped { --c: var(--neutral); } .demo { --c: var(--paused); }
.person { --c: var(--paused); }
.mark { vertical-align: -3px; margin-right: 6px; fill: none; stroke-width: 1.6; stroke-linecap: round; }
.mark circle { fill: color-mix(in srgb, var(--c) 14%, transparent); stroke: var(--c); }
.mark path { stroke: var(--c); }
details { margin-top: 6px; }
summary { color: var(--muted); font-size: 13px; cursor: pointer; }
pre {
  margin: 6px 0 0; padding: 8px 10px; border-radius: 8px; background: color-mix(in srgb, var(--muted) 10%, transparent);
  font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; white-space: pre-wrap;
  overflow-wrap: anywhere;
}
.timeline { list-style: none; margin: 0; padding: 0; }
.timeline > li {
  background: var(--surface); border: 1px solid var(--border); border-radius: 12px; padding: 12px 16px;
  margin: 0 0 10px;
}
.step-head { margin: 0 0 6px; display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.num {
  display: inline-block; min-width: 26px; text-align: center; border-radius: 8px; font-size: 12px; font-weight: 700;
  padding: 1px 6px; color: var(--accent); background: color-mix(in srgb, var(--accent) 14%, transparent);
}
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
dt { color: var(--muted); font-size: 13px; }
dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.note { border-left: 4px solid var(--c) !important; }
.note.observation { --c: var(--neutral); } .note.retry { --c: var(--warn); } .note.error { --c: var(--fail); }
.note.takeover { --c: var(--paused); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.result {
  border-radius: 12px; padding: 14px 16px; margin-top: 6px;
  border: 1px solid color-mix(in srgb, var(--c) 45%, transparent);
  background: color-mix(in srgb, var(--c) 9%, var(--surface));
}
.result-head { margin: 0 0 6px; }
@media print { body { background: #fff; } .timeline > li, .result { break-inside: avoid; } }
"""
