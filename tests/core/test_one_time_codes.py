"""One-time codes on their own: RFC 6238's own test values, setup keys and otpauth:// links read (and refused in words
that never quote them), the next window's code near a window's end, and a refused code tried once more, in a new
window, then handed to the person. The clock is the test's (tests/fakes/clock.py): nothing waits for real."""

from __future__ import annotations

import base64

import pytest
from pydantic import SecretStr

from app.core.abort import AbortSignal
from app.core.errors import HandOffNeeded
from app.core.safety.one_time_codes import MIN_SECONDS_LEFT, OneTimeCode, TotpKey, parse_totp
from app.core.safety.secrets import Attempts, Secret, SecretVault
from tests.fakes.clock import FakeClock

RFC_KEY = b"12345678901234567890"
KEY = base64.b32encode(b"page-agent-test-key!").decode()  # 32 letters, as a site shows it


@pytest.mark.parametrize(
    ("algorithm", "key", "at", "code"),
    [  # RFC 6238, appendix B
        ("sha1", RFC_KEY, 59, "94287082"),
        ("sha1", RFC_KEY, 1111111109, "07081804"),
        ("sha1", RFC_KEY, 1234567890, "89005924"),
        ("sha1", RFC_KEY, 20000000000, "65353130"),
        ("sha256", RFC_KEY + b"123456789012", 59, "46119246"),
        ("sha512", RFC_KEY * 3 + b"1234", 1111111111, "99943326"),
    ],
)
def test_codes_are_rfc_6238s(algorithm: str, key: bytes, at: int, code: str) -> None:
    assert TotpKey(key, "given", digits=8, algorithm=algorithm).code(at) == code


def test_a_setup_key_and_an_otpauth_link_give_the_same_codes() -> None:
    spaced = " ".join(KEY[i : i + 4] for i in range(0, len(KEY), 4)).lower()
    link = f"otpauth://totp/Acme:ana%40acme.example?secret={KEY}&issuer=Acme&digits=8&period=60&algorithm=SHA256"
    plain, from_link = parse_totp(spaced), parse_totp(link)
    assert plain.key == from_link.key == b"page-agent-test-key!"
    assert (from_link.digits, from_link.period, from_link.algorithm) == (8, 60, "sha256")
    assert plain.code(1_000_000) == TotpKey(b"page-agent-test-key!", "").code(1_000_000)
    assert len(from_link.code(1_000_000)) == 8
    # What is masked: the key as given, and as a site prints it; of a link, only its key (the rest names the site).
    assert plain.hidden() == (spaced, KEY)
    assert from_link.hidden() == (KEY,)


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ("not a key at all!", "letters A-Z and the digits 2-7"),
        ("JBSWY3DP", "too short"),
        (f"otpauth://hotp/x?secret={KEY}&counter=1", "hotp"),
        ("otpauth://totp/x?issuer=Acme", 'no "secret="'),
        (f"otpauth://totp/x?secret={KEY}&algorithm=MD5", "SHA1, SHA256 or SHA512"),
        (f"otpauth://totp/x?secret={KEY}&digits=4", "6 to 8 digits"),
    ],
)
def test_a_bad_setup_key_is_refused_in_plain_words_without_quoting_it(given: str, words: str) -> None:
    with pytest.raises(ValueError, match=words) as caught:
        parse_totp(given)
    assert KEY not in str(caught.value) and given not in str(caught.value)


def code_source(clock: FakeClock) -> tuple[OneTimeCode, TotpKey]:
    key = parse_totp(KEY)
    return OneTimeCode("acme_code", key, clock), key


async def test_the_code_of_the_moment_is_typed_when_enough_of_its_window_is_left() -> None:
    clock = FakeClock(30 * 1000 + 10)
    source, key = code_source(clock)
    assert await source.value(AbortSignal(), Attempts()) == key.code(30 * 1000)
    assert clock.waits == []


async def test_a_code_asked_for_2_s_before_its_window_ends_is_the_next_windows() -> None:
    clock = FakeClock(30 * 1000 + 28)
    source, key = code_source(clock)
    assert 2 < MIN_SECONDS_LEFT
    code = await source.value(AbortSignal(), Attempts())
    assert clock.waits == [30 * 1001]  # it waited for the next window to begin
    assert code == key.code(30 * 1001) != key.code(30 * 1000)


async def test_a_refused_code_is_tried_once_more_in_a_new_window_then_handed_to_the_person() -> None:
    clock = FakeClock(30 * 1000 + 3)
    source, key = code_source(clock)
    attempts = Attempts()
    first = await source.value(AbortSignal(), attempts)
    clock.at += 6  # the site said "wrong code"; the model types it again in the same window
    second = await source.value(AbortSignal(), attempts)
    assert clock.waits == [30 * 1001] and second == key.code(30 * 1001) != first
    clock.at += 8  # refused again
    with pytest.raises(HandOffNeeded) as caught:
        await source.value(AbortSignal(), attempts)
    assert "Sign in yourself" in caught.value.words and "refused" in str(caught.value)
    assert first not in str(caught.value) + caught.value.words
    # After the person's turn, a sign-in later is a first attempt again.
    clock.at += 300
    assert await source.value(AbortSignal(), attempts) == key.code(clock.at)


async def test_sign_ins_far_apart_are_each_a_first_attempt() -> None:
    clock = FakeClock(30 * 1000 + 3)
    source, _key = code_source(clock)
    attempts = Attempts()
    for _ in range(4):
        await source.value(AbortSignal(), attempts)
        clock.at += 120
    assert clock.waits == []


async def test_the_vault_types_a_code_masks_it_and_the_setup_key_and_counts_attempts_per_vault() -> None:
    clock = FakeClock(30 * 1000 + 3)
    source, key = code_source(clock)
    secret = Secret("acme_code", SecretStr(KEY), source=source)
    row_one, row_two = SecretVault([secret]), SecretVault([secret])
    code = await row_one.fill("<secret>acme_code</secret>", "https://a.example/", signal=AbortSignal())
    assert code == key.code(clock.at)
    shown = f"Your code {code} was accepted. Key: {KEY.lower()} {KEY}"
    assert row_one.mask(shown) == "Your code <secret>acme_code</secret> was accepted. Key: " + " ".join(
        ["<secret>acme_code</secret>"] * 2
    )
    assert row_one.mask_own_words(code) == "<secret>acme_code</secret>"
    # Another row's vault has typed nothing yet: the same code is its first attempt, not a retry.
    assert await row_two.fill("<secret>acme_code</secret>", "https://a.example/", signal=AbortSignal()) == code
    assert clock.waits == []


def test_only_a_links_key_is_masked_not_the_names_in_it() -> None:
    link = f"otpauth://totp/Acme%20billing:ana%40acme.example?secret={KEY}&issuer=Acme%20billing"
    vault = SecretVault([Secret("code", SecretStr(link), source=OneTimeCode("code", parse_totp(link)))])
    page = "Sign in to Acme billing as ana@acme.example: otpauth://totp/Acme%20billing:ana%40acme.example"
    assert vault.mask(page) == page
    assert vault.mask(f"?secret={KEY}&issuer=Acme") == "?secret=<secret>code</secret>&issuer=Acme"
