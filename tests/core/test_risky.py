"""Irreversible clicks: which visible names read as irreversible, when the task already asked for one, and the gate
in the click tool (asks the person; a refusal, no one to ask or a time-out is a tool error the model reads)."""

from __future__ import annotations

import asyncio

import pytest

from app.core.abort import AbortController, AbortError, AbortSignal
from app.core.page import ElementInfo
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import ConfirmRequest, irreversible_kinds, is_irreversible, task_asks_for
from app.core.tools.base import ToolContext, ToolResult, run_tool
from app.core.tools.page_tools import PAGE_TOOLS
from tests.fakes.page import FakePage
from tests.fakes.person import Person

CLICK = next(tool for tool in PAGE_TOOLS if tool.name == "click_element_by_index")


@pytest.mark.parametrize(
    "name",
    [
        "Delete",
        "Delete account permanently",
        "delete all 120 customers",
        "Remove all",
        "Remove",
        "Pay $120",
        "Pay now",
        "Buy now",
        "Purchase",
        "Complete purchase",
        "Place order",
        "Place your order",
        "Submit order",
        "Transfer $500",
        "Transfer funds",
        "Unsubscribe",
        "Close account",
        "Close my account",
        "Cancel subscription",
        "Deactivate account",
        "Empty trash",
        "Erase all data",
        "删除",
        "永久删除",
        "移除",
        "支付",
        "立即支付",
        "付款",
        "立即购买",
        "下单",
        "提交订单",
        "转账",
        "取消订阅",
        "退订",
        "注销账户",
        "注销我的账号",
        "关闭账户",
    ],
)
def test_irreversible_names(name: str) -> None:
    assert is_irreversible(name), name


@pytest.mark.parametrize(
    "name",
    [
        "Display",
        "Payment history",
        "Payments",
        "PayPal",
        "Removed items",
        "Deleted",
        "Purchase history",
        "Transfer history",
        "Save draft",
        "Cancel",
        "Close",
        "Account settings",
        "Order details",
        "Update address",
        "Buyer guide",
        "Transferred",
        "Orders",
        "支付宝",
        "付款记录",
        "已删除",
        "已支付",
        "购买记录",
        "转账记录",
        "保存",
        "取消",
        "账户设置",
        "订单详情",
    ],
)
def test_names_that_read_as_nothing_irreversible(name: str) -> None:
    assert not is_irreversible(name), name


def test_kinds_are_shared_by_both_languages() -> None:
    assert irreversible_kinds("Delete") == irreversible_kinds("删除") == ["delete"]
    assert irreversible_kinds("Buy now") == irreversible_kinds("立即购买") == ["pay"]


@pytest.mark.parametrize(
    ("task", "name"),
    [
        ("delete the customer Jane Doe", "Delete"),
        ("delete the customer Jane Doe", "Delete customer"),
        ("Delete my account", "Delete account permanently"),
        ("please close my account", "Close account"),
        ("remove the blue mug from my cart", "Remove"),
        ("remove the blue mug from my cart", "Remove from cart"),
        ("buy the red shoes", "Buy now"),
        ("pay the invoice", "Pay $120"),
        ("pay the $120 invoice", "Pay $120.00"),
        ("place the order for 3 chairs", "Place your order"),
        ("unsubscribe me from the newsletter", "Unsubscribe"),
        ("删除客户张三", "删除"),
        ("把张三从客户列表里删除", "删除客户"),
        ("删除客户张三", "Delete"),
        ("注销我的账户", "注销账户"),
        ("购买这本书", "立即购买"),
    ],
)
def test_the_task_asked_for_it(task: str, name: str) -> None:
    assert task_asks_for(task, name)


@pytest.mark.parametrize(
    ("task", "name"),
    [
        ("update the address", "Delete account"),
        ("update my address", "Delete account permanently"),
        ("delete the customer Jane Doe", "Delete account"),
        ("delete the customer Jane Doe", "Delete all 120 customers"),
        ("remove the blue mug from my cart", "Remove all"),
        ("pay the $120 invoice", "Pay $1,200"),
        ("look at my orders", "Place order"),
        ("find the payment history", "Pay now"),
        ("删除客户张三", "全部删除"),
        ("修改地址", "注销账户"),
        ("check the transfer history", "Transfer $500"),
    ],
)
def test_the_task_did_not_ask_for_it(task: str, name: str) -> None:
    assert not task_asks_for(task, name)


def click_context(
    page: FakePage, task: str, handler: Person | None, *, ask: bool = True, signal: AbortSignal | None = None
) -> ToolContext:
    return ToolContext(
        signal=signal or AbortSignal(),
        page=page,
        own_words=task,
        guardrails=Guardrails(confirm=handler, ask_before_irreversible=ask),
    )


def page_with(name: str) -> FakePage:
    page = FakePage()
    page.elements[2] = ElementInfo(tag="button", name=name)
    return page


async def test_an_irreversible_click_the_task_did_not_ask_for_is_refused_without_a_handler() -> None:
    page = page_with("Delete account permanently")
    result = await run_tool(CLICK, click_context(page, "update my address", None), CLICK.input_model(index=2))
    assert not result.ok
    assert result.text.startswith('❌ The user did not allow clicking [2] "Delete account permanently"')
    assert "Do not try to do it another way" in result.text
    assert page.actions == []


async def test_a_refusal_is_a_tool_error_and_an_allowance_clicks() -> None:
    page = page_with("Delete account permanently")
    refusing = Person(False)
    result = await run_tool(CLICK, click_context(page, "update my address", refusing), CLICK.input_model(index=2))
    assert not result.ok and result.text.startswith("❌ The user did not allow") and page.actions == []
    assert refusing.requests == [
        ConfirmRequest(
            kind="irreversible",
            message='The agent wants to click "Delete account permanently".',
            quote="Delete account permanently",
        )
    ]

    allowing = Person(True)
    result = await run_tool(CLICK, click_context(page, "update my address", allowing), CLICK.input_model(index=2))
    assert result == ToolResult("click 2") and page.actions == [("click", (2,))]


async def test_no_question_when_the_task_asked_or_the_setting_is_off_or_the_name_is_harmless() -> None:
    never = Person(False)
    page = page_with("Delete account permanently")
    assert await run_tool(
        CLICK, click_context(page, "delete my account", never), CLICK.input_model(index=2)
    ) == ToolResult("click 2")
    assert await run_tool(
        CLICK, click_context(page, "update my address", never, ask=False), CLICK.input_model(index=2)
    ) == ToolResult("click 2")
    harmless = page_with("Save draft")
    assert await run_tool(
        CLICK, click_context(harmless, "update my address", never), CLICK.input_model(index=2)
    ) == ToolResult("click 2")
    unknown = FakePage()  # no element_info: the controller reports the index itself
    assert await run_tool(CLICK, click_context(unknown, "x", never), CLICK.input_model(index=5)) == ToolResult(
        "click 5"
    )
    assert never.requests == []


async def test_stop_during_the_question_stops_at_once() -> None:
    page = page_with("Pay $120")
    held = Person(None)
    controller = AbortController()
    ctx = click_context(page, "update my address", held, signal=controller.signal)
    click = asyncio.ensure_future(run_tool(CLICK, ctx, CLICK.input_model(index=2)))
    await asyncio.wait_for(held.asked.wait(), 5)
    controller.abort("Task aborted")
    with pytest.raises(AbortError):
        await asyncio.wait_for(click, 1)
    assert page.actions == []


async def test_a_handler_that_never_answers_is_a_refusal_after_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.safety import risky

    monkeypatch.setattr(risky, "CONFIRM_TIMEOUT", 0.1)
    monkeypatch.setattr(risky, "_HANDLER_GRACE", 0.1)
    page = page_with("Pay $120")
    result = await asyncio.wait_for(
        run_tool(CLICK, click_context(page, "update my address", Person(None)), CLICK.input_model(index=2)), 5
    )
    assert not result.ok and result.text.startswith("❌ The user did not allow") and page.actions == []


# --- more verbs, more languages, money, negation (issue 20, items 5 and 7) ---------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Send", "send"),
        ("Send invitation", "send"),
        ("Checkout", "pay"),
        ("Proceed to checkout", "pay"),
        ("Confirm purchase", "pay"),
        ("Upgrade — $49/month", "pay"),
        ("Subscribe for 9,99 €", "pay"),
        ("Donate", "pay"),
        ("Withdraw", "transfer"),
        ("Cancel order", "unsubscribe"),
        ("Move to trash", "delete"),
        ("Discard", "delete"),
        ("Revoke access", "revoke"),
        ("Terminate instance", "revoke"),
        ("Supprimer le compte", "delete"),
        ("Payer maintenant", "pay"),
        ("Passer la commande", "pay"),
        ("Konto löschen", "delete"),
        ("Jetzt kaufen", "pay"),
        ("Zahlungspflichtig bestellen", "pay"),
        ("Eliminar cuenta", "delete"),
        ("Finalizar compra", "pay"),
        ("Excluir conta", "delete"),
        ("Cancelar assinatura", "unsubscribe"),
        ("Elimina account", "delete"),
        ("Acquista ora", "pay"),
        ("アカウントを削除", "delete"),
        ("購入する", "pay"),
        ("계정 삭제", "delete"),
        ("결제하기", "pay"),
        ("Удалить аккаунт", "delete"),
        ("Оплатить", "pay"),
        ("Отправить", "send"),
    ],
)
def test_irreversible_names_in_more_words_and_languages(name: str, kind: str) -> None:
    assert kind in irreversible_kinds(name), (name, irreversible_kinds(name))


@pytest.mark.parametrize(
    "name",
    [
        "Trash",
        "Sent",
        "Checkout options",
        "Orders",
        "Price list",
        "Einstellungen",
        "Paramètres",
        "支払い方法",
        "결제 내역",
    ],
)
def test_more_names_that_read_as_nothing_irreversible(name: str) -> None:
    assert not is_irreversible(name), (name, irreversible_kinds(name))


@pytest.mark.parametrize(
    ("task", "name"),
    [
        ("Check the settings. Do not delete the account.", "Delete account"),
        ("Check the settings but don't delete the account", "Delete account"),
        ("Never pay the invoice", "Pay"),
        ("If the invoice is overdue, pay the invoice", "Pay"),
        ("Pay the invoice only if it is overdue", "Pay"),
        ("Update the price to $49", "Pay $49"),
        ("Look at the billing page", "Pay now"),
        ("Ne supprime pas le compte", "Supprimer le compte"),
        ("Das Konto nicht löschen", "Konto löschen"),
        ("不要删除账户", "删除账户"),
        ("アカウントを削除しないで", "アカウントを削除"),
    ],
)
def test_a_negated_or_conditional_mention_never_asks(task: str, name: str) -> None:
    assert not task_asks_for(task, name)


@pytest.mark.parametrize(
    ("task", "name"),
    [
        ("Check the settings, then delete the account", "Delete account"),
        ("Do not change the email; delete the account", "Delete account"),
        ("Supprime le compte", "Supprimer le compte"),
        ("Send the invitation to Ada", "Send invitation"),
    ],
)
def test_a_plain_request_next_to_a_negation_still_asks(task: str, name: str) -> None:
    assert task_asks_for(task, name)


def test_an_unsure_act_on_a_payment_page_asks() -> None:
    from app.core.safety.risky import Act, _risky_name

    checkout = Act(how="click", names=["Continue"], page="https://shop.test/checkout Checkout — Shop")
    assert _risky_name(checkout, "Update my shipping address") == "Continue"
    assert _risky_name(checkout, "Buy the red shoes") is None
    elsewhere = Act(how="click", names=["Continue"], page="https://shop.test/profile Profile")
    assert _risky_name(elsewhere, "Update my shipping address") is None


def test_a_price_on_a_choice_is_what_it_costs_not_a_payment() -> None:
    from app.core.safety.risky import Act, _risky_name

    task = "Create the customer Jane Doe on the Pro plan"
    assert _risky_name(Act(how="choose", names=["Pro $49 / seat"]), task) is None
    assert _risky_name(Act(how="click", names=["Pro $49 / seat"], choice=True), task) is None
    assert _risky_name(Act(how="click", names=["Upgrade — $49"]), task) == "Upgrade — $49"
    assert _risky_name(Act(how="choose", names=["Delete account"]), task) == "Delete account"


def test_a_toggle_never_asks_whatever_its_words_and_the_button_that_sends_still_does() -> None:
    from app.core.safety.risky import Act, _risky_name

    task = "Add the customer Jane Doe"
    assert _risky_name(Act(how="click", names=["Send the newsletter"], choice=True, toggle=True), task) is None
    assert _risky_name(Act(how="click", names=["Delete the draft"], toggle=True), task) is None
    assert _risky_name(Act(how="click", names=["Send the newsletter"]), task) == "Send the newsletter"


@pytest.mark.parametrize(
    ("task", "name"),
    [
        ("Book the cheapest flight from LKE to MCE on 12/08/2016.", "Book flight for $452"),
        ("Find and book the shortest flight from Lima to Lisbon", "Book flight for €489"),
        ("Booking the first flight of the morning, please", "Book flight for 65 EUR"),
        ("Buy the first item in the list, the one dated 12/08/2016", "Buy now $40"),
        ("Book the flight for $452", "Book flight for $452.00"),
    ],
)
def test_a_task_that_asks_for_the_act_by_a_rule_is_no_unasked_payment(task: str, name: str) -> None:
    # The button's own verb is the act and the task asks for it; which flight is the task's rule (the cheapest, the
    # first), and its price never needs to be in the task: a date or a flight's number is no amount.
    assert task_asks_for(task, name)


@pytest.mark.parametrize(
    ("task", "name"),
    [
        ("Find the cheapest flight; do not book it", "Book flight for $452"),
        ("If the cheapest flight is under $500, book it", "Book flight for $452"),
        ("List the flights from Lima to Lisbon", "Book flight for $452"),
        ("Add the book Dune to my wishlist", "Book now $9.99"),  # a noun, not the act
        ("Book the flight for $400", "Book flight for $452"),  # an amount the task names is the one
        ("Book the cheapest hotel", "Book flight for $452"),  # what it books is still the task's
    ],
)
def test_a_price_asked_for_by_its_verb_keeps_the_negation_condition_and_amount_rules(task: str, name: str) -> None:
    assert not task_asks_for(task, name)


async def test_the_booking_asked_for_clicks_and_only_the_persons_words_ask_for_it() -> None:
    never = Person(False)
    page = page_with("Book flight for $452")
    task = "Book the cheapest flight from LKE to MCE on 12/08/2016."
    assert await run_tool(CLICK, click_context(page, task, never), CLICK.input_model(index=2)) == ToolResult("click 2")
    assert never.requests == []
    # Words that are not the person's (a routine's cell, an MCP client's task) ask for nothing.
    result = await run_tool(CLICK, click_context(page, "", never), CLICK.input_model(index=2))
    assert not result.ok and len(never.requests) == 1 and page.actions == [("click", (2,))]
