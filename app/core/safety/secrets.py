"""Named secrets: the model sees ``<secret>name</secret>``; the value exists only at the moment of typing.

The vault fills placeholders just before ``input_text`` types, and masks every value it knows (a named secret, or a
password typed without a placeholder) in any text on its way out: prompts, events, results, files, logs. Masking
also catches the forms a value takes inside JSON and URLs, and a value a page or a prompt clipped with "…".

A secret may also be made at the moment of typing by its ``SecretSource``: a one-time code from a setup key
(one_time_codes.py), a password manager's entry (app/password_managers.py). What the source was made from (the key,
the reference) is masked from the start; each value it makes is masked from the moment it is made.

Every live vault, and every API key handed to ``hide_everywhere``, is also masked by ``mask_everywhere``: the sinks
that belong to no one agent (the log, the cassette, the CLI's output) use it.
"""

from __future__ import annotations

import json
import re
import threading
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar
from urllib.parse import quote, quote_plus

from pydantic import BaseModel, SecretStr

from app.core.abort import AbortSignal
from app.core.errors import ToolError
from app.core.safety.navigation import NavigationPolicy, site_of, sites_named_in

# A secret's name: what the task and the model write between <secret> and </secret>.
SECRET_NAME = re.compile(r"^[a-z0-9_-]{1,64}$")
# Shorter values would mask ordinary words everywhere (and the masking would give them away).
MIN_SECRET_LENGTH = 4
# What a password typed without a placeholder is called from then on: typed_password, typed_password_2, ...
TYPED_PASSWORD = "typed_password"
# What an API key becomes: it is never typed, so it needs no name.
HIDDEN = "••••"
# A name for "a page without a host": a secret limited to it can be typed nowhere (.invalid never resolves).
_NOWHERE = "nowhere.invalid"
# How the task and the model write a secret (and how the panel knows one to show by its name).
PLACEHOLDER = re.compile(r"<secret>\s*([^<>]{0,80}?)\s*</secret>", re.IGNORECASE)
# Longer values are masked whole; a clipped start of them ("…") only up to here, to keep the pattern small.
_CLIP_PREFIX_MAX = 200
# A piece of a value this long or longer is masked wherever it appears ("the value minus its first character").
PIECE_MIN = 8
# What may stand between the characters of a value spelled out ("p a s s", "p-a-s-s").
_SPACING = r"[\s\-_.·,/|]{1,3}"
# What stands between the words of ordinary text.
_WORD_GAP = re.compile(r"[\s\-_'’.,]+")

M = TypeVar("M", bound=BaseModel)


def placeholder(name: str) -> str:
    return f"<secret>{name}</secret>"


def plain_words(text: str) -> bool:
    """Whether ``text`` reads as ordinary words: letters only, each word written as words are (lower case,
    Capitalised or UPPER CASE), between spaces or punctuation; no digit, no symbol, no case mixed inside a word."""
    words = [word for word in _WORD_GAP.split(text) if word]
    return bool(words) and all(
        word.isalpha() and (word.islower() or word.isupper() or word.istitle() or word.lower() == word.upper())
        for word in words
    )


def check_secret(name: str, value: str) -> None:
    """ValueError, in plain words, for a name outside [a-z0-9_-] or a value too short to be masked reliably."""
    if not SECRET_NAME.match(name):
        raise ValueError(
            f'"{name[:40]}" is not a usable secret name: use 1 to 64 lower-case letters, digits, "_" '
            'or "-" (for example "crm_password").'
        )
    if value and len(value) < MIN_SECRET_LENGTH:
        raise ValueError(
            f'The secret "{name}" is shorter than {MIN_SECRET_LENGTH} characters: it could not be told '
            "apart from ordinary text, so it could not be kept out of prompts and logs."
        )


@dataclass
class Attempts:
    """When one vault (one run, one row) had a source make its value, on the source's own clock, oldest first."""

    times: list[float] = field(default_factory=list)


class SecretSource(Protocol):
    """A secret's value made at the moment of typing and never kept: a one-time code, a password manager's entry.
    The composition root builds them (app/secret_sources.py): app/core runs no program."""

    def hidden(self) -> tuple[str, ...]:
        """What of the source itself must never be shown (a setup key, as given and as a site prints it); never
        ordinary words (a manager's reference names a vault and an item), which masking would garble everywhere."""
        ...

    async def value(self, signal: AbortSignal, attempts: Attempts) -> str:
        """The value to type now. ToolError (naming no value) when there is none; HandOffNeeded when only the
        person can help (a locked vault, a code refused twice)."""
        ...


class SecretSources(Protocol):
    """How a value the person gave becomes a source (app/secret_sources.py)."""

    def source(self, name: str, value: str, *, one_time_code: bool = False) -> SecretSource | None:
        """The source ``value`` names (a manager's reference, an otpauth:// link; with ``one_time_code``, a setup key
        as well), or None for a value that is itself. ValueError in plain words that never quote the value."""
        ...


@dataclass(frozen=True)
class Secret:
    name: str
    # Empty: the secret is known by name but has no value on this computer (not in the keyring). With a source:
    # what the person gave (the setup key, the reference), never typed itself.
    value: SecretStr
    # Host patterns (as in app/core/safety/navigation.py) of the pages it may be typed on; empty: the vault's
    # default sites (SecretVault.default_sites).
    domains: tuple[str, ...] = ()
    # Learnt from a field it was typed into (remember_typed), not given by the person: a page can steer what the
    # model types, so such a value masks what came from a page or the model, never the person's or the app's words.
    learned: bool = False
    # Makes the value at the moment of typing (a one-time code, a password manager's entry); None: ``value`` is it.
    source: SecretSource | None = None


class _Masker:
    """One compiled pattern that replaces each of many values (and their JSON/URL forms) by its replacement."""

    def __init__(self, given: Iterable[tuple[str, str]]) -> None:
        values = [(value, replacement) for value, replacement in given if value]
        pieces: list[tuple[int, str]] = []
        self._replacement: dict[str, str] = {}
        self._checks: list[tuple[re.Pattern[str], str]] = []
        clipped: list[tuple[int, str]] = []
        for value, replacement in values:
            for form in _forms(value):
                piece = re.escape(form)
                if len(form) < MIN_SECRET_LENGTH:
                    piece = rf"(?<!\w){piece}(?!\w)"  # a short password: only where it stands alone
                pieces.append((len(form), piece))
                self._replacement.setdefault(form.casefold(), replacement)
                self._checks.append((re.compile(piece, re.IGNORECASE), replacement))
            if len(value) > MIN_SECRET_LENGTH:
                start = _clipped_start(value)
                clipped.append((len(value), start))
                self._checks.append((re.compile(start, re.IGNORECASE), replacement))
            if len(value) >= MIN_SECRET_LENGTH:
                spaced = _SPACING.join(re.escape(char) for char in value[:_CLIP_PREFIX_MAX])
                clipped.append((len(value), spaced))
                self._checks.append((re.compile(spaced, re.IGNORECASE), replacement))
        # Longest first: a value that starts another value must not win; whole values before clipped starts.
        ordered = [p for _, p in sorted(pieces, key=lambda item: -item[0])]
        ordered += [p for _, p in sorted(clipped, key=lambda item: -item[0])]
        self._pattern = re.compile("|".join(ordered), re.IGNORECASE) if ordered else None
        self._pieces = _Pieces(values)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def mask(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pieces.mask(self._pattern.sub(self._replace, text))

    def _replace(self, match: re.Match[str]) -> str:
        found = match.group(0)
        replacement = self._replacement.get(found.casefold())
        if replacement is not None:
            return replacement
        return next((r for check, r in self._checks if check.fullmatch(found)), HIDDEN)


class _Pieces:
    """Masks any run of PIECE_MIN or more characters of a value (its tail, its middle) where it appears in a text,
    unless the text there is ordinary words that run on past it ("-secret-" in "--secret-columns": another word that
    shares letters with the value, which masking would garble and give away).

    Such a run always holds one of the value's blocks of PIECE_MIN // 2 characters that start at a multiple of that
    length, so only those blocks are looked for (str.find: a regex alternation of every window costs a hundred times
    more); a block found is widened as far as it goes on matching the value on either side, and masked when that
    reaches PIECE_MIN characters."""

    _BLOCK = PIECE_MIN // 2

    def __init__(self, values: Iterable[tuple[str, str]]) -> None:
        self._at: dict[str, list[tuple[str, int, str]]] = {}
        for value, replacement in values:
            folded = value.casefold()
            if len(folded) != len(value):
                folded = value  # folding changes its length: compared as it is
            if len(folded) < PIECE_MIN:
                continue
            for start in range(0, len(folded) - self._BLOCK + 1, self._BLOCK):
                self._at.setdefault(folded[start : start + self._BLOCK], []).append((folded, start, replacement))

    def mask(self, text: str) -> str:
        if not self._at or len(text) < PIECE_MIN:
            return text
        folded = text.casefold()
        if len(folded) != len(text):
            folded = text
        spans: list[tuple[int, int, str]] = []
        for block, places in self._at.items():
            at = folded.find(block)
            while at >= 0:
                for value, start, replacement in places:
                    span = _widen(folded, at, value, start, self._BLOCK)
                    if span[1] - span[0] >= PIECE_MIN and not _inside_words(text, *span):
                        spans.append((*span, replacement))
                at = folded.find(block, at + 1)
        if not spans:
            return text
        out: list[str] = []
        last = 0
        for begin, end, replacement in sorted(spans):
            if end <= last:
                continue
            if begin >= last:
                out += [text[last:begin], replacement]
            last = end
        out.append(text[last:])
        return "".join(out)


def _inside_words(text: str, begin: int, end: int) -> bool:
    """Whether text[begin:end] is ordinary words that a word of the text runs on past (a letter or digit right
    before or after it): then it is part of other words, not the value. A piece that stands on its own, or holds a
    digit or a symbol, is the value's."""
    runs_on = (begin > 0 and text[begin - 1].isalnum()) or (end < len(text) and text[end].isalnum())
    return runs_on and plain_words(text[begin:end])


def _widen(text: str, at: int, value: str, start: int, length: int) -> tuple[int, int]:
    """The span around text[at:at+length] (value[start:start+length]) over which text goes on matching value."""
    begin, end, back, ahead = at, at + length, start, start + length
    while begin > 0 and back > 0 and text[begin - 1] == value[back - 1]:
        begin, back = begin - 1, back - 1
    while end < len(text) and ahead < len(value) and text[end] == value[ahead]:
        end, ahead = end + 1, ahead + 1
    return begin, end


def _forms(value: str) -> set[str]:
    """The value, and how it reads inside a JSON string (either escaping) or a URL."""
    return {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        quote(value, safe=""),
        quote_plus(value),
    }


def _clipped_start(value: str) -> str:
    """A pattern for the first MIN_SECRET_LENGTH+ characters of ``value`` cut off by an ellipsis ("abcd…")."""
    # Each further character is optional, up to all but the last (the whole value is matched as itself).
    optional = value[MIN_SECRET_LENGTH : min(len(value) - 1, _CLIP_PREFIX_MAX)]
    nested = "".join(f"(?:{re.escape(char)}" for char in optional) + ")?" * len(optional)
    return re.escape(value[:MIN_SECRET_LENGTH]) + nested + r"\s?(?:…|\.\.\.)"


def masked_model(model: M, mask: Callable[[str], str]) -> M:
    """A copy of ``model`` with ``mask`` applied to every string in it (keys included)."""
    return type(model).model_validate(_mask_data(model.model_dump(mode="json"), mask))


def _mask_data(data: Any, mask: Callable[[str], str]) -> Any:
    if isinstance(data, str):
        return mask(data)
    if isinstance(data, dict):
        return {mask(key) if isinstance(key, str) else key: _mask_data(value, mask) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [_mask_data(item, mask) for item in data]
    return data


@dataclass(eq=False)
class SecretVault:
    secrets: list[Secret] = field(default_factory=list)
    # Where a secret that names no sites of its own may be typed: these sites (the run's start page and allowed
    # sites, as the composition root sets them) and the sites the person's own words name (``fill``'s ``words``).
    # None: anywhere (a vault built by hand).
    default_sites: tuple[str, ...] | None = None
    # How a value given later (a routine's cell) becomes a source: the composition root's; None: every value is itself.
    sources: SecretSources | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._masker = self._given = _Masker(())
        self._generation = 0
        self._made: dict[str, str] = {}  # each value a source made -> its secret's name
        self._attempts: dict[str, Attempts] = {}
        self._rebuild()
        _register(self)

    # --- what the model may use ------------------------------------------------------------------------------

    def names(self) -> list[str]:
        return [secret.name for secret in self.secrets]

    def get(self, name: str) -> Secret | None:
        return next((secret for secret in self.secrets if secret.name == name), None)

    def given(self, name: str, value: str, domains: tuple[str, ...] = (), *, one_time_code: bool = False) -> Secret:
        """A secret the person gave as ``value``, made a source when it names one (``sources``): a routine's cell
        holding a manager's reference, an otpauth:// link or (``one_time_code``) a setup key. ValueError in plain
        words for a malformed one."""
        source = self.sources.source(name, value, one_time_code=one_time_code) if self.sources is not None else None
        if source is None and one_time_code:
            raise ValueError("One-time codes cannot be made here.")
        return Secret(name, SecretStr(value), domains, source=source)

    @staticmethod
    def has_placeholder(text: str) -> bool:
        return PLACEHOLDER.search(text) is not None

    async def fill(self, text: str, url: str | None, words: str = "", *, signal: AbortSignal) -> str:
        """``text`` with every ``<secret>name</secret>`` replaced by its value, to type into a field of the page at
        ``url`` (None: the field is not known). ``words``: the person's own words in the task, whose named sites a
        secret that names none may also go to (never a routine's cells, nothing an MCP client wrote). ToolError
        (naming no value) for an unknown name, a secret without a value, or one not allowed on ``url``; a value
        written out in full is held to its sites too (a password the task gave literally, learnt where it was first
        typed). A made value is made only once its site is checked, and masked from then on."""
        for secret in self.secrets:
            value = secret.value.get_secret_value()
            if value and value in text:
                self._check_site(secret, url, words)
        for value, name in list(self._made.items()):
            made_by = self.get(name)
            if made_by is not None and value in text:
                self._check_site(made_by, url, words)
        names = dict.fromkeys(match.group(1).strip().lower() for match in PLACEHOLDER.finditer(text))
        values = {name: await self._value_for(name, url, words, signal) for name in names}
        return PLACEHOLDER.sub(lambda match: values[match.group(1).strip().lower()], text)

    async def _value_for(self, name: str, url: str | None, words: str, signal: AbortSignal) -> str:
        secret = self.get(name)
        if secret is None:
            known = ", ".join(placeholder(n) for n in self.names())
            have = f"The secrets you can use are: {known}." if known else "No secrets were given for this task."
            raise ToolError(
                f'There is no secret named "{name[:40]}", so nothing was typed. {have} Use one of '
                "them exactly, or ask the user for what is missing."
            )
        value = secret.value.get_secret_value()
        if not value:
            raise ToolError(
                f'The secret "{name}" has no value on this computer (it is not in the system keyring), '
                "so nothing was typed. Tell the user to set it in Settings → Secrets."
            )
        self._check_site(secret, url, words)
        if secret.source is None:
            return value
        made = await secret.source.value(signal, self._attempts.setdefault(name, Attempts()))
        with self._lock:
            if self._made.get(made) != name:
                self._made[made] = name
                self._rebuild()
        return made

    def _check_site(self, secret: Secret, url: str | None, words: str) -> None:
        if url is None:
            raise ToolError(
                "That field is not in the current page state, so no secret was typed; look at the page "
                "again and use an index from it."
            )
        domains = secret.domains
        if not domains and self.default_sites is not None:
            domains = tuple(dict.fromkeys((*self.default_sites, *sites_named_in(words))))
            if not domains:
                raise ToolError(
                    f'The secret "{secret.name}" names no sites it may be typed on, and neither the start page, the '
                    "allowed sites nor the task names one, so nothing was typed. Finish with done and tell the user "
                    'to give it its sites (Settings → Secrets, or "domains" in the secrets file) or to name the '
                    "site in the task."
                )
        site = site_of(url)
        # about:blank passes the navigation policy, but it is no site of the user's: the secret stays untyped.
        if domains and (site is None or NavigationPolicy(domains).check(url) is not None):
            where = site or "a page without a web address"
            raise ToolError(
                f'The secret "{secret.name}" may only be typed on {", ".join(domains)}, and this '
                f"field belongs to {where}, so nothing was typed. Do not type it anywhere else."
            )

    # --- learning a value ------------------------------------------------------------------------------------

    def remember_typed(self, value: str, url: str) -> str | None:
        """A password typed without a placeholder: masked from now on, and typable again as the returned name's
        placeholder, on the same host and port only. Returns the name (an existing one if the value is known), or
        None for a value that is not learnt: shorter than MIN_SECRET_LENGTH, or ordinary words ("not" from a page's
        "Your code is: not"), which masking would garble everywhere."""
        if len(value) < MIN_SECRET_LENGTH or plain_words(value):
            return None
        with self._lock:
            known = next((s.name for s in self.secrets if s.value.get_secret_value() == value), None)
            if known is not None:
                return known
            taken = set(self.names())
            name = next(
                n
                for n in (TYPED_PASSWORD if i == 1 else f"{TYPED_PASSWORD}_{i}" for i in range(1, 10_000))
                if n not in taken
            )
            site = site_of(url) or _NOWHERE
            self.secrets.append(Secret(name, SecretStr(value), (site,), learned=True))
            self._rebuild()
        return name

    # --- masking ---------------------------------------------------------------------------------------------

    def mask(self, text: str) -> str:
        """``text`` with every known value replaced by its placeholder."""
        return self._masker.mask(text)

    def mask_own_words(self, text: str) -> str:
        """``text`` (the person's task, the app's own sentences) with the values the person gave replaced by their
        placeholders, never a value learnt from typing: a page must not be able to change what they say."""
        return self._given.mask(text)

    def mask_model(self, model: M) -> M:
        """A copy of ``model`` with every string in it masked (the model itself when there is nothing to mask)."""
        return masked_model(model, self.mask) if self._masker else model

    @property
    def generation(self) -> int:
        """Goes up whenever the vault learns a value: what was masked before may hold it still."""
        return self._generation

    def _rebuild(self) -> None:
        # What a source hides of itself and what it made are the person's or the app's, never a page's: they mask
        # everything. A source's own text is not masked whole: a reference is made of ordinary words.
        given = [
            (s.value.get_secret_value(), placeholder(s.name)) for s in self.secrets if not s.learned and not s.source
        ]
        given += [(hidden, placeholder(s.name)) for s in self.secrets if s.source for hidden in s.source.hidden()]
        given += [(value, placeholder(name)) for value, name in self._made.items()]
        learned = [(s.value.get_secret_value(), placeholder(s.name)) for s in self.secrets if s.learned]
        every = given + learned
        self._masker = _Masker(every)
        self._given = self._masker if len(given) == len(every) else _Masker(given)
        self._generation += 1


# --- every live vault, and the API keys: for sinks that belong to no one agent ----------------------------------

_registry_lock = threading.Lock()
_live: weakref.WeakSet[SecretVault] = weakref.WeakSet()
_hidden: set[str] = set()
_hidden_masker = _Masker(())


def _register(vault: SecretVault) -> None:
    with _registry_lock:
        _live.add(vault)


def hide_everywhere(value: str | None) -> None:
    """Mask ``value`` (an API key) as •••• in everything ``mask_everywhere`` cleans, for the rest of the process."""
    global _hidden_masker
    if not value or len(value) < MIN_SECRET_LENGTH:
        return
    with _registry_lock:
        if value not in _hidden:
            _hidden.add(value)
            _hidden_masker = _Masker((v, HIDDEN) for v in _hidden)


def mask_everywhere(text: str) -> str:
    """``text`` with the values of every live vault and every hidden API key masked."""
    with _registry_lock:
        vaults = list(_live)
        hidden = _hidden_masker
    for vault in vaults:
        text = vault.mask(text)
    return hidden.mask(text)
