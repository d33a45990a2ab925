"""Where a one-time code or a password manager's reference can be given, and what becomes of it: the secrets file's
{"totp": …}, PAGE_AGENT_TOTP_<NAME>, an otpauth:// link or a reference wherever a value goes (the file, the
environment, the keyring), each a source that makes its value at typing time, with its sites kept; a bad one refused
in plain words that never quote it."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from app.core.safety.one_time_codes import OneTimeCode
from app.runtime import RuntimeOptions
from app.safety_from_settings import load_secrets
from app.secret_sources.password_managers import Manager, ManagerEntry
from app.settings.model import SecretEntry, Settings
from app.settings.secrets import SecretsSourceError, set_secret
from tests.fakes.memory_keyring import MemoryKeyring

KEY = base64.b32encode(b"acme-billing-2fa-key").decode()
OTHER_KEY = base64.b32encode(b"another-account-key!").decode()


def secrets_file(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "secrets.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    path.chmod(0o600)
    return path


def test_one_time_codes_and_references_become_sources_wherever_they_are_given(
    tmp_path: Path, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = secrets_file(
        tmp_path,
        {
            "acme_code": {"totp": KEY, "domains": ["billing.acme.com"]},
            "linked": f"otpauth://totp/Acme:ana?secret={OTHER_KEY}&digits=8",
            "crm": {"value": "op://Work/CRM/password", "domains": ["crm.example.com"]},
        },
    )
    monkeypatch.setenv("PAGE_AGENT_TOTP_MAIL_CODE", OTHER_KEY)
    monkeypatch.setenv("PAGE_AGENT_SECRET_BANK", "bw://Bank/password")
    set_secret("vault_pw", "keepassxc:///home/ana/Passwords.kdbx#Sites/Vault")
    settings = Settings(secrets=[SecretEntry(name="vault_pw", domains=["vault.example"]), SecretEntry(name="bank")])

    loaded = {secret.name: secret for secret in load_secrets(settings, RuntimeOptions(secrets_file=path))}

    code = loaded["acme_code"].source
    assert isinstance(code, OneTimeCode) and code.key.key == b"acme-billing-2fa-key"
    assert loaded["acme_code"].domains == ("billing.acme.com",)
    linked = loaded["linked"].source
    assert isinstance(linked, OneTimeCode) and linked.key.digits == 8
    mail = loaded["mail_code"].source
    assert isinstance(mail, OneTimeCode) and mail.key.key == b"another-account-key!"
    managers = {name: loaded[name].source for name in ("crm", "bank", "vault_pw")}
    assert {name: s.reference.manager for name, s in managers.items() if isinstance(s, ManagerEntry)} == {
        "crm": Manager.ONE_PASSWORD,
        "bank": Manager.BITWARDEN,
        "vault_pw": Manager.KEEPASSXC,
    }
    assert loaded["crm"].domains == ("crm.example.com",) and loaded["vault_pw"].domains == ("vault.example",)


@pytest.mark.parametrize(
    ("given", "where"),
    [
        ({"file": {"acme_code": {"totp": "not-a-key-at-all!"}}}, 'the secrets file, the secret "acme_code"'),
        ({"env": ("PAGE_AGENT_TOTP_ACME_CODE", "ABCDEFGH")}, 'the environment, the secret "acme_code"'),
        ({"file": {"acme_code": {"totp": KEY, "value": KEY}}}, "must be a text value, or an object"),
    ],
)
def test_a_bad_setup_key_is_refused_naming_the_secret_never_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: dict[str, object], where: str
) -> None:
    options = RuntimeOptions()
    if "file" in given:
        options = RuntimeOptions(secrets_file=secrets_file(tmp_path, given["file"]))
    else:
        variable, value = given["env"]  # type: ignore[misc]
        monkeypatch.setenv(variable, value)
    with pytest.raises(SecretsSourceError, match=where) as caught:
        load_secrets(Settings(), options)
    assert KEY not in str(caught.value) and "not-a-key-at-all" not in str(caught.value)
