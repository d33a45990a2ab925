"""What the listing used to miss (issue 36): icons painted by CSS, an unnamed icon's place in its card, each item's
words beside its own controls, controls only a script makes, trees of plain nested lists, icons inside words, and a
click refused because hovering restyled the element. Each page is read as the model reads it, and the element its
line names must do what it says when acted on by its index."""

from __future__ import annotations

import re

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from tests.browser.helpers import element_lines, index_of
from tests.browser.test_observation import state_of


def lines_of(content: str) -> list[str]:
    return [line.strip() for line in content.splitlines()]


def index_after(content: str, heading: str, *needles: str) -> int:
    """The index of the first element line after the text line ``heading`` containing every needle."""
    lines = lines_of(content)
    start = lines.index(f'"{heading}"')
    line = next(line for line in lines[start:] if line.lstrip("*").startswith("[") and all(n in line for n in needles))
    found = re.match(r"^\*?\[(\d+)\]", line)
    assert found is not None, line
    return int(found.group(1))


async def page_says(controller: PlaywrightPageController, signal: AbortSignal, words: str) -> bool:
    return f'"{words}"' in lines_of((await controller.get_browser_state(signal)).content)


async def test_icons_painted_by_css_are_named_by_their_image_class_id_or_a_tooltip_around_them(
    controller, signal, site
) -> None:
    content = await state_of(controller, signal, f"{site}/css_icons.html")
    index_of(content, "icon=send")  # an image as its ::before's content
    index_of(content, "<button icon=bold />")  # a rich-text editor's class
    index_of(content, 'icon="Attach a file"')  # the tooltip of the box that holds only it
    count = {name: sum(f"icon={name} " in line for line in element_lines(content)) for name in ("star", "reply")}
    assert count == {"star": 2, "reply": 2}  # its one word of class or id ("star sprite", id=reply)
    # Painted as a background (two), an icon font's class (the composer's discard).
    assert sum("icon=trash" in line for line in element_lines(content)) == 3
    await controller.click(index_after(content, "Alan Turing Machines", "icon=reply"), signal)
    assert await page_says(controller, signal, "Did reply on Alan")


async def test_an_unnamed_icon_says_where_it_is_in_its_card(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/css_icons.html")
    top = index_of(content, "icon=unnamed", 'at="top right of its card"')
    index_of(content, "icon=unnamed", 'at="bottom right of its card"')
    assert index_after(content, "Ada Lovelace Engines", "icon=unnamed") == top
    await controller.click(top, signal)
    assert await page_says(controller, signal, "Did mystery on Ada")


async def test_each_items_words_stay_beside_its_own_buttons(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/results.html")
    lines = lines_of(content)
    # The boxes that scroll carry no words of their own: their items' words are lines inside them, in order.
    boxes = [line for line in lines if "scrollable=" in line]
    assert len(boxes) == 2 and all(re.fullmatch(r'\[\d+\]<div scrollable="[^"]*" />', line) for line in boxes), boxes
    second = lines.index('"Duration: 19h 40m"')
    assert lines.index('"Depart: 1:30 PM LIM"') < second
    assert "Book flight for $652" in lines[second - 3] and "Book flight for $489" in lines[second + 1]
    grace = lines.index('"Grace @grace 3h"')
    assert lines[grace + 1] == '"Found a moth in the relay."' and "icon=reply" in lines[grace + 2]
    await controller.click(index_after(content, "Duration: 19h 40m", "<button"), signal)
    assert await page_says(controller, signal, "Booked flight 2")
    # The box is still the one the model saw when it acts on it, its words elsewhere in the listing.
    result = await controller.scroll(True, 1, index_of(content, "scrollable=", "0.6 below"), signal)
    assert result.startswith("Scrolled [")
    await controller.click(index_after(content, "Edsger @ewd 5h", "icon=like"), signal)
    assert await page_says(controller, signal, "Did like on post 2")


async def test_controls_a_script_wired_up_are_listed_and_say_why(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/script_click.html")
    up = index_of(content, "<span clickable=handler>+ />")  # onclick set as a property
    down = index_of(content, "<span clickable=handler>− />")  # onmousedown set as a property
    close = index_of(content, "<span clickable=symbol>× />")  # a listener nobody can see: the lone symbol says it
    index_of(content, "<span clickable=symbol>☆ />")
    index_of(content, "<span clickable=handler>Continue />")
    # A symbol inside a sentence is a word of it; the controls' words are not also page text.
    assert '"Price 5 + 2 fees, – see terms"' in lines_of(content)
    assert '"− +"' not in lines_of(content) and '"Continue"' not in lines_of(content)
    await controller.click(up, signal)
    await controller.click(up, signal)
    assert "value=3" in (await controller.get_browser_state(signal)).content
    await controller.click(down, signal)
    assert "value=2" in (await controller.get_browser_state(signal)).content
    await controller.click(close, signal)
    assert await page_says(controller, signal, "Closed the notice")


async def test_a_tree_of_plain_nested_lists_says_folder_or_file_open_or_closed(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/plain_tree.html")
    index_of(content, 'tree="open folder"', "level=1", "children=2", ">Documents />")
    taxes = index_of(content, 'tree="closed folder"', "level=2", "children=1", ">Taxes />")
    index_of(content, "tree=file", "level=2", ">Resume.docx />")
    index_of(content, "tree=file", "level=1", ">notes.txt />")
    assert "2024.pdf" not in content  # inside the closed folder
    assert '"Documents"' not in lines_of(content)  # a name is said once, on its line
    await controller.click(taxes, signal)
    content = (await controller.get_browser_state(signal)).content
    index_of(content, 'tree="open folder"', ">Taxes />")
    await controller.click(index_of(content, "tree=file", "level=3", ">2024.pdf />"), signal)
    assert await page_says(controller, signal, "Opened 2024.pdf")


async def test_icons_inside_words_are_written_as_their_names(controller, signal, site) -> None:
    content = await state_of(controller, signal, f"{site}/inline_icons.html")
    index_of(content, "<li>(disk icon) Save />")  # an icon font's class
    star = index_of(content, "<li>(star icon) Add />")  # an image's file
    index_of(content, "<li>(reply icon) Answer />")
    index_of(content, "<li>Add />")
    assert '"Press (trash icon) to throw a draft away."' in lines_of(content)
    await controller.click(star, signal)
    assert await page_says(controller, signal, "Did favourite")


async def test_a_suggestion_restyled_under_the_mouse_is_clicked_at_the_first_try(controller, signal, site) -> None:
    # Hovering gives the item a border and a background of its own (its "active" look), which used to make its words
    # split off and the click refused as "the element changed since you saw it"; the last one also scrolls the list.
    for typed, choice in (("Pa", "Patras"), ("Pa", "Pavia")):
        content = await state_of(controller, signal, f"{site}/hover_suggestions.html")
        await controller.input_text(index_of(content, "placeholder=City"), typed, signal)
        content = (await controller.get_browser_state(signal)).content
        result = await controller.click(index_of(content, f"<li>{choice} />"), signal)
        assert result.startswith("Clicked [") and result.endswith(choice)
        assert await page_says(controller, signal, f"Chose {choice}")
