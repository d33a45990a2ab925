"""Risky moments that wait for the person: a page's confirm()/prompt()/beforeunload, an irreversible click.

A click is irreversible when the element's visible name reads as an action that cannot be undone (delete, pay,
transfer, unsubscribe, close the account...), in English or Simplified Chinese. Such a click needs the person's OK
unless the task, in the user's own words, asked for that very action on that very thing.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import BaseModel

from app.core.abort import AbortSignal
from app.core.page import DeclinedError, ToolError

# How long the person has to answer; then the answer is "no" (the page's dialog is cancelled, the click refused).
CONFIRM_TIMEOUT = 60.0
# A handler that overruns its own deadline is not waited for much longer.
_HANDLER_GRACE = 5.0
_NAME_MAX = 100


class ConfirmRequest(BaseModel):
    # "dialog": a page's confirm(), prompt() or beforeunload; "irreversible": a click on e.g. "Delete account".
    kind: Literal["dialog", "irreversible"]
    # What the person is asked about, in plain words (the page's own message is quoted, never obeyed).
    message: str
    dialog_type: str = ""  # confirm | prompt | beforeunload (kind "dialog")
    url: str = ""
    # The page's own words (the dialog's text, the element's name), unquoted, for a UI that words the question itself.
    quote: str = ""


# Answers True to allow, False to refuse. It must answer within its own deadline (refusing on time-out).
ConfirmHandler = Callable[[ConfirmRequest, AbortSignal], Awaitable[bool]]

_DETERMINER = r"(?:(?:my|your|our|the|this|that|these|all|all\s+the)\s+)?"
# Words that, right after "purchase" or "transfer", make it a noun naming a record or a page, not the act.
_RECORD_NOUN = (
    r"(?!\s+(?:history|histories|details?|summary|records?|list|log|status|settings|options|methods?|"
    r"info|information|receipts?|limits?|fees?)\b)"
)
# Chinese: "已删除" (deleted), "支付宝" (Alipay) and "付款记录" (payment records) are states and names, not acts.
_ZH_NOT_ACT_BEFORE = r"(?<![已被])"
_ZH_RECORD = r"(?!记录|历史|明细|方式|详情|说明|须知|设置|密码|宝|成功|完成)"

# Each kind of irreversible act, with the phrases that name it. A name may be checked against a task written in the
# other language, so both languages share the kinds.
_ACTS: dict[str, tuple[str, ...]] = {
    "delete": (
        r"\b(?:delete|remove|erase|destroy|wipe|purge)\b",
        r"\bempty\s+(?:the\s+)?(?:trash|bin|recycle\s+bin)\b",
        _ZH_NOT_ACT_BEFORE + r"(?:删除|移除|清空|销毁|抹除)",
    ),
    "pay": (
        r"\bpay\b",
        r"\b(?:buy|purchase)\b" + _RECORD_NOUN,
        r"\b(?:place|submit|confirm|complete)\s+" + _DETERMINER + r"(?:order|payment|purchase)\b",
        r"\border\s+now\b",
        r"\b(?:send|make)\s+(?:a\s+)?(?:payment|money)\b",
        _ZH_NOT_ACT_BEFORE + r"(?:支付|付款|购买|下单|结账|买单)" + _ZH_RECORD,
        r"提交订单",
    ),
    "transfer": (
        r"\btransfer\b" + _RECORD_NOUN,
        r"\bwire\s+(?:money|funds|transfer)\b",
        _ZH_NOT_ACT_BEFORE + r"(?:转账|汇款)" + _ZH_RECORD,
    ),
    "unsubscribe": (
        r"\bunsubscribe\b",
        r"\bcancel\s+" + _DETERMINER + r"(?:subscription|membership|plan)\b",
        _ZH_NOT_ACT_BEFORE + r"(?:取消订阅|退订|取消会员)",
    ),
    "close account": (
        r"\b(?:close|deactivate|terminate|cancel)\s+" + _DETERMINER + r"account\b",
        r"(?:注销|关闭|停用)(?:我的)?(?:账户|账号|帐户|帐号)",
        r"销户",
    ),
}
_PATTERNS = {kind: re.compile("|".join(phrases), re.IGNORECASE) for kind, phrases in _ACTS.items()}

# The same acts as the user words them in a task ("deleting", "removed", "bought"...): a task is the user's own text,
# so inflected forms count as asking.
_TASK_FORMS = {
    "delete": re.compile(
        r"\b(?:delet|remov|eras|destroy|wip|purg)\w*|\bempt(?:y|ied|ying)\b"
        r"|删除|移除|清空|销毁|抹除",
        re.IGNORECASE,
    ),
    "pay": re.compile(
        r"\b(?:pay|pays|paying|paid|buy|buys|buying|bought|purchas\w*|checkout|check\s+out)\b" + _RECORD_NOUN + "|"
        r"\b(?:place|submit|confirm|complete)\w*\s+" + _DETERMINER + r"order|"
        r"支付|付款|购买|下单|结账|买单|提交订单",
        re.IGNORECASE,
    ),
    "transfer": re.compile(r"\b(?:transfer\w*|wir(?:e|ed|ing))\b" + _RECORD_NOUN + "|转账|汇款", re.IGNORECASE),
    "unsubscribe": re.compile(
        r"\bunsubscrib\w*|\bcancel\w*\s+" + _DETERMINER + r"(?:subscription|membership|plan)"
        r"|取消订阅|退订|取消会员",
        re.IGNORECASE,
    ),
    "close account": re.compile(
        r"\b(?:clos|deactivat|terminat|cancel|delet|remov)\w*\s+"
        + _DETERMINER
        + r"account|(?:注销|关闭|停用|删除)(?:我的)?(?:账户|账号|帐户|帐号)|销户",
        re.IGNORECASE,
    ),
}

# Words of a button's name that do not change what it does: "Delete account permanently" deletes the account.
_FILLER = frozenset(
    "a an the this that these those my your our it its them me now today here please yes ok okay confirm continue "
    "permanently forever immediately instantly securely selected item items button and with for to from of in on "
    "at by".split()
)
_ZH_FILLER = (
    "永久",
    "立即",
    "马上",
    "立刻",
    "确认",
    "确定",
    "所选",
    "选中的",
    "选中",
    "此",
    "该",
    "我的",
    "按钮",
    "的",
    "吗",
)
_WORD = re.compile(r"[^\W\d_]+|\d[\d.,]*", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff]")


def irreversible_kinds(name: str) -> list[str]:
    """The kinds of irreversible act a visible name reads as ("delete", "pay"...); [] when it reads as none."""
    return [kind for kind, pattern in _PATTERNS.items() if pattern.search(name)]


def is_irreversible(name: str) -> bool:
    return bool(irreversible_kinds(name))


def task_asks_for(task: str, name: str) -> bool:
    """Whether the user's task asked for exactly what a click on ``name`` does.

    The task must ask for the same kind of act ("delete the customer Jane Doe" asks for a "Delete" button), and
    every word of the name beyond the act must be in the task too: that task does not ask for "Delete account" or
    "Delete all 120 customers". Amounts count only when the task names one ("pay the $120 invoice" does not allow
    "Pay $1,200"). A name that reads as no irreversible act needs no asking.
    """
    kinds = irreversible_kinds(name)
    if not all(_TASK_FORMS[kind].search(task) for kind in kinds):
        return False
    rest = name
    for kind in kinds:
        rest = _PATTERNS[kind].sub(" ", rest)
    return _object_in_task(rest, task)


def _object_in_task(rest: str, task: str) -> bool:
    task_words = {_stem(word) for word in _WORD.findall(task.lower())}
    task_numbers = {w for w in task_words if w[:1].isdigit()}
    for word in _WORD.findall(rest.lower()):
        if _CJK.search(word):
            if not _cjk_in_task(word, task.lower()):
                return False
        elif word[:1].isdigit():
            if task_numbers and _stem(word) not in task_numbers:
                return False
        elif word not in _FILLER and _stem(word) not in task_words:
            return False
    return True


def _cjk_in_task(run: str, task: str) -> bool:
    """A Chinese run has no spaces: what is left of it once filler is removed must appear in the task as it is."""
    parts = [run]
    for filler in _ZH_FILLER:
        parts = [piece for part in parts for piece in part.split(filler)]
    return all(part in task for part in parts if part)


def _stem(word: str) -> str:
    """Enough folding that "customers" matches "customer" and "1,200" matches "1200"."""
    if word[:1].isdigit():
        number = word.replace(",", "").rstrip(".")
        try:
            return f"{float(number):f}".rstrip("0").rstrip(".")
        except ValueError:
            return number
    for suffix in ("es", "s"):
        if len(word) > 3 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


async def confirm_irreversible_click(
    handler: ConfirmHandler | None, index: int, name: str, task: str, signal: AbortSignal
) -> None:
    """Ask the person before a click on ``name`` when it reads as irreversible and the task did not ask for it.

    Returns when the click may go ahead; raises ToolError (for the model to read) when nobody allowed it. The wait
    is bounded and ends at once when ``signal`` aborts (Stop).
    """
    if not is_irreversible(name) or task_asks_for(task, name):
        return
    shown = json.dumps(name[:_NAME_MAX], ensure_ascii=False)
    refused = (
        f"The user did not allow clicking [{index}] {shown}: it reads as an irreversible action that the task "
        "did not ask for. Do not try to do it another way; carry on with the rest of the task, or finish "
        "with done and say that this needs the user."
    )
    if handler is None:
        raise ToolError(refused)
    request = ConfirmRequest(kind="irreversible", message=f"The agent wants to click {shown}.", quote=name[:_NAME_MAX])
    try:
        allowed = await signal.race(asyncio.wait_for(handler(request, signal), CONFIRM_TIMEOUT + _HANDLER_GRACE))
    except TimeoutError:
        allowed = False
    if not allowed:
        raise DeclinedError(refused)
