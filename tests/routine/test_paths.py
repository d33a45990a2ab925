"""A routine's paths, one for every kind of row, and mended when the site changes (no browser: the paths are learned
from steps as data, as a row's model hands them over)."""

from __future__ import annotations

from app.core.page import ListedElement
from app.routine.path import RoutinePath, Taken, learn_path
from app.routine.paths import PathBook
from app.text.path_words import change_words, key_words, path_words, rows_words
from tests.routine.test_path import BOX, EMAIL, NAME, SAVE, checked

COLUMNS = ["name", "email", "plan", "news"]
PLAN = ListedElement(index=7, tag="select", name="Plan", attrs={"name": "plan", "label": "Plan"})
FORM = [NAME, EMAIL, PLAN, BOX, SAVE]
CUSTOMER = NAME.model_copy(update={"name": "Customer name", "attrs": {"name": "customer", "type": "text"}})


def row(name: str, plan: str = "Free", news: str = "no") -> dict[str, str]:
    return {"name": name, "email": f"{name.lower()}@x.test", "plan": plan, "news": news}


def path_of(
    number: int, values: dict[str, str], *, tick: bool = False, name: ListedElement = NAME, choose: bool = True
) -> RoutinePath:
    """``choose`` False: the list showed the row's plan already, and nothing was chosen in it."""
    form = [name, EMAIL, PLAN, BOX, SAVE]
    after = [name, EMAIL, PLAN, checked(BOX), SAVE]
    taken = [
        Taken("input_text", {"index": name.index, "text": values["name"]}, True, form, 1, form),
        Taken("input_text", {"index": 2, "text": values["email"]}, True, form, 0, form),
    ]
    if choose:
        taken.append(Taken("select_dropdown_option", {"index": 7, "text": values["plan"]}, True, form, 0, form))
    if tick:
        taken.append(Taken("click_element_by_index", {"index": 3}, True, form, 0, after))
    taken.append(Taken("click_element_by_index", {"index": 6}, True, after if tick else form, 0, after))
    path = learn_path(taken, number, values, COLUMNS, "Add the customer")
    assert path is not None
    return path


def test_a_row_of_another_kind_gets_a_path_of_its_own_and_each_row_follows_its_kinds() -> None:
    book = PathBook()
    first = row("Ana")  # no newsletter: the path ticks nothing, so {news} is a column it never used
    book.learned(path_of(1, first), first, None)
    assert book.choose(row("Bo")) is not None
    yes = row("Cy", news="yes")
    assert book.choose(yes) is None  # a yes row cannot follow it: the model does it, and learns
    known, change = book.learned(path_of(2, yes, tick=True), yes, None)
    assert change.origin == "added" and change.key == {"news": "yes"} and book.deciding == ["news"]
    assert book.choose(row("Di", news="yes")) is known
    assert book.choose(row("Ed", plan="Pro")) is book.paths[0]  # a no row still follows the first path
    assert key_words(book.key(book.paths[0])) == "Rows where {news} is no"
    assert book.serves(known, [(3, row("Fa", news="yes")), (4, row("Gu")), (5, row("Hy", news="Yes"))]) == [3, 5]
    assert path_words(known.path)[3] == "Tick the Newsletter checkbox when {news} says yes"


def test_a_row_of_another_kind_that_left_a_list_as_it_was_takes_the_choice_from_the_path_it_differs_from() -> None:
    """The first "yes" row's plan is the one the list shows already: its own steps choose no plan, and would make every
    "yes" row of another plan a row for the model again. The first path's choice, on the same list, fills the gap."""
    book = PathBook()
    first = row("Ana", plan="Pro")
    book.learned(path_of(1, first), first, None)
    yes = row("Cy", plan="Free", news="yes")
    known, change = book.learned(path_of(3, yes, tick=True, choose=False), yes, None)
    assert change.origin == "added" and known.path.fixed == {}
    assert [(s.action, s.toggle_column) for s in known.path.steps] == [
        ("input_text", None),
        ("input_text", None),
        ("click_element_by_index", "news"),
        ("select_dropdown_option", None),
        ("click_element_by_index", None),
    ]
    assert known.path.steps[3].input == {"text": "{plan}"}
    assert book.choose(row("Di", plan="Starter", news="yes")) is known


def test_a_replayed_row_the_model_completed_on_a_changed_form_mends_the_path_and_keeps_the_old_one() -> None:
    book = PathBook()
    first = row("Ana", plan="Pro", news="yes")
    old, _ = book.learned(path_of(1, first, tick=True), first, None)
    fourth = row("Dee", plan="Free")  # another plan, but the page differed before the plan was chosen
    new_path = path_of(4, fourth, tick=True, name=CUSTOMER)
    known, change = book.learned(new_path, fourth, old, at=0)
    assert change.origin == "mended" and old.replaced_by == 4 and book.live() == [known]
    assert (change.before, change.after) == (NAME.identity(), CUSTOMER.identity())
    assert book.choose(row("Eve", plan="Pro")) is known
    told = change_words(change.__class__(**{**change.__dict__, "rows": (5, 6, 7, 8, 9)}))
    assert told == "The site changed at row 4: “Name” is now “Customer name”. Rows 5–9 use the new path."


def test_a_choice_that_opened_a_field_after_the_path_chose_it_is_another_kind_of_row() -> None:
    book = PathBook()
    first = row("Ana", plan="Free")
    old, _ = book.learned(path_of(1, first), first, None)
    pro = row("Pat", plan="Pro")
    known, change = book.learned(path_of(3, pro), pro, old, at=3)  # taken over after the plan was chosen
    assert change.origin == "added" and change.key == {"plan": "pro"} and old.replaced_by is None
    assert book.choose(row("Quin", plan="Pro")) is known and book.choose(row("Ray", plan="Free")) is old
    assert book.choose(row("Sam", plan="Starter")) is None  # a choice no path was learned for: the model's
    assert key_words(change.key) == "Rows where {plan} is “pro”"


def test_a_path_saved_by_an_older_version_is_a_book_of_one() -> None:
    first = row("Ana")
    path = path_of(1, first)
    book = PathBook.read(path.model_dump_json())
    assert [known.path for known in book.live()] == [path] and book.choose(row("Bo")) is not None
    again = PathBook.read(book.model_dump_json())
    assert again == book


def test_rows_are_said_as_runs() -> None:
    assert rows_words([5, 6, 7, 9, 11, 12]) == "5–7, 9 and 11–12"
    assert rows_words([4]) == "4" and rows_words([]) == "none"


def test_a_mend_from_a_row_that_left_a_box_as_it_was_keeps_ticking_it_for_the_rows_that_want_it() -> None:
    book = PathBook()
    first = row("Ana", news="yes")
    old, _ = book.learned(path_of(1, first, tick=True), first, None)
    fourth = row("Dee", news="no")  # met the redesign, and wanted no newsletter: the model ticked nothing
    known, change = book.learned(path_of(4, fourth, name=CUSTOMER), fourth, old, at=0)
    assert change.origin == "mended" and known.path.fixed == {}
    assert [s.toggle_column for s in known.path.steps] == [None, None, None, "news", None]
    assert book.choose(row("Eve", news="yes")) is known
