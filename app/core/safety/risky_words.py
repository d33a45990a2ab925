"""Which words name an irreversible act, and when the user's task plainly asked for one (pure text, no page).

A name reads as irreversible when it names an act that cannot be undone (deleting, paying or buying, a price on a
button, transferring or withdrawing money, sending, cancelling a subscription or an order, revoking, closing an
account), in the languages a SaaS user meets: English, French, German, Spanish, Portuguese, Italian, Russian,
Japanese, Korean and Simplified Chinese. The kinds are shared by every language, so a name in one language may be
checked against a task written in another.

A task asks for an act only where it plainly says so: a mention that is negated ("do not delete the account") or
conditional ("if it is overdue, pay it") never counts. A name that pays only by its price ("Book flight for $65") is
asked for by a task that plainly asks for its own verb ("Book the cheapest flight"), whichever flight the task's rule
picks; an amount never needs to be in the task, but one the task names must be the name's.
"""

from __future__ import annotations

import re

_DET = r"(?:(?:my|your|our|the|this|that|these|all|all\s+the)\s+)?"
# Words that, right after "purchase" or "transfer", make it a noun naming a record or a page, not the act.
_RECORD_NOUN = (
    r"(?!\s+(?:history|histories|details?|summary|records?|list|log|status|settings|options|methods?|"
    r"info|information|receipts?|limits?|fees?)\b)"
)
# Chinese: "已删除" (deleted), "支付宝" (Alipay) and "付款记录" (payment records) are states and names, not acts.
_ZH_NOT_ACT = r"(?<![已被])"
_ZH_RECORD = r"(?!记录|历史|明细|方式|详情|说明|须知|设置|密码|宝|成功|完成)"
# A price on a button ("Pay $49", "Upgrade — 9,99 €/month", "¥1,200"): paying, whatever the verb.
_PRICE = (  # the currency only: the amount stays in the name, to be compared with the task's
    r"(?:[$€£¥₹₩₽]|\b(?:USD|EUR|GBP|CHF|JPY|CNY|RUB|KRW|BRL)\b)(?=\s?\d)|"
    r"(?<=\d)\s?(?:[$€£¥₹₩₽]|円|元|руб|\b(?:USD|EUR|GBP|CHF|JPY|CNY|RUB|KRW|BRL)\b)"
)

# Each kind of irreversible act, with the phrases that name it on a button, a link, an option or a menu item.
_NAMES: dict[str, tuple[str, ...]] = {
    "delete": (
        r"\b(?:delete|remove|erase|destroy|wipe|purge|discard)\b",
        r"\b(?:empty|move\s+to)\s+(?:the\s+)?(?:trash|bin|recycle\s+bin)\b",
        r"\b(?:supprimer|supprimez|effacer|effacez|détruire|vider\s+la\s+corbeille)\b",
        r"\b(?:löschen|lösche|entfernen|entferne|vernichten|verwerfen|papierkorb\s+leeren)\b",
        r"\b(?:eliminar|elimina|borrar|borra|suprimir|descartar|vaciar\s+(?:la\s+)?papelera)\b",
        r"\b(?:excluir|exclua|apagar|apague|remover|esvaziar\s+(?:a\s+)?lixeira)\b",
        r"\b(?:eliminare|cancella|cancellare|rimuovi|rimuovere|scarta|svuota\s+(?:il\s+)?cestino)\b",
        r"(?<!\w)(?:удалить|удалите|удали|стереть|очистить\s+корзину)(?!\w)",
        r"削除|消去|破棄|ゴミ箱に移動|ゴミ箱を空に",
        r"삭제|제거|폐기|휴지통\s?비우기",
        _ZH_NOT_ACT + r"(?:删除|移除|清空|销毁|抹除|丢弃|移到回收站)",
    ),
    "pay": (
        r"\bpay\b",
        r"\b(?:buy|purchase)\b" + _RECORD_NOUN,
        r"\b(?:place|submit|confirm|complete)\s+" + _DET + r"(?:order|payment|purchase)\b",
        r"\b(?:order\s+now|donate)\b",
        r"\bcheck\s?out\b" + _RECORD_NOUN,
        r"\b(?:send|make)\s+(?:a\s+)?(?:payment|money)\b",
        _PRICE,
        r"\b(?:payer|acheter|commander|régler|faire\s+un\s+don)\b|\b(?:passer|valider)\s+(?:la\s+)?commande\b",
        r"\b(?:bezahlen|zahlen|kaufen|bestellen|spenden)\b|\bkauf\s+abschließen\b",
        r"\b(?:pagar|comprar|donar|doar)\b|\b(?:realizar|hacer|fazer)\s+(?:el\s+|o\s+)?pedido\b",
        r"\b(?:finalizar|confirmar)\s+(?:la\s+|a\s+)?compra\b",
        r"\b(?:paga|pagare|acquista|acquistare|compra|ordina|dona)\b|\b(?:effettua|conferma)\s+(?:l'|l’)?ordine\b",
        r"(?<!\w)(?:оплатить|купить|заказать|пожертвовать|оформить\s+заказ)(?!\w)",
        r"支払う|支払い(?!方法|履歴)|購入(?!履歴)|注文を確定|注文する|決済(?!方法)|寄付",
        r"결제(?!\s?수단|\s?내역)|구매(?!\s?내역)|주문하기|기부",
        _ZH_NOT_ACT + r"(?:支付|付款|购买|下单|结账|买单|捐款|捐赠)" + _ZH_RECORD,
        r"提交订单",
    ),
    "transfer": (
        r"\btransfer\b" + _RECORD_NOUN,
        r"\b(?:wire\s+(?:money|funds|transfer)|withdraw)\b",
        r"\b(?:virer|transférer|faire\s+un\s+virement|retirer\s+de\s+l'argent)\b",
        r"\b(?:überweisen|abheben)\b",
        r"\b(?:transferir|retirar|sacar)\b",
        r"\b(?:trasferisci|trasferire|preleva|prelevare)\b",
        r"(?<!\w)(?:перевести|вывести\s+средства|снять\s+деньги)(?!\w)",
        r"振込|送金|出金",
        r"송금|이체|출금",
        _ZH_NOT_ACT + r"(?:转账|汇款|提现)" + _ZH_RECORD,
    ),
    "send": (
        r"\bsend\b(?!\s+(?:a\s+)?(?:payment|money)\b)",
        r"\b(?:envoyer|senden|absenden|verschicken|enviar|invia|inviare)\b",
        r"(?<!\w)отправить(?!\w)",
        r"送信",
        r"보내기|전송",
        _ZH_NOT_ACT + r"发送",
    ),
    "unsubscribe": (
        r"\bunsubscribe\b",
        r"\bcancel\s+" + _DET + r"(?:subscription|membership|plan|order|booking|reservation)\b",
        r"\b(?:se\s+désabonner|désabonner|résilier|annuler\s+(?:la\s+commande|l'abonnement|l’abonnement))\b",
        r"\b(?:abbestellen|kündigen|stornieren)\b",
        r"\b(?:darse\s+de\s+baja|cancelar\s+(?:la\s+|a\s+)?(?:suscripción|assinatura|inscrição|pedido))\b",
        r"\b(?:disiscriviti|disdici|annulla\s+(?:l'|l’)?(?:iscrizione|ordine|abbonamento))\b",
        r"(?<!\w)(?:отписаться|отменить\s+(?:подписку|заказ))(?!\w)",
        r"購読解除|配信停止|解約|注文をキャンセル",
        r"구독\s?취소|수신\s?거부|해지|주문\s?취소",
        _ZH_NOT_ACT + r"(?:取消订阅|退订|取消会员|取消订单)",
    ),
    "revoke": (
        r"\b(?:revoke|terminate)\b",
        r"\b(?:révoquer|widerrufen|revocar|revogar|revoca|revocare|rescindir)\b",
        r"(?<!\w)(?:отозвать|аннулировать|расторгнуть)(?!\w)",
        r"失効",
        r"철회",
        r"吊销|撤销授权|终止",
    ),
    "close account": (
        r"\b(?:close|deactivate|terminate|cancel)\s+" + _DET + r"account\b",
        r"\b(?:fermer|clôturer)\s+(?:mon\s+|le\s+)?compte\b",
        r"\bkonto\s+(?:schließen|kündigen|deaktivieren)\b",
        r"\b(?:cerrar|encerrar|fechar)\s+(?:mi\s+|minha\s+|a\s+|la\s+)?(?:cuenta|conta)\b",
        r"\bchiud(?:i|ere)\s+(?:il\s+)?(?:mio\s+)?(?:account|conto)\b",
        r"(?<!\w)закрыть\s+(?:аккаунт|счёт|счет)(?!\w)",
        r"退会|アカウントを削除",
        r"회원\s?탈퇴|탈퇴",
        r"(?:注销|关闭|停用)(?:我的)?(?:账户|账号|帐户|帐号)",
        r"销户",
    ),
}
_PATTERNS = {kind: re.compile("|".join(phrases), re.IGNORECASE) for kind, phrases in _NAMES.items()}
# For a choice (an option, a radio button, a tab): a price on it is what the choice costs ("Pro $49 / seat" in a plan
# drop-down), not a payment; the act that pays comes later.
_CHOICE_PATTERNS = {
    kind: re.compile("|".join(p for p in phrases if p is not _PRICE), re.IGNORECASE) for kind, phrases in _NAMES.items()
}

# The same acts as the user words them in a task, inflected ("deleting", "bought", "supprimez"): a task is the
# user's own text, so any form counts as asking, and so do the names themselves.
_TASKS: dict[str, str] = {
    "delete": r"\b(?:delet|remov|eras|destroy|wip|purg|discard|supprim|effac|détrui|lösch|entfern|vernicht|verwerf|"
    r"elimin|suprim|descart)\w*|\bempt(?:y|ied|ying)\b|\b(?:borr(?:ar|a|e|ado)|exclu(?:ir|a|i|ído|ida)|"
    r"apag(?:ar|a|ue|ou|ado)|cancell(?:a|are|ato|ate)|rimuov\w*|scart(?:a|are|ato))\b|(?<!\w)(?:удал|стер)\w*",
    "pay": r"\b(?:pay|pays|paying|paid|buy|buys|buying|bought|purchas\w*|checkout|check\s+out|donat\w*)\b"
    + _RECORD_NOUN
    + r"|\b(?:place|submit|confirm|complete)\w*\s+"
    + _DET
    + r"order|\b(?:pay(?:er|ez|é)|pai(?:e|ement|ements)|achet\w*|achat\w*|command(?:er|ez|e|é|ons)|bezahl\w*|"
    r"zahl\w*|kauf\w*|bestell\w*|spende\w*|pag(?:ar|a|o|ue|ou|ando|ado|are|ato|hi|amento)|"
    r"compr(?:ar|a|o|e|ei|ou|ando|ado|are|ato)|donar|doar|donare|pedido|acquist\w*|ordin(?:a|are|ato))\b"
    r"|(?<!\w)(?:оплат|куп[иля]|закаж|пожертв)\w*",
    "transfer": r"\b(?:transfer\w*|wir(?:e|ed|ing)|withdr[ae]w\w*|vir(?:er|ez|ement|ements|é)|transf[eé]r\w*|"
    r"überw\w*|abheb\w*|retir(?:ar|er|ez|ado)|sac(?:ar|a|ou)|trasfer\w*|prelev\w*|bonific\w*)\b"
    + _RECORD_NOUN
    + r"|(?<!\w)(?:перевед|перевест|вывест|выведи|сними|снять)\w*",
    "send": r"\b(?:send\w*|sent|envo(?:yer|yez|ie|yé)|absend\w*|verschick\w*|envi(?:ar|e|a|ou|ado)|"
    r"invi(?:a|are|ato))\b|(?<!\w)отправ\w*",
    "unsubscribe": r"\bunsubscrib\w*|\bcancel\w*\s+"
    + _DET
    + r"(?:subscription|membership|plan|order|booking|reservation)|\b(?:désabonn\w*|résili\w*|annul\w*|"
    r"abbestell\w*|kündig\w*|storn\w*|baja|cancelar|disiscri\w*|disdi\w*)\b|(?<!\w)(?:отпис|отмен)\w*",
    "revoke": r"\b(?:revok\w*|revoc\w*|terminat\w*|révoqu\w*|widerruf\w*|revog\w*|rescind\w*)\b"
    r"|(?<!\w)(?:отозв|аннулир|расторг)\w*",
    "close account": r"\b(?:clos|deactivat|terminat|cancel|delet|remov)\w*\s+"
    + _DET
    + r"account|\b(?:ferm|clôtur)\w*\s+(?:mon\s+|le\s+)?compte|\bkonto\s+(?:schließ|kündig|deaktivier|lösch)\w*"
    r"|\b(?:cerr|encerr|fech|chiud)\w*\s+(?:\w+\s+){0,2}(?:cuenta|conta|account|conto)"
    r"|(?<!\w)закр\w*\s+(?:аккаунт|сч[её]т)",
}
_CJK_TASKS: dict[str, str] = {
    "delete": r"删除|移除|清空|销毁|抹除|丢弃|削除|消去|破棄|삭제|제거|폐기",
    "pay": r"支付|付款|购买|下单|结账|买单|提交订单|捐|支払|購入(?!履歴)|注文(?!履歴)|決済|寄付"
    r"|결제|구매|주문(?!\s?내역)|기부",
    "transfer": r"转账|汇款|提现|振込|送金|出金|송금|이체|출금",
    "send": r"发送|送信|보내|전송",
    "unsubscribe": r"取消订阅|退订|取消会员|取消订单|購読解除|配信停止|解約|キャンセル"
    r"|구독\s?취소|수신\s?거부|해지|주문\s?취소",
    "revoke": r"吊销|撤销|终止|失効|철회",
    "close account": r"(?:注销|关闭|停用|删除)(?:我的)?(?:账户|账号|帐户|帐号)|销户|退会|アカウント|탈퇴",
}
# A name's own words count as asking too ("Supprimer le client"), except a price: "set the price to $49" asks for
# no payment.
_TASK_FORMS = {
    kind: re.compile(
        "|".join([_TASKS[kind], _CJK_TASKS[kind], *(p for p in _NAMES[kind] if p is not _PRICE)]), re.IGNORECASE
    )
    for kind in _NAMES
}

# What makes a mention of an act no request for it: a negation just before it (or, in Japanese and Korean, just
# after the verb), or a condition anywhere in its sentence.
_SENTENCE = re.compile(r"[.;!?\n。；！？]+")
_CLAUSE = re.compile(r"[,:，、：]|\b(?:but|and\s+then|then|mais|aber|pero|mas|ma|но)\b", re.IGNORECASE)
_NEGATION_BEFORE = re.compile(
    r"(?:\b(?:not|never|no|without|avoid|avoiding|dont|ne|n|pas|jamais|sans|nicht|kein\w*|nie|niemals|ohne|nunca|"
    r"sin|jamás|não|nao|sem|non|mai|senza)\b|n't|n’t|(?<!\w)(?:не|нельзя|никогда|без)(?!\w)|不|别|勿|不要|禁止|切勿|"
    r"无需|不用|无须)(?:\W+\w+){0,3}\W*$",
    re.IGNORECASE,
)
_NEGATION_AFTER = re.compile(r"^\s*(?:し)?(?:ない|ないで|するな|禁止|하지\s?마|하지\s?않|않|말고|금지)")
_CONDITION = re.compile(
    r"\b(?:if|unless|whether|in\s+case|only\s+when|si|sauf\s+si|wenn|falls|ob|caso|se|se\s+for)\b|(?<!\w)если(?!\w)|"
    r"如果|若是|假如|要是|的话|場合|なら|たら|경우",
    re.IGNORECASE,
)


def irreversible_kinds(name: str, choice: bool = False) -> list[str]:
    """The kinds of irreversible act a name reads as ("delete", "pay"...); [] when it reads as none. ``choice``: the
    name is a choice's (an option), on which a price is no payment."""
    patterns = _CHOICE_PATTERNS if choice else _PATTERNS
    return [kind for kind, pattern in patterns.items() if pattern.search(name)]


def task_asks_for(task: str, name: str, choice: bool = False) -> bool:
    """Whether the user's task plainly asked for exactly what acting on ``name`` does.

    The task must ask, neither negated nor on a condition, for the same kind of act ("delete the customer Jane Doe"
    asks for a "Delete" button), and every word of the name beyond the act must be in the task too: that task does
    not ask for "Delete account" or "Delete all 120 customers". A name that pays only by its price is asked for by its
    own verb ("Book the cheapest flight" asks for "Book flight for $65"). Amounts count only when the task names one
    ("pay the $120 invoice" does not allow "Pay $1,200"; a date or a flight number is no amount). A name that reads as
    no irreversible act needs no asking.
    """
    kinds = irreversible_kinds(name, choice)
    verb = _price_only_verb(name, kinds)
    by_verb = verb is not None and _plainly_asks(task, verb, True)
    if not all(_plainly_asks(task, _TASK_FORMS[kind]) or (kind == "pay" and by_verb) for kind in kinds):
        return False
    asked_amounts = {_stem(amount) for amount in _amounts(task)}
    if asked_amounts and not {_stem(amount) for amount in _amounts(name)} <= asked_amounts:
        return False
    rest = name if asked_amounts else _AMOUNT.sub(" ", name)
    if verb is not None:
        rest = _LEADING_WORD.sub(" ", rest, count=1)  # the act itself, which the task asked for in any form
    for kind in kinds:
        rest = _PATTERNS[kind].sub(" ", rest)
    return _object_in_task(rest, task)


def asks_for_kind(task: str, kind: str) -> bool:
    """Whether the task plainly asks for some act of ``kind`` (for an act whose name does not say what it does)."""
    return _plainly_asks(task, _TASK_FORMS[kind])


def _plainly_asks(task: str, forms: re.Pattern[str], verb: bool = False) -> bool:
    """Whether some sentence of the task asks for an act in one of ``forms`` with no negation or condition on it
    (``verb``: nor a determiner making the word a noun)."""
    for sentence in _SENTENCE.split(task):
        if _CONDITION.search(sentence):
            continue
        for mention in forms.finditer(sentence):
            if verb and _NOUN_BEFORE.search(sentence[: mention.start()]):
                continue
            clause = _CLAUSE.split(sentence[: mention.start()])[-1]
            if not _NEGATION_BEFORE.search(clause) and not _NEGATION_AFTER.match(sentence[mention.end() :]):
                return True
    return False


# --- a price on a button: the act is the button's own verb -------------------------------------------------------

# An amount of money: a number with its currency before or after it.
_CURRENCY = r"[$€£¥₹₩₽]|\b(?:USD|EUR|GBP|CHF|JPY|CNY|RUB|KRW|BRL)\b"
_AMOUNT = re.compile(
    rf"(?:{_CURRENCY})\s?(\d[\d.,]*)|(\d[\d.,]*)\s?(?:{_CURRENCY}|円|元|руб|\b(?:dollars?|euros?|pounds?|yen|yuan)\b)",
    re.IGNORECASE,
)
# Before a verb's mention, these make it a noun ("the book", "my order"): no request for the act.
_NOUN_BEFORE = re.compile(
    r"\b(?:a|an|the|this|that|these|those|my|your|our|their|his|her|its|some|any|each|every|no)\s+$", re.IGNORECASE
)
_LEADING_WORD = re.compile(r"^\W*([^\W\d_]{3,})\b")


def _amounts(text: str) -> list[str]:
    return [m[1] or m[2] for m in _AMOUNT.finditer(text)]


def _price_only_verb(name: str, kinds: list[str]) -> re.Pattern[str] | None:
    """For a name that reads as paying only by its price ("Book flight for $65"): the forms of its own verb, its
    first word, as a task says it ("book", "booking"). None for any other name."""
    if "pay" not in kinds or _CHOICE_PATTERNS["pay"].search(name):
        return None
    first = _LEADING_WORD.match(name)
    if first is None or first[1].lower() in _FILLER:
        return None
    return re.compile(rf"\b{re.escape(first[1])}(?:s|es|ed|d|ing)?\b", re.IGNORECASE)


# Words of a name that do not change what it does: "Delete account permanently" deletes the account.
_FILLER = frozenset(
    "a an the this that these those my your our it its them me now today here please yes ok okay confirm continue "
    "permanently forever immediately instantly securely selected item items button and with for to from of in on "
    "at by le la les l un une mon ma mes votre vos du des de et maintenant der die das den dem ein eine mein meine "
    "jetzt und el los las mi mis tu su ahora y o os um uma meu minha agora e il lo gli i mio mia ora ed sì".split()
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
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


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
    """A CJK run has no spaces: what is left of it once filler is removed must appear in the task as it is."""
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


# --- where unsure: a page about paying or closing an account ------------------------------------------------------

# Words that go on with whatever the page is about ("Continue", "Confirm", "Weiter"): on a checkout or an
# account-deletion page they commit to it.
_COMMITTING = re.compile(
    r"^\W*(?:continue|confirm|submit|proceed|next|finish|complete|ok|okay|yes|i\s+agree|agree|done|"
    r"continuer|confirmer|valider|suivant|weiter|bestätigen|fortfahren|continuar|confirmar|siguiente|próximo|"
    r"continua|conferma|avanti|продолжить|подтвердить|далее|続ける|確定|確認|次へ|계속|확인|다음|继续|确认|确定|下一步|提交)\b",
    re.IGNORECASE,
)
_PAGE_KINDS = {
    "pay": re.compile(
        r"check\s?out|payment|/pay\b|billing|purchase|paiement|zahlung|kasse|pago|pagamento|оплат|お支払|決済|결제|"
        r"支付|付款|结账|收银台",
        re.IGNORECASE,
    ),
    "close account": re.compile(
        r"(?:delete|close|deactivate|cancel)[\s_-]*(?:my[\s_-]*)?account|account[\s_-]*(?:deletion|closure)|"
        r"supprimer[\s_-]*(?:mon[\s_-]*)?compte|konto[\s_-]*löschen|eliminar[\s_-]*cuenta|excluir[\s_-]*conta|退会|"
        r"탈퇴|注销",
        re.IGNORECASE,
    ),
}


def unsure_kinds(name: str, page: str) -> list[str]:
    """The kinds a committing name ("Continue", "Confirm") takes on from a page about paying or closing an account
    (``page``: its address and title); [] elsewhere, and for any other name."""
    if not _COMMITTING.search(name):
        return []
    return [kind for kind, pattern in _PAGE_KINDS.items() if pattern.search(page)]
