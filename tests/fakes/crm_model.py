"""A scripted model for the CRM test site (tests/fakes/crm_site.py), served by the fake model server: it reads the
row's quoted values from its task and the page from the prompt, and answers the next step a careful model would
take. Stateless: every answer follows from what the request shows, so rows in parallel share it.

The task it understands is ``TEMPLATE``: the row's values, quoted, in the order name, email, plan, start,
newsletter (a shorter one, for a path the person showed, is enough to confirm a saved row). It starts a customer
from the customer list's "New customer", never acts on a page it does not know, and never types a value that is not
the row's. One that ``misreads`` (as real models do misread a page's banner) takes the Saved page of a row that
followed the routine's path for one that did not save, and enters the row again from "New customer".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from app.routine.replay import REPLAYED_GOAL
from tests.fakes.llm_server import FakeResponse, agent_output, completion

TEMPLATE = (
    "Add the customer {name} with email {email} on plan {plan}, starting {start}, newsletter {newsletter}, "
    "in the CRM, and save it."
)
_LINE = re.compile(r"^\t*\*?\[(\d+)\](.*)$")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
# In the history of a row that replayed some of the path (each replayed step's goal).
_REPLAYED = "Next goal: " + REPLAYED_GOAL.split("{", 1)[0]


def user_text(body: dict[str, Any]) -> str:
    return str(next(m["content"] for m in body["messages"] if m["role"] == "user"))


def row_values(body: dict[str, Any]) -> list[str]:
    """The quoted values of the row's task, in the order the template names them."""
    request = user_text(body).split("<user_request>", 1)[1].split("</user_request>", 1)[0]
    task = request.split("\n\nThis task is row", 1)[0]
    return [json.loads(quoted) for quoted in _QUOTED.findall(task)]


def _elements(page: str) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2)) for line in page.splitlines() if (m := _LINE.match(line))]


def _find(elements: list[tuple[int, str]], *needles: str) -> tuple[int, str] | None:
    found = [(i, line) for i, line in elements if all(n in line for n in needles)]
    return found[0] if len(found) == 1 else None


def _reply(action: dict[str, Any], goal: str = "") -> FakeResponse:
    return FakeResponse(body=completion(arguments=agent_output(action, next_goal=goal)))


def crm_model(outputs: bool = False, misreads: bool = False) -> Callable[[dict[str, Any]], FakeResponse]:
    """``outputs``: the task asks for the customer number as data (--output-columns customer_id). ``misreads``: a
    row that replayed the path is never seen as saved: each Saved page sends the model to "New customer"."""

    def respond(body: dict[str, Any]) -> FakeResponse:
        text = user_text(body)
        page = text.split("<browser_state>", 1)[1]
        values = row_values(body)
        name = values[0] if values else ""  # a short template ("Add the customer {name}") only confirms a row
        elements = _elements(page)
        if "Saved customer" in page and misreads and _REPLAYED in text:
            again = _find(elements, "New customer")
            assert again is not None, page
            return _reply({"click_element_by_index": {"index": again[0]}}, "It was not saved: enter it again")
        if "Saved customer" in page:
            number = re.search(r"Customer number: (\d+)", page)
            done: dict[str, Any] = {"text": f"Saved {name}.", "success": True}
            if outputs:
                done["data"] = {"customer_id": number.group(1) if number else ""}
            return _reply({"done": done})
        if "Refused:" in page:
            # The page's words are one quoted line of the listing: '"Refused: that email is already a customer."'.
            line = next(line.strip() for line in page.splitlines() if "Refused:" in line)
            reason = json.loads(line).split("Refused:", 1)[1].strip()
            done = {"text": f"The CRM refused it: {reason}", "success": False}
            if outputs:
                done["data"] = {"customer_id": ""}
            return _reply({"done": done})
        if "Security check" in page:
            return _reply({"hand_off_to_user": {"reason": "The CRM asks a person to confirm this customer."}})
        name, email, plan, start, newsletter = values
        name_field = _find(elements, "name=name") or _find(elements, "name=customer_name")  # before, after a redesign
        email_field = _find(elements, "type=email")
        if name_field is None or email_field is None:
            new = _find(elements, "New customer")  # the customer list
            if new is not None:
                return _reply({"click_element_by_index": {"index": new[0]}}, "Open the new-customer form")
            return _reply({"done": {"text": "This is not the CRM's form.", "success": False}})
        steps: list[tuple[tuple[int, str] | None, str, dict[str, Any]]] = [
            (name_field, "input_text", {"text": name}),
            (email_field, "input_text", {"text": email}),
        ]
        for field, action, params in steps:
            assert field is not None
            if "value=" not in field[1]:
                return _reply({action: {"index": field[0], **params}})
        select = _find(elements, "<select")
        if select is not None and f"value={plan}" not in select[1]:
            return _reply({"select_dropdown_option": {"index": select[0], "text": plan}})
        date = _find(elements, "type=date")
        if date is not None and "value=" not in date[1]:
            return _reply({"input_text": {"index": date[0], "text": start}})
        box = _find(elements, "type=checkbox")
        wanted = newsletter.strip().lower() in ("yes", "y", "true", "1", "x")
        if box is not None and ("checked" in box[1]) != wanted:
            return _reply({"click_element_by_index": {"index": box[0]}})
        save = _find(elements, "<button", "Save")
        assert save is not None, page
        return _reply({"click_element_by_index": {"index": save[0]}}, "Save the customer")

    return respond
