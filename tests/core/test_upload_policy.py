"""UploadPolicy on a real filesystem (tmp_path): what a page may talk the agent into uploading, and what it may not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.errors import ToolError
from app.core.safety.files import UploadPolicy, named_paths


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def allowed(home: Path) -> Path:
    folder = home / "to-upload"
    folder.mkdir()
    (folder / "invoice.pdf").write_bytes(b"%PDF-1.4")
    return folder


@pytest.fixture
def app_data(home: Path) -> Path:
    data = home / ".local" / "share" / "page-agent-desktop"
    (data / "browser-profile" / "Default").mkdir(parents=True)
    (data / "browser-profile" / "Default" / "Cookies").write_bytes(b"SQLite format 3")
    return data


def refusal(policy: UploadPolicy, path: str, task: str = "") -> str:
    with pytest.raises(ToolError) as caught:
        policy.check(path, task)
    return str(caught.value)


def test_a_file_inside_an_allowed_folder_is_resolved_and_accepted(home: Path, allowed: Path) -> None:
    policy = UploadPolicy(allowed_dirs=(allowed,))
    assert policy.check(str(allowed / "invoice.pdf")) == allowed / "invoice.pdf"
    assert policy.check("~/to-upload/invoice.pdf") == allowed / "invoice.pdf"
    assert policy.check(f"  {allowed}/sub/../invoice.pdf ") == allowed / "invoice.pdf"
    # The user's own folder given as ~/... in the settings is the same folder.
    assert UploadPolicy(allowed_dirs=(Path("~/to-upload"),)).check(str(allowed / "invoice.pdf")).is_file()


def test_nothing_is_uploadable_without_an_allowed_folder_or_a_named_file(home: Path, allowed: Path) -> None:
    message = refusal(UploadPolicy(), str(allowed / "invoice.pdf"), "Fill in the form")
    assert "No file may be uploaded" in message
    assert "Settings → Files the agent may upload" in message and "name the file in the task" in message


def test_a_file_outside_the_allowed_folders_is_refused_with_the_folders_named(home: Path, allowed: Path) -> None:
    message = refusal(UploadPolicy(allowed_dirs=(allowed,)), str(home / ".ssh" / "id_rsa"))
    assert message.startswith("That file is not in a folder you may upload from")
    assert f"Allowed folders: {allowed}" in message and "Settings → Files the agent may upload" in message


def test_dot_dot_out_of_an_allowed_folder_is_refused(home: Path, allowed: Path) -> None:
    (home / "secret.txt").write_text("secret")
    policy = UploadPolicy(allowed_dirs=(allowed,))
    assert "not in a folder you may upload from" in refusal(policy, f"{allowed}/../secret.txt")
    assert "not in a folder you may upload from" in refusal(policy, "~/to-upload/../../home/secret.txt")


def test_a_symlink_inside_an_allowed_folder_is_judged_by_where_it_points(home: Path, allowed: Path) -> None:
    (allowed / "innocent.pdf").symlink_to(home / ".ssh" / "id_rsa")
    (allowed / "docs").symlink_to(home / ".ssh", target_is_directory=True)
    policy = UploadPolicy(allowed_dirs=(allowed,))
    assert "not in a folder you may upload from" in refusal(policy, str(allowed / "innocent.pdf"))
    assert "not in a folder you may upload from" in refusal(policy, str(allowed / "docs" / "id_rsa"))


def test_a_symlink_to_a_file_inside_the_same_allowed_folder_uploads_the_real_file(allowed: Path) -> None:
    (allowed / "latest.pdf").symlink_to(allowed / "invoice.pdf")
    assert UploadPolicy(allowed_dirs=(allowed,)).check(str(allowed / "latest.pdf")) == allowed / "invoice.pdf"


def test_an_allowed_folder_that_is_a_symlink_allows_its_real_folder_only(home: Path, tmp_path: Path) -> None:
    real = tmp_path / "real-docs"
    real.mkdir()
    (real / "cv.pdf").write_bytes(b"cv")
    (home / "docs").symlink_to(real, target_is_directory=True)
    policy = UploadPolicy(allowed_dirs=(home / "docs",))
    assert policy.check("~/docs/cv.pdf") == real / "cv.pdf"
    assert "not in a folder you may upload from" in refusal(policy, "~/docs/../.ssh/id_rsa")


def test_the_apps_own_folders_are_never_uploadable(home: Path, app_data: Path) -> None:
    cookies = app_data / "browser-profile" / "Default" / "Cookies"
    # Even when the user allowed a folder that holds them, and even when the task names the file.
    policy = UploadPolicy(allowed_dirs=(home,), forbidden_dirs=(app_data,))
    message = refusal(policy, str(cookies), f"Upload {cookies} please")
    assert "Page Agent's own data" in message
    # Through a symlink in an allowed folder, too.
    (home / "cookies.db").symlink_to(cookies)
    assert "Page Agent's own data" in refusal(policy, "~/cookies.db")


def test_an_app_folder_reached_through_a_symlinked_path_is_still_the_apps(home: Path, tmp_path: Path) -> None:
    real_data = tmp_path / "elsewhere" / "data"
    (real_data / "runs").mkdir(parents=True)
    (real_data / "runs" / "run.json").write_text("{}")
    (home / "data-link").symlink_to(real_data, target_is_directory=True)
    policy = UploadPolicy(allowed_dirs=(tmp_path,), forbidden_dirs=(home / "data-link",))
    assert "Page Agent's own data" in refusal(policy, str(real_data / "runs" / "run.json"))


def test_hidden_files_in_an_allowed_folder_need_the_user_to_name_them(home: Path, allowed: Path) -> None:
    (allowed / ".env").write_text("API_KEY=1")
    (allowed / ".git").mkdir()
    (allowed / ".git" / "config").write_text("[core]")
    policy = UploadPolicy(allowed_dirs=(home,))
    assert "hidden" in refusal(policy, str(home / ".ssh" / "id_rsa"))
    assert "hidden" in refusal(policy, str(allowed / ".git" / "config"))
    assert policy.check(str(allowed / ".env"), f"Upload {allowed}/.env to the form") == allowed / ".env"


def test_a_relative_path_is_refused_not_guessed(allowed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(allowed)
    policy = UploadPolicy(allowed_dirs=(allowed,))
    message = refusal(policy, "invoice.pdf", "Upload invoice.pdf")
    assert "not a full path" in message and f"Allowed folders: {allowed}" in message


def test_what_is_not_a_regular_file_is_refused(allowed: Path) -> None:
    os.mkfifo(allowed / "pipe")
    policy = UploadPolicy(allowed_dirs=(allowed,))
    assert "does not exist or is not a file" in refusal(policy, str(allowed / "pipe"))
    assert "does not exist or is not a file" in refusal(policy, str(allowed / "missing.pdf"))
    assert "does not exist or is not a file" in refusal(policy, str(allowed))
    assert "No file was given" in refusal(policy, "  ")


def test_system_files_are_never_uploadable_even_when_named() -> None:
    policy = UploadPolicy(allowed_dirs=(Path("/"),))
    assert "system file" in refusal(policy, "/proc/self/environ", "Upload /proc/self/environ")


def test_a_refusal_does_not_tell_whether_a_file_outside_the_folders_exists(home: Path, allowed: Path) -> None:
    policy = UploadPolicy(allowed_dirs=(allowed,))
    assert refusal(policy, str(home / ".ssh" / "id_rsa")) == refusal(policy, str(home / ".ssh" / "id_ed25519"))


def test_a_file_the_user_named_in_the_task_is_uploadable_without_a_folder(home: Path) -> None:
    cv = home / "My Documents" / "cv 2024.pdf"
    cv.parent.mkdir()
    cv.write_bytes(b"cv")
    plain = home / "report.pdf"
    plain.write_bytes(b"report")
    policy = UploadPolicy()
    assert policy.check("~/report.pdf", "Attach ~/report.pdf, then press Send.") == plain
    assert policy.check(str(plain), "Attach ~/report.pdf") == plain
    assert policy.check(str(cv), f'Upload "{cv}" to the job form') == cv
    assert policy.check(str(cv), "上传「~/My Documents/cv 2024.pdf」。") == cv
    assert policy.check(str(plain), f"请上传 {plain}。") == plain
    # Another file in the same folder was not named.
    assert "No file may be uploaded" in refusal(policy, str(home / ".ssh" / "id_rsa"), "Attach ~/report.pdf")


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("Upload /home/a/x.pdf.", {"/home/a/x.pdf.", "/home/a/x.pdf"}),
        ("Upload (~/x.pdf), then save", {"~/x.pdf),", "~/x.pdf)", "~/x.pdf"}),
        ("Use '/tmp/my file.txt' and `/tmp/b.txt`", {"/tmp/my file.txt", "/tmp/b.txt"}),
        ("file=/srv/a.csv;", {"/srv/a.csv;", "/srv/a.csv"}),
        ("open https://example.com/a and upload a/b/c.pdf", set()),
        ("上传“~/简历.pdf”到表单", {"~/简历.pdf"}),
    ],
)
def test_paths_are_read_from_the_task_as_a_person_writes_them(task: str, expected: set[str]) -> None:
    assert set(named_paths(task)) == expected
