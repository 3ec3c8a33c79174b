"""Files a user is handed never run code, and bad input to the training tools is one line.

Each crafted file carries a harmless payload — unpickling it creates a marker file — and is fed to
every project entry point that reads such files: ``make_agent("ppo:FILE")``, ``python -m evaluate``,
``python -m agents.play``, an opponent of a training config, ``python -m train.average`` and
``python -m train --resume`` of a run holding it. The marker must never appear, and the user gets
one clear line. Then every bad input of the training tools: one line on stderr, exit status 2, no
traceback, and no file of the run changed.
"""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents import AgentError, make_agent
from agents.play import main as play_main
from conftest import exit_status
from evaluate.__main__ import main as evaluate_main
from train import average
from train.__main__ import main as train_main
from train.config import ConfigError

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "agents" / "policies" / "seven_up_2p.npz"
TINY = ["total_timesteps=512", "n_envs=1", "ppo.n_steps=256", "ppo.batch_size=64", "ppo.n_epochs=1",
        "ppo.net_arch=[16]", "eval.every=256", "eval.games=2", "eval.final_games=2", "eval.workers=1",
        "opponents.mix={random=1}"]


class Payload:
    """Unpickling this creates the file ``marker`` (what an attacker would run instead)."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def sb3_zip(path: Path, marker: Path) -> Path:
    """A Stable-Baselines3-style model zip whose ``data`` holds a ``:serialized:`` payload."""
    payload = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload},
            "observation_space": {":type:": "<class 'gymnasium.spaces.box.Box'>", ":serialized:": payload}}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("_stable_baselines3_version", "2.3.0")
    return path


def pickled_npz(path: Path, marker: Path, meta: dict | None = None) -> Path:
    """An ``.npz`` whose array is an object array (a pickle with the payload), with valid-looking
    metadata beside it."""
    buffer = io.BytesIO()
    np.savez(buffer, **{"action_net.weight": np.array([Payload(marker)], dtype=object)})
    path.write_bytes(buffer.getvalue())
    meta = meta or json.loads(SHIPPED.with_suffix(".json").read_text())
    path.with_suffix(".json").write_text(json.dumps(meta))
    return path


def npy_bytes(shape: tuple, descr: str = "<f4", body: bytes = b"\0" * 64) -> bytes:
    """An ``.npy`` member whose header declares ``shape`` and ``descr`` but that holds only ``body``."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue() + body


def with_member(source: Path, path: Path, name: str, data: bytes) -> Path:
    """A copy at ``path`` of the weights file ``source`` (and its metadata) whose member ``name``
    (added if it is not there) holds ``data``."""
    with zipfile.ZipFile(source) as old:
        members = {info.filename: old.read(info) for info in old.infolist()}
    members[f"{name}.npy"] = data
    meta = source.with_suffix(".json").read_bytes()
    with zipfile.ZipFile(path, "w") as new:
        for member, content in members.items():
            new.writestr(member, content)
    path.with_suffix(".json").write_bytes(meta)
    return path


def lie_about_size(path: Path, name: str, size: int) -> None:
    """Make the zip directory of ``path`` say that its (stored) member ``name`` holds ``size`` bytes."""
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while data[at + 46:at + 46 + struct.unpack_from("<H", data, at + 28)[0]] != f"{name}.npy".encode():
        at = data.find(b"PK\x01\x02", at + 1)
    struct.pack_into("<II", data, at + 20, size, size)  # compressed and uncompressed sizes
    path.write_bytes(bytes(data))


def nested_json(path: Path) -> Path:
    """Replace the metadata beside ``path`` by 100,000 nested brackets."""
    path.with_suffix(".json").write_text("[" * 100_000 + "]" * 100_000)
    return path


HUGE = (2**44,)  # 64 TiB of float32
BIG = (2**28,)  # 1 GiB of float32: it would be allocated


def craft(kind: str, source: Path, path: Path, member: str = "action_net.weight") -> tuple[Path, str]:
    """A crafted copy of the policy file or checkpoint ``source`` and what its error says."""
    if kind == "huge":
        return with_member(source, path, member, npy_bytes(HUGE)), "shape (17592186044416,)"
    if kind == "big":
        return with_member(source, path, member, npy_bytes(BIG)), "declares shape (268435456,)"
    if kind == "lying":  # the zip directory claims the 4 GiB the header declares
        with_member(source, path, member, npy_bytes((2**30 - 100,)))
        lie_about_size(path, member, 0xFFFFFFF0)
        return path, "more than the whole file"
    assert kind == "json"
    if path != source:
        shutil.copy(source, path)
    return nested_json(path), "nests deeper than"


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A tiny finished training run (two checkpoints)."""
    out = tmp_path_factory.mktemp("trusted") / "run"
    assert train_main(["--set", *TINY, "--out", str(out), "--no-progress"]) == 0
    return out


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "PAYLOAD_RAN"
    yield path
    assert not path.exists(), "a crafted file ran its payload"


@pytest.mark.parametrize("kind", ["zip", "npz"])
def test_a_crafted_policy_file_runs_nothing_at_any_entry_point(kind, tmp_path, marker, capsys):
    crafted = (sb3_zip(tmp_path / "policy.zip", marker) if kind == "zip"
               else pickled_npz(tmp_path / "policy.npz", marker))
    spec = f"ppo:{crafted}"
    message = "Stable-Baselines3 .zip" if kind == "zip" else "pickled objects"
    with pytest.raises(AgentError, match=message):
        make_agent(spec)
    assert evaluate_main([spec, "random", "--games", "2", "--no-save", "--quiet"]) == 2
    assert message in capsys.readouterr().err
    assert play_main(["--opponent", spec, "--seed", "0"], input_fn=lambda _: "q", output=io.StringIO()) == 2
    assert message in capsys.readouterr().err
    for setting in (f"opponents.mix={{'{spec}'=1}}", f"eval.opponents=['{spec}']"):
        assert train_main(["--set", *TINY, setting, "--out", str(tmp_path / "never")]) == 2
        err = capsys.readouterr().err
        assert message in err and one_line(err)
        assert not (tmp_path / "never").exists()
    assert average.main([str(crafted), "--out", str(tmp_path / "avg.npz")]) == 2
    assert one_line(capsys.readouterr().err)


@pytest.mark.parametrize("kind", ["huge", "json"])
def test_a_policy_file_declaring_a_huge_array_or_deeply_nested_json_is_one_line_everywhere(
        kind, tmp_path, capsys):
    """A MemoryError or RecursionError traceback before; now one line naming the file."""
    crafted, message = craft(kind, SHIPPED, tmp_path / "policy.npz")
    spec = f"ppo:{crafted}"
    with pytest.raises(AgentError, match=re.escape(message)) as caught:
        make_agent(spec)
    assert str(crafted.with_suffix(".json" if kind == "json" else ".npz")) in str(caught.value)
    assert "\n" not in str(caught.value)
    assert evaluate_main([spec, "random", "--games", "2", "--no-save", "--quiet"]) == 2
    assert message in capsys.readouterr().err
    assert play_main(["--opponent", spec, "--seed", "0"], input_fn=lambda _: "q", output=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert message in err and one_line(err)
    for setting in (f"opponents.mix={{'{spec}'=1}}", f"eval.opponents=['{spec}']",
                    f"imitation.teacher='{spec}'"):
        assert train_main(["--set", *TINY, setting, "--out", str(tmp_path / "never")]) == 2
        err = capsys.readouterr().err
        assert message in err and one_line(err), (setting, err)
        assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("member, message", [
    ("action_net.weight", r"has shape \(268435456,\); the network .* needs \(117, 256\)"),
    ("extra", r"declares shape \(268435456,\) but holds 64 bytes"),
])
def test_a_declared_shape_is_checked_before_anything_is_allocated(member, message, tmp_path):
    """An actor layer's shape is what the network header says; any array holds no more than the file."""
    crafted = with_member(SHIPPED, tmp_path / "policy.npz", member, npy_bytes(BIG))
    tracemalloc.start()
    try:
        with pytest.raises(AgentError, match=message):
            make_agent(f"ppo:{crafted}")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak:,} bytes allocated"


def test_policy_metadata_is_bounded_in_size(tmp_path):
    crafted = shutil.copy(SHIPPED, tmp_path / "policy.npz")
    meta = json.loads(SHIPPED.with_suffix(".json").read_text())
    crafted.with_suffix(".json").write_text(json.dumps(meta | {"description": "x" * 5_000_000}))
    with pytest.raises(AgentError, match=r"policy.json is not valid policy metadata: it is 5,00.* bytes"):
        make_agent(f"ppo:{crafted}")


@pytest.mark.parametrize("kind", ["huge", "big", "lying", "json"])
def test_a_crafted_checkpoint_is_one_line_on_resume_and_average_and_allocates_nothing(
        kind, run, tmp_path, capsys):
    crafted = tmp_path / "crafted"
    shutil.copytree(run, crafted)
    newest = crafted / "checkpoints" / "step_512.npz"
    member = "action_net.weight" if kind == "huge" else "optimizer.0.exp_avg"  # an array the header
    _, message = craft(kind, newest, newest, member)                           # does not describe
    before = files_of(crafted)
    tracemalloc.start()
    try:
        assert train_main(["--resume", str(crafted), "--timesteps", "1024"]) == 2
        err = capsys.readouterr().err
        assert message in err and str(newest) in err and one_line(err), err
        assert average.main([str(crafted), "--out", str(tmp_path / "avg.npz")]) == 2
        err = capsys.readouterr().err
        assert message in err and one_line(err), err
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak:,} bytes allocated"
    assert files_of(crafted) == before
    assert not (tmp_path / "avg.npz").exists()


def test_deeply_nested_checkpoint_metadata_is_one_line_for_average_and_read_checkpoint(
        run, tmp_path, capsys):
    from train.checkpoints import read_checkpoint, saved_config

    crafted = tmp_path / "crafted"
    shutil.copytree(run, crafted)
    newest = nested_json(crafted / "checkpoints" / "step_512.npz")
    assert average.main([str(crafted), "--out", str(tmp_path / "avg.npz")]) == 2
    err = capsys.readouterr().err
    assert "step_512.json is not valid policy metadata: its JSON nests deeper than" in err and one_line(err)
    for read in (read_checkpoint, saved_config):
        with pytest.raises(ConfigError, match="nests deeper than"):
            read(newest)


def test_a_checkpoint_whose_config_builds_another_network_than_its_arrays_is_refused(run, tmp_path):
    """Resuming builds the model of the checkpoint's config: it may be no larger than its arrays."""
    from train.checkpoints import read_checkpoint

    crafted = tmp_path / "crafted"
    shutil.copytree(run, crafted)
    meta_path = crafted / "checkpoints" / "step_512.json"
    meta = json.loads(meta_path.read_text())
    meta["config"]["ppo"]["net_arch"] = [4096, 4096]
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ConfigError, match=r"not the one its config builds \(ppo.net_arch = \[4096, 4096\]"):
        read_checkpoint(crafted / "checkpoints" / "step_512.npz")


def test_the_old_pickled_policy_format_points_to_the_trusted_conversion(tmp_path, marker):
    with pytest.raises(AgentError, match=r"python -m train.convert .*policy.zip --trust"):
        make_agent(f"ppo:{sb3_zip(tmp_path / 'policy.zip', marker)}")


def test_a_run_with_a_crafted_checkpoint_or_pool_is_never_unpickled_on_resume(run, tmp_path, marker, capsys):
    # the old format: an SB3 checkpoint and a pickled pool
    old = tmp_path / "old"
    (old / "checkpoints").mkdir(parents=True)
    sb3_zip(old / "checkpoints" / "step_512.zip", marker)
    (old / "checkpoints" / "step_512.pool.pkl").write_bytes(pickle.dumps(Payload(marker)))
    (old / "checkpoints" / "step_512.json").write_text(json.dumps({"config": {}, "timesteps": 512}))
    before = files_of(old)
    assert train_main(["--resume", str(old), "--timesteps", "1024"]) == 2
    err = capsys.readouterr().err
    assert "old format" in err and "--trust" in err and one_line(err)
    assert average.main([str(old), "--out", str(tmp_path / "avg.npz")]) == 2
    assert "old format" in capsys.readouterr().err
    assert files_of(old) == before
    # the new format: a checkpoint whose arrays are pickles, and an old pool file beside a good one
    crafted = tmp_path / "crafted"
    shutil.copytree(run, crafted)
    newest = crafted / "checkpoints" / "step_512.npz"
    meta = json.loads(newest.with_suffix(".json").read_text())
    pickled_npz(newest, marker, meta)
    before = files_of(crafted)
    assert train_main(["--resume", str(crafted), "--timesteps", "1024"]) == 2
    err = capsys.readouterr().err
    assert "pickled objects" in err and one_line(err)
    assert average.main([str(crafted), "--out", str(tmp_path / "avg.npz")]) == 2
    assert "pickled objects" in capsys.readouterr().err
    assert files_of(crafted) == before
    beside = tmp_path / "beside"
    shutil.copytree(run, beside)
    (beside / "checkpoints" / "step_512.pool.pkl").write_bytes(pickle.dumps(Payload(marker)))
    assert train_main(["--resume", str(beside), "--timesteps", "768", "--no-progress"]) == 0  # never read


def test_a_crafted_imitation_dataset_runs_nothing(tmp_path, marker, capsys):
    dataset = tmp_path / "data.npz"
    np.savez(dataset, observations=np.array([Payload(marker)], dtype=object), meta=np.array("x"))
    args = ["--set", *TINY, "imitation.teacher=random", "imitation.opponent=random", "imitation.games=2",
            f"imitation.dataset={dataset}", "--out", str(tmp_path / "never")]
    assert train_main(args) == 2
    err = capsys.readouterr().err
    assert "imitation.dataset" in err and one_line(err)
    assert not (tmp_path / "never").exists()


def test_conversion_of_an_old_file_needs_the_trust_flag(tmp_path, marker, capsys):
    from train.convert import main as convert_main

    crafted = sb3_zip(tmp_path / "policy.zip", marker)
    assert convert_main([str(crafted)]) == 2
    err = capsys.readouterr().err
    assert "--trust" in err and "unpickles" in err and one_line(err)
    assert not crafted.with_suffix(".npz").exists()


# Bad input to the training tools: one line, exit status 2, nothing of the run changed.

def _bad_inputs(run: Path, tmp_path: Path) -> list[tuple[list[str], str]]:
    a_file = tmp_path / "a_file"
    a_file.write_text("mine")
    truncated = tmp_path / "truncated"
    shutil.copytree(run, truncated)
    newest = truncated / "checkpoints" / "step_512.npz"
    newest.write_bytes(newest.read_bytes()[:1000])
    dataset = tmp_path / "bad_data.npz"
    np.savez(dataset, observations=np.zeros((3, 5), np.float16))
    return [
        (["--set", *TINY, "--out", str(a_file)], "is a file, not a folder"),
        (["--set", *TINY, "--out", str(a_file / "run")], "is a file, so nothing can be written"),
        (["--set", *TINY, "--seed", "-1", "--out", str(run)], "seed must be a whole number from 0"),
        (["--set", *TINY, "ppo.learning_rate=abc", "--out", str(run)], "ppo.learning_rate must be a number"),
        (["--set", *TINY, "total_timesteps=abc", "--out", str(run)],
         "total_timesteps must be a whole number"),
        (["--set", *TINY, "eval.opponents=['ppo:missing.zip']", "--out", str(run)],
         "eval.opponents 'ppo:missing.zip': no policy file"),
        (["--set", *TINY, "--timesteps", "lots", "--out", str(run)], "invalid int value"),
        (["--resume", str(truncated), "--timesteps", "1024"], "not a policy weights file"),
        (["--resume", str(run), "--timesteps", "2000000", "--config", "full"], "network is fixed"),
        (["--set", *TINY, "imitation.teacher=random", f"imitation.dataset={dataset}", "--out", str(run)],
         "imitation.dataset"),
    ]


def test_every_bad_input_is_one_line_exit_2_and_changes_nothing(run, tmp_path, capsys):
    before = files_of(run)
    for args, message in _bad_inputs(run, tmp_path):
        truncated = files_of(tmp_path / "truncated")
        code = exit_status(train_main, args)
        err = capsys.readouterr().err
        assert code == 2 and message in err and one_line(err), (args, err)
        assert files_of(run) == before, args
        assert files_of(tmp_path / "truncated") == truncated, args
    assert (tmp_path / "a_file").read_text() == "mine"


def test_a_read_only_output_is_one_line_before_anything_is_written(run, tmp_path, monkeypatch, capsys):
    """Read-only folders cannot be made for root (the tests may run as root): os.access says no."""
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != locked and real_access(path, mode))
    assert train_main(["--set", *TINY, "--out", str(locked / "run")]) == 2
    err = capsys.readouterr().err
    assert "cannot write in" in err and one_line(err)
    assert average.main([str(run), "--out", str(locked / "avg.npz")]) == 2
    err = capsys.readouterr().err
    assert "cannot write in" in err and one_line(err)
    assert list(locked.iterdir()) == []


def test_the_command_line_prints_no_traceback(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for module, args in (("train", ["--seed", "-1", "--out", str(tmp_path / "x")]),
                         ("train", ["--set", "ppo.learning_rate=abc"]),
                         ("train.average", [str(tmp_path), "--out", str(tmp_path / "x")])):
        done = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                              cwd=tmp_path, env=env, timeout=300)
        assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_lost_run_sequence_leaves_the_other_run_untouched(tmp_path, monkeypatch, capsys):
    """A 2p quick run, a 3p run; then `--set num_players=3 --resume runs/try3p` without --out used
    to train into runs/quick (the default config's out). It continues runs/try3p instead."""
    monkeypatch.chdir(tmp_path)
    tiny = [item for item in TINY if item != "opponents.mix={random=1}"]
    tiny += ["opponents.mix={random=1,heuristic=1}", "imitation.teacher=''"]  # quick.toml, shrunk
    assert train_main(["--set", *tiny, "--no-progress"]) == 0  # into runs/quick, quick.toml's out
    quick = tmp_path / "runs" / "quick"
    assert (quick / "model.npz").is_file()
    assert train_main(["--set", *tiny, "num_players=3", "--out", "runs/try3p", "--no-progress"]) == 0
    before = files_of(quick)
    assert train_main(["--set", "num_players=3", "--resume", "runs/try3p", "--timesteps", "768",
                       "--no-progress"]) == 0
    assert files_of(quick) == before
    try3p = tmp_path / "runs" / "try3p"
    assert json.loads((try3p / "model.json").read_text())["trained_for"]["num_players"] == 3
    assert (try3p / "checkpoints" / "step_768.npz").is_file()
    capsys.readouterr()
    assert average.main(["runs/quick", "runs/try3p/checkpoints/step_768.npz", "--out", "avg.npz"]) == 2
    assert "num_players" in capsys.readouterr().err
    assert average.main(["runs/quick", "--out", "avg.npz"]) == 0
    assert [Path(p).parent.parent.name for p in json.loads(Path("avg.json").read_text())["averaged"]] == [
        "quick", "quick"]
    # 3 players: each opponent has its own table (two copies of it), the fair share is 1/3
    rows = [line.split(",") for line in (try3p / "eval.csv").read_text().splitlines()[1:]]
    assert {row[1] for row in rows} == {"random", "heuristic"}
    for opponent in ("random", "heuristic"):
        result = json.loads((try3p / "final_eval" / f"vs_{opponent}" / "results.json").read_text())
        assert sorted(result["config"]["agents"]) == sorted(["learner", opponent, f"{opponent}#2"])
