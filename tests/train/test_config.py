"""The training config (train.config, train.checks): every setting checked for type and range,
with an upper bound on every count, each problem one line before anything is written."""

import re

import pytest

from agents import AgentError, make_agent
from train import ConfigError, load
from train.__main__ import main
from train.config import CONFIG_DIR, RULES, flatten


@pytest.mark.parametrize("override, message", [
    ("preset=bridge", "unknown preset"),
    ("learning_rate=1", "unknown config key"),
    ("ppo.lr=1", "unknown key"),
    ("n_envs=0", "n_envs"),
    ("opponents.mix={wizard=1}", "unknown agent"),
    ("reward=score", "reward"),
    ("ppo.privileged_critic=1", "privileged_critic"),
    ("opponents.schedule=[{at=500,mix={random=1}},{at=100,mix={random=1}}]", "opponents.schedule"),
    ("opponents.schedule=[{at=500,mix={random=0}}]", "opponents.schedule"),
    ("opponents.schedule=[{at=500,mix={wizard=1}}]", "unknown agent"),
    ("average_since=-1", "average_since"),
    ("average_since=400000", "average_since"),
    ("average_since=250000", "would average the final checkpoint alone"),
    ("total_timesteps=abc", "total_timesteps must be a whole number"),
    ('total_timesteps="lots"', "total_timesteps must be a whole number"),
    ("total_timesteps=1.5", "total_timesteps"),
    ("total_timesteps=true", "total_timesteps"),
    ("ppo.net_arch=64", "ppo.net_arch must be a list"),
    ("ppo.net_arch=[64,0]", "ppo.net_arch"),
    ("ppo.learning_rate=-1", "ppo.learning_rate must be a number > 0"),
    ("ppo.learning_rate=abc", "ppo.learning_rate must be a number > 0"),
    ("ppo.learning_rate=nan", "ppo.learning_rate"),
    ("ppo.gamma=1.5", "ppo.gamma"),
    ("ppo.gae_lambda=-0.1", "ppo.gae_lambda"),
    ("ppo.clip_range=0", "ppo.clip_range"),
    ("ppo.ent_coef=-1", "ppo.ent_coef"),
    ("ppo.batch_size=1", "ppo.batch_size"),
    ("ppo.activation=gelu", "ppo.activation"),
    ("seed=-1", "seed must be a whole number from 0"),
    ("num_players=7", "num_players"),
    ("knobs=3", "knobs"),
    ("knobs={target_points=0}", "target_points"),
    ("episode=3", "episode"),
    ("eval.opponents=[]", "eval.opponents"),
    ("eval.opponents='random'", "eval.opponents"),
    ("eval.opponents=['random','random']", "eval.opponents"),
    ("eval.final_opponents=[1]", "eval.final_opponents"),
    ("eval.every=0", "eval.every"),
    ("opponents.partner=3", "opponents.partner"),
    ("opponents.pool_size=0", "opponents.pool_size"),
    ("imitation.teacher=3", "imitation.teacher"),
    ("imitation.learning_rate=0", "imitation.learning_rate"),
    ("imitation.dagger_rounds=-1", "imitation.dagger_rounds"),
    ("imitation.dataset=[1]", "imitation.dataset"),
    ("ppo=3", "[ppo] must be a table"),
])
def test_bad_configs_are_reported_in_one_line(override, message, capsys, tmp_path):
    assert main(["--set", override, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("override, message", [
    ("n_envs=100000", "n_envs must be a whole number of environments (a process each) from 1 to 256"),
    ("total_timesteps=99999999999999999", "total_timesteps must be a whole number of timesteps from 1 to"),
    ("eval.games=99999999999", "eval.games must be a whole number of games from 1 to 10,000,000"),
    ("eval.final_games=99999999999", "eval.final_games must be a whole number of games from 1 to"),
    ("eval.workers=100000", "eval.workers must be a whole number of processes from 1 to 256"),
    ("eval.every=99999999999999999", "eval.every must be a whole number of timesteps from 1 to"),
    ("torch_threads=100000", "torch_threads must be a whole number of threads from 1 to 256"),
    ("imitation.workers=100000", "imitation.workers"),
    ("imitation.games=99999999999", "imitation.games"),
    ("imitation.dagger_games=99999999999", "imitation.dagger_games"),
    ("imitation.dagger_rounds=100000", "imitation.dagger_rounds"),
    ("imitation.epochs=100000", "imitation.epochs"),
    ("ppo.n_epochs=100000", "ppo.n_epochs must be a whole number of epochs from 1 to 1,000"),
    ("ppo.n_steps=99999999", "ppo.n_steps"),
    ("ppo.batch_size=99999999", "ppo.batch_size"),
    ("ppo.net_arch=[1000000]", "ppo.net_arch"),
    ("opponents.pool_size=100000", "opponents.pool_size"),
    ("opponents.snapshot_every=99999999999", "opponents.snapshot_every"),
    ("average_since=99999999999999999", "average_since"),
    ("rllib.num_env_runners=100000", "rllib.num_env_runners must be a whole number of env runners"),
    ("rllib.num_envs_per_env_runner=100000", "rllib.num_envs_per_env_runner must be a whole number"),
    ("rllib.num_learners=100000", "rllib.num_learners must be a whole number of learner actors"),
    ("rllib.num_cpus_per_env_runner=1e9", "rllib.num_cpus_per_env_runner must be a number of CPUs"),
    ("rllib.num_gpus_per_learner=1e9", "rllib.num_gpus_per_learner must be a number of GPUs"),
])
def test_every_count_has_an_upper_bound(override, message):
    """n_envs=100000 used to fork until 'Too many open files'; eval.games=10**11 to run for ever."""
    with pytest.raises(ConfigError, match=re.escape(message)):
        load(None, [override])


def test_the_rollout_held_in_memory_is_bounded():
    load(None, ["ppo.n_steps=4096", "n_envs=256"])
    with pytest.raises(ConfigError, match=r"ppo.n_steps × n_envs is the rollout .* at most 1,048,576"):
        load(None, ["ppo.n_steps=8192", "n_envs=256"])


def test_a_knob_that_does_not_apply_to_the_game_is_refused_before_anything_is_written(tmp_path, capsys):
    """partnerships with 3 players used to start training a game of three players alone."""
    out = tmp_path / "run"
    assert main(["--set", "preset=auction_pitch", "num_players=3", "knobs={partnerships=true}",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "knob partnerships has no effect with 3 players" in err and err.count("\n") == 1
    assert not out.exists()


def test_a_partner_in_a_game_without_partnerships_is_refused_before_anything_is_written(tmp_path, capsys):
    """opponents.partner names the seat beside the learner; in a game of players alone it would be
    ignored."""
    out = tmp_path / "run"
    assert main(["--set", "preset=auction_pitch", "num_players=4", "opponents.partner=heuristic",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "opponents.partner = 'heuristic' has no seat" in err and err.count("\n") == 1
    assert not out.exists()


def test_every_setting_has_a_type_and_range_check():
    assert set(flatten(load().to_dict())) == set(RULES)


def test_a_config_built_by_hand_is_checked_too(tmp_path):
    from train import TrainConfig, run

    with pytest.raises(ConfigError, match="total_timesteps must be a whole number"):
        run(TrainConfig(total_timesteps="lots", out=str(tmp_path / "x")))
    assert not (tmp_path / "x").exists()


def test_whole_numbers_are_accepted_for_float_settings_and_out_is_checked_too():
    config = load(None, ["ppo.learning_rate=1", "ppo.gamma=1"])
    assert config.ppo.learning_rate == 1.0 and isinstance(config.ppo.learning_rate, float)
    with pytest.raises(ConfigError, match="out must be a folder path"):
        load(None, ["out=''"])


def test_missing_config_file_names_the_shipped_ones():
    with pytest.raises(ConfigError, match="quick"):
        load("nonexistent")


def test_a_config_with_a_base_is_the_base_with_its_own_settings_on_top(tmp_path):
    (tmp_path / "longer.toml").write_text('base = "full"\ntotal_timesteps = 3_000_000\n'
                                          "[ppo]\nlearning_rate = 5e-5\n")
    (tmp_path / "on_don.toml").write_text('base = "longer.toml"\npreset = "don"\n')
    full, config = load("full"), load(tmp_path / "on_don.toml", ["seed=7"])
    assert (config.preset, config.total_timesteps, config.seed) == ("don", 3_000_000, 7)
    assert config.ppo.learning_rate == 5e-5
    assert config.ppo.n_epochs == full.ppo.n_epochs and config.ppo.net_arch == full.ppo.net_arch
    assert config.opponents == full.opponents and config.imitation == full.imitation


@pytest.mark.parametrize("text, message", [
    ('base = "nowhere"', "no config file .*nowhere.*the base of"),
    ("base = 3", "base must name another config"),
    ('base = "self.toml"', "is its own base"),
])
def test_a_bad_base_is_one_clear_error(tmp_path, text, message):
    (tmp_path / "self.toml").write_text(text)
    with pytest.raises(ConfigError, match=message):
        load(tmp_path / "self.toml")


def test_policy_files_that_cannot_be_used_give_clear_errors(tmp_path):
    with pytest.raises(AgentError, match="no policy file"):
        make_agent(f"ppo:{tmp_path / 'missing.npz'}")
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_text("garbage")
    with pytest.raises(AgentError, match="not a policy weights file"):
        make_agent(f"ppo:{corrupt}")


@pytest.mark.parametrize("name", sorted(p.stem for p in CONFIG_DIR.glob("*.toml")))
def test_every_shipped_config_loads_and_names_agents_that_build(name):
    config = load(name)
    for kind in config.opponents.mix:
        if kind != "snapshot":
            make_agent(kind)
    if config.imitation.teacher:
        make_agent(config.imitation.teacher)
