"""``allfours-serve``: a bad argument is one line on stderr and exit status 2, before anything starts."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from serve.cli import is_loopback, main  # noqa: E402


@pytest.mark.parametrize("argv, message", [
    (["--port", "0"], "argument --port: must be a whole number from 1 to 65,535, got 0"),
    (["--port", "http"], "argument --port: invalid int value: 'http'"),
    (["--runs", "/no/such/folder"], "--runs /no/such/folder is not a folder"),
    (["--index", "x.sqlite"], "--index needs --runs DIR"),
    (["--host", "256.1.1.1"], "cannot listen on 256.1.1.1"),
    (["--colour"], "unrecognized arguments: --colour"),
])
def test_a_bad_argument_is_one_line_and_status_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("allfours-serve: error: ") and message in err


def test_a_port_in_use_is_named(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err == f"allfours-serve: error: port {port} is in use: give another with --port\n"


def test_an_index_that_is_a_folder_is_refused(tmp_path, capsys):
    assert main(["--runs", str(tmp_path), "--index", str(tmp_path)]) == 2
    assert "is a folder: give a file name" in capsys.readouterr().err


def test_python_dash_m_serve_answers_help():
    done = subprocess.run([sys.executable, "-m", "serve", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "--runs DIR" in done.stdout


def test_loopback_hosts():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")


def test_an_index_file_of_the_users_is_never_changed(tmp_path, capsys):
    import sqlite3

    mine = tmp_path / "mine.sqlite"
    with sqlite3.connect(mine) as db:
        db.execute("CREATE TABLE games (x)")
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    before = mine.read_bytes(), text.read_bytes()
    for index in (mine, text):
        assert main(["--runs", str(tmp_path), "--index", str(index)]) == 2
        assert "is not a leaderboard index of allfours-serve" in capsys.readouterr().err
    assert (mine.read_bytes(), text.read_bytes()) == before
