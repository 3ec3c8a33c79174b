"""Averaging the weights of a run's checkpoints (train.average)."""

import json

import numpy as np

from agents import make_agent
from conftest import TINY, npz
from train.__main__ import main


def test_checkpoint_average_is_the_mean_of_the_weights_and_plays(trained, tmp_path):
    from train import average

    out = tmp_path / "averaged.npz"
    assert average.main([str(trained), "--out", str(out)]) == 0
    steps = [npz(trained / "checkpoints" / f"step_{n}.npz") for n in (512, 1024)]
    mean = npz(out)
    assert set(mean) == {"mlp_extractor.policy_net.0.weight", "mlp_extractor.policy_net.0.bias",
                         "action_net.weight", "action_net.bias"}
    for name, array in mean.items():
        np.testing.assert_allclose(array, (steps[0][name] + steps[1][name]) / 2, rtol=1e-6, atol=1e-7)
    assert not np.allclose(steps[0]["action_net.weight"], steps[1]["action_net.weight"])
    meta = json.loads(out.with_suffix(".json").read_text())
    assert [p.rsplit("/", 1)[1] for p in meta["averaged"]] == ["step_512.npz", "step_1024.npz"]
    assert make_agent(f"ppo:{out}", seed=0).metadata["timesteps"] == 1024
    assert average.main([str(trained), "--since", "1000", "--out", str(tmp_path / "one.npz")]) == 0
    only = npz(tmp_path / "one.npz")
    np.testing.assert_array_equal(only["action_net.weight"], steps[1]["action_net.weight"])


def test_checkpoint_average_refuses_other_networks_unreadable_files_and_bad_outputs(
        trained, tmp_path, capsys):
    from train import average

    other = tmp_path / "other"
    assert main(["--set", *TINY, "total_timesteps=512", "ppo.net_arch=[16]", "--out", str(other),
                 "--no-progress"]) == 0
    cases = [
        ([str(trained), str(other / "checkpoints" / "step_512.npz")], "two checkpoints of step 512"),
        ([str(trained / "checkpoints" / "step_1024.npz"), str(other)], "ppo.net_arch"),
        ([str(trained), "--since", "5000"], "no checkpoints"),
    ]
    bad = tmp_path / "step_7.npz"
    bad.write_bytes(b"not a zip")
    cases.append(([str(bad)], "not a policy weights file"))
    for args, message in cases:
        assert average.main([*args, "--out", str(tmp_path / "x.npz")]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    existing = tmp_path / "taken.npz"
    existing.write_bytes(b"mine")
    for out, message in [(tmp_path / "x", "ends in .npz"), (tmp_path, "ends in .npz"),
                         (existing, "already exists"), (tmp_path / "a_file" / "x.npz", "is a file")]:
        (tmp_path / "a_file").write_text("mine")
        assert average.main([str(trained), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert existing.read_bytes() == b"mine"
    assert not (tmp_path / "x.npz").exists() and not (tmp_path / "x").exists()
