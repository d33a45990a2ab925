"""One-time codes (TOTP, RFC 6238) made at the moment of typing, from a setup key the model never sees.

A secret may be a generator instead of a value: the person gives the setup key a site shows under "can't scan the QR
code?" (base32), or its ``otpauth://totp/…`` link with its digits, period and algorithm. When the model types the
secret's placeholder, the code of that moment is computed here; with fewer than ``MIN_SECONDS_LEFT`` seconds left in
its window, the code of the next window is typed instead, once that window has begun.

A site that refuses a code says so on its page, and the model, reading it, types the placeholder again. So a code
asked for again soon after the last one (within ``RETRY_SPAN`` windows) is a retry: the second one is typed only in
a window after the refused one, and a third is not typed at all: the browser goes to the person (``HandOffNeeded``).

The clock is handed in (tests move it; the app's is the system's).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from app.core.abort import AbortSignal
from app.core.errors import HandOffNeeded
from app.core.safety.secrets import Attempts

# Fewer seconds than this left in a window: the code of the next window is typed (a site checks it some seconds
# after it was typed: the model still has to press the button).
MIN_SECONDS_LEFT = 5.0
# A code asked for again within this many windows of the last one is a retry (the site refused the last one).
RETRY_SPAN = 2
# The shortest setup key taken: 80 bits, what the oldest sites still hand out (RFC 4226 asks for 128 or more).
MIN_KEY_BYTES = 10
_ALGORITHMS = {"SHA1": "sha1", "SHA256": "sha256", "SHA512": "sha512"}
OTPAUTH = "otpauth://"


class Clock(Protocol):
    """The time the codes are made for (seconds since the epoch), and a wait until a given time."""

    def now(self) -> float: ...

    async def sleep_until(self, when: float, signal: AbortSignal) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep_until(self, when: float, signal: AbortSignal) -> None:
        await signal.sleep(when - time.time())


@dataclass(frozen=True)
class TotpKey:
    """A decoded setup key and how its codes are made; ``given`` is the key as the person gave it (alone, or as a
    link's secret=)."""

    key: bytes
    given: str
    digits: int = 6
    period: int = 30
    algorithm: str = "sha1"

    def window(self, at: float) -> int:
        return int(at // self.period)

    def code(self, at: float) -> str:
        """The code of the window that holds the moment ``at`` (RFC 6238, with RFC 4226's dynamic truncation)."""
        digest = hmac.new(self.key, self.window(at).to_bytes(8, "big"), getattr(hashlib, self.algorithm)).digest()
        offset = digest[-1] & 0x0F
        number = int.from_bytes(digest[offset : offset + 4], "big") & 0x7FFFFFFF
        return str(number % 10**self.digits).zfill(self.digits)

    def hidden(self) -> tuple[str, ...]:
        """What of the key must never be shown: the key as given (in a link, its secret=), and as base32, as a site
        prints it. The rest of a link (the site's and the account's names) is ordinary words."""
        plain = base64.b32encode(self.key).decode("ascii").rstrip("=")
        return tuple(dict.fromkeys((self.given, plain)))


def parse_totp(given: str) -> TotpKey:
    """The key in a setup key (base32, spaces and dashes allowed) or an ``otpauth://totp/…`` link. ValueError in
    plain words that never quote the key."""
    text = given.strip()
    if text.lower().startswith(OTPAUTH):
        return _from_link(text)
    return TotpKey(_decode(text), text)


def _from_link(link: str) -> TotpKey:
    parts = urlsplit(link)
    if parts.netloc.lower() != "totp":
        raise ValueError(
            "The link is not a time-based one-time code (otpauth://totp/…); codes counted by use (hotp) are not "
            "supported."
        )
    query = {name.lower(): values[-1] for name, values in parse_qs(parts.query).items()}
    if "secret" not in query:
        raise ValueError('The otpauth:// link has no "secret=": copy the whole link the site shows.')
    algorithm = _ALGORITHMS.get(query.get("algorithm", "SHA1").upper())
    if algorithm is None:
        raise ValueError("The otpauth:// link names an algorithm other than SHA1, SHA256 or SHA512.")
    try:
        digits, period = int(query.get("digits", "6")), int(query.get("period", "30"))
    except ValueError:
        raise ValueError("The otpauth:// link's digits or period is not a whole number.") from None
    if not 6 <= digits <= 8 or not 10 <= period <= 300:
        raise ValueError("The otpauth:// link asks for codes of 6 to 8 digits, every 10 to 300 seconds only.")
    secret = unquote(query["secret"])
    return TotpKey(_decode(secret), secret, digits, period, algorithm)


def _decode(key: str) -> bytes:
    letters = "".join(key.split()).replace("-", "").upper().rstrip("=")
    try:
        decoded = base64.b32decode(letters + "=" * (-len(letters) % 8))
    except (binascii.Error, ValueError):
        raise ValueError(
            "The setup key is not a key: it is written with the letters A-Z and the digits 2-7 (copy it from the "
            "site's “can't scan the QR code?” link)."
        ) from None
    if len(decoded) < MIN_KEY_BYTES:
        raise ValueError("The setup key is too short: copy all of it from the site.")
    return decoded


class OneTimeCode:
    """A ``SecretSource`` (app/core/safety/secrets.py): the code of the moment, from ``key``, on ``clock``."""

    def __init__(self, name: str, key: TotpKey, clock: Clock | None = None) -> None:
        self.name = name
        self.key = key
        self.clock = clock or SystemClock()

    def hidden(self) -> tuple[str, ...]:
        return self.key.hidden()

    async def value(self, signal: AbortSignal, attempts: Attempts) -> str:
        key, clock = self.key, self.clock
        now = clock.now()
        recent = _retries(attempts.times, now, RETRY_SPAN * key.period)
        if len(recent) >= 2:
            attempts.times.clear()  # the person signs in; a later sign-in starts afresh
            raise HandOffNeeded(
                f'The site refused the one-time code "{self.name}" twice, so it was not typed a third time; the '
                "browser was handed to the person to sign in.",
                f"The site refused the one-time code “{self.name}” twice. Sign in yourself in this window, then "
                "continue.",
            )
        if recent:  # a retry: never the refused window's code again
            earliest = (key.window(recent[-1]) + 1) * key.period
            if now < earliest:
                await clock.sleep_until(earliest, signal)
                now = clock.now()
        left = key.period - now % key.period
        if left < MIN_SECONDS_LEFT:
            await clock.sleep_until(now + left, signal)
            now = clock.now()
        attempts.times[:] = [*recent, now]
        return key.code(now)


def _retries(times: list[float], now: float, span: float) -> list[float]:
    """The attempts that ``now`` retries: the last ones, each within ``span`` seconds of the next."""
    chain: list[float] = []
    later = now
    for at in reversed(times):
        if later - at >= span:
            break
        chain.insert(0, at)
        later = at
    return chain
