"""Builds one agent's Guardrails from the saved settings and the command line (the composition root's part)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

from pydantic import SecretStr

from app.core.abort import AbortSignal
from app.core.safety.files import UploadPolicy, folder_clash
from app.core.safety.guardrails import Guardrails
from app.core.safety.navigation import NavigationPolicy, parse_domains, site_of
from app.core.safety.risky import ConfirmHandler, ConfirmRequest
from app.core.safety.secrets import Secret, SecretSources, SecretVault, check_secret
from app.secret_sources.sources import AppSecretSources
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.settings.secrets import GivenSecret, SecretsSourceError, env_secrets, get_secret, read_secrets_file

log = logging.getLogger(__name__)


class SafetyOverrides(Protocol):
    """What a face may set over the saved safety settings (the command line's flags; ``RuntimeOptions`` is one):
    None or empty leaves the saved settings in force."""

    @property
    def allowed_domains(self) -> list[str] | None: ...
    @property
    def secrets_file(self) -> Path | None: ...
    @property
    def upload_dirs(self) -> list[Path]: ...
    @property
    def start_url(self) -> str:
        """The page the run opens first, a site its secrets may go to ("": the saved start page)."""
        ...

    @property
    def demo(self) -> bool:
        """The bundled demo, on its own local site, where the allowed sites do not apply."""
        ...


def build_guardrails(
    settings: Settings,
    paths: AppPaths,
    options: SafetyOverrides,
    confirm: ConfirmHandler | None,
    demo_secret: Secret | None = None,
) -> Guardrails:
    """Command-line options beat the saved settings; ``demo_secret`` (the demo's own, in demo mode) beats a saved
    secret of the same name. Reads files and the keyring: call it off the event loop."""
    sources = AppSecretSources()
    secrets = load_secrets(settings, options, sources)
    if demo_secret is not None:
        secrets = [s for s in secrets if s.name != demo_secret.name]
        secrets.append(demo_secret)
    navigation = navigation_policy(settings, options)
    vault = SecretVault(secrets, default_sites=default_secret_sites(settings, options, navigation), sources=sources)
    return Guardrails(
        navigation=navigation,
        secrets=vault,
        uploads=upload_policy(settings, paths, options),
        confirm=_masking(confirm, vault),
        ask_before_irreversible=settings.ask_before_irreversible,
    )


def _masking(confirm: ConfirmHandler | None, vault: SecretVault) -> ConfirmHandler | None:
    """The person is asked without a secret in the question (a page's dialog may quote a typed value)."""
    if confirm is None:
        return None

    async def ask(request: ConfirmRequest, signal: AbortSignal) -> bool:
        return await confirm(vault.mask_model(request), signal)

    return ask


def default_secret_sites(settings: Settings, options: SafetyOverrides, navigation: NavigationPolicy) -> tuple[str, ...]:
    """Where a secret that names no sites of its own may be typed: the start page's site and the allowed sites (and
    the sites the task names, which the vault adds per task). A page that steers the agent to another site, a
    look-alike sign-in page included, gets nothing."""
    from app.browser.actions import normalize_url  # Playwright: only once a page is about to open

    start = options.start_url or settings.start_url
    site = site_of(normalize_url(start)) if start else None
    return tuple(dict.fromkeys([*([site] if site else []), *navigation.allowed_domains]))


def load_secrets(settings: Settings, options: SafetyOverrides, sources: SecretSources | None = None) -> list[Secret]:
    """Every named secret the agent may type. SecretsSourceError (plain words, no value) for a bad source.

    A value comes from the --secrets-file, else PAGE_AGENT_SECRET_<NAME> (or PAGE_AGENT_TOTP_<NAME>), else the
    keyring (Settings → Secrets). Its sites come from the file's entry when it names some, else from the Settings
    entry of that name, else any site: a value from the file or the environment that names no sites keeps the limit
    set in Settings. A value that names a source (a one-time code's setup key or link, a password manager's
    reference) is made by it at the moment of typing (``sources``: the app's own unless given).
    """
    sources = sources or AppSecretSources()
    if "secrets" in settings.unreadable_safety:
        raise SecretsSourceError(
            unreadable_setting("Settings → Secrets (the sites each secret may be typed on)", "secrets")
        )
    from_file = read_secrets_file(options.secrets_file) if options.secrets_file is not None else {}
    from_env = env_secrets()
    saved: dict[str, tuple[str, ...]] = {}
    for entry in settings.secrets:
        try:
            check_secret(entry.name, "")
        except ValueError as exc:
            log.warning("a saved secret was skipped: %s", exc)
            continue
        try:  # a limit that cannot be read is never "any site"
            saved[entry.name] = tuple(parse_domains(",".join(entry.domains)))
        except ValueError as exc:
            raise SecretsSourceError(f'Settings → Secrets, the sites of "{entry.name}": {exc}') from None
    secrets: list[Secret] = []
    for name in sorted(set(from_file) | set(from_env) | set(saved)):
        given = from_file.get(name) or from_env.get(name)
        where = "the secrets file" if name in from_file else "the environment"
        if given is None:
            # None: not in the keyring (or no keyring); typing it then says so in plain words.
            given, where = GivenSecret(value=SecretStr(get_secret(name) or "")), "Settings → Secrets"
            try:
                check_secret(name, given.value.get_secret_value())
            except ValueError as exc:
                raise SecretsSourceError(f"{where}: {exc}") from None
        domains = tuple(given.domains) if given.domains else saved.get(name, ())
        value = given.value.get_secret_value()
        try:
            source = sources.source(name, value, one_time_code=given.one_time_code) if value else None
        except ValueError as exc:
            raise SecretsSourceError(f'{where}, the secret "{name}": {exc}') from None
        secrets.append(Secret(name, SecretStr(value), domains, source=source))
    return secrets


def unreadable_setting(where: str, field: str) -> str:
    """Why no task runs while a safety setting cannot be read, and what to do, in plain words."""
    return (
        f'{where} could not be read from the settings file ("{field}" is damaged), so no task runs: its default '
        "would allow more than you set. Set it again in Settings (or fix settings.json)."
    )


def upload_policy(settings: Settings, paths: AppPaths, options: SafetyOverrides) -> UploadPolicy:
    """Upload folders from Settings and --upload-dir together; the app's own files are never uploadable."""
    allowed = [Path(folder) for folder in settings.upload_dirs if folder.strip()] + list(options.upload_dirs)
    own = [*_app_folders(paths), *([options.secrets_file] if options.secrets_file is not None else [])]
    return UploadPolicy(allowed_dirs=tuple(allowed), forbidden_dirs=tuple(own))


def check_upload_dirs(folders: list[Path], paths: AppPaths) -> list[Path]:
    """The --upload-dir folders, resolved; ValueError in plain words for one that cannot be an upload folder.

    Reads the filesystem: run it off the event loop."""
    checked: list[Path] = []
    for given in folders:
        folder = given.expanduser().resolve()
        if not folder.exists():
            raise ValueError(f"--upload-dir {given}: that folder does not exist.")
        if not folder.is_dir():
            raise ValueError(f"--upload-dir {given} is not a folder; give the folder that holds the files to upload.")
        own = folder_clash(folder, [mine.resolve() for mine in _app_folders(paths)])
        if own is not None and folder.is_relative_to(own):
            where = "" if folder == own else "inside "
            raise ValueError(
                f"--upload-dir {given} is {where}Page Agent's own folder {own}: its settings, "
                "browser profile, history, downloads and logs are never uploaded."
            )
        if own is not None:
            raise ValueError(
                f"--upload-dir {given} holds Page Agent's own folder {own}; choose a folder that "
                "holds only the files the agent may upload."
            )
        checked.append(folder)
    return checked


def _app_folders(paths: AppPaths) -> list[Path]:
    # Profile (cookies, saved logins), runs and downloads live in the data folder; listed too in case they move.
    return [paths.config_dir, paths.data_dir, paths.log_dir, paths.profile_dir, paths.runs_dir, paths.downloads_dir]


def navigation_policy(settings: Settings, options: SafetyOverrides) -> NavigationPolicy:
    """The allowed sites: the command line's, else the saved ones. ValueError names a bad one and where it is.

    The bundled demo replays a recording on its own local site, so the allowed sites do not apply to it.
    """
    if options.demo:
        return NavigationPolicy()
    from_cli = options.allowed_domains is not None
    if not from_cli and "allowed_domains" in settings.unreadable_safety:
        raise ValueError(unreadable_setting("Settings → Safety → Only these sites", "allowed_domains"))
    domains = options.allowed_domains if options.allowed_domains is not None else settings.allowed_domains
    try:
        return NavigationPolicy(allowed_domains=tuple(domains))
    except ValueError as exc:
        where = "--allowed-domains" if from_cli else "Settings, Only these sites"
        raise ValueError(f"{where}: {exc}") from exc


def check_navigation(settings: Settings, options: SafetyOverrides, url: str | None) -> None:
    """Before Chromium starts: the allowed sites are valid, and the page the user asked to open first is one of
    them. The user's own start page is held to the user's own list too: opening it anyway would hand the agent a
    site the user said it may not use, and blocking it silently would leave the user wondering."""
    policy = navigation_policy(settings, options)
    if url:
        check_start_page(policy, url, "--url")


def check_start_page(policy: NavigationPolicy, url: str, what: str) -> None:
    """ValueError, in plain words, when ``url`` (the user's start page, named ``what``) may not be opened."""
    from app.browser.actions import normalize_url  # Playwright: only once a page is about to open

    target = normalize_url(url)
    reason = policy.check(target)
    if reason is not None:
        raise ValueError(f"{what} {target} cannot be opened: {reason}")
