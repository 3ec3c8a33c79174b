"""PPO on the batched core inside ``jax.jit``: one call collects a rollout and updates the learner.

**Seats.** Every game of the batch gives each seat a controller when it is dealt: one seat, drawn
at random, is the learner (with its partner, in partnerships); every other seat is the learner too
(weight ``jax.self_play``), uniformly random legal play (``opponents.mix``'s ``random``) or a
frozen snapshot of the learner (``snapshot``: the snapshot drawn for the rollout, see
:mod:`train.jax.trainer`), or a Python bot of the mix (``heuristic``, any agent spec). The first
three decide inside the same ``jit``: the learner's and the snapshot's logits are computed for
every game, and each game takes those of the seat to move. A decision is :meth:`Learner.choose`
then :meth:`Learner.advance`; without Python bots the rollout scans them inside ``jit``
(:meth:`Learner.iterate`), with them :class:`train.jax.bots.BotRollout` calls them from Python and
lets the bots decide in between; both end in the same :meth:`Learner.learn`.

**Credit.** Each learner seat's decisions form a trajectory of their own, as the single-agent env
gives the SB3 learner (:mod:`allfours_env.wrappers`): the reward of a decision is the sum of what
its seat is paid (``State.rewards``) from that decision up to the seat's next decision, or to the
end of the episode — the game, or with ``episode = "hand"`` the hand (the batched core plays whole
games; a hand's end cuts the trajectories there, and the next hand's deal carries the scores on as
the AEC env's hand episodes do). Advantages are GAE over those per-seat trajectories, computed by
a reverse scan that carries, for every seat, the value, advantage and reward collected since its
next decision. At the rollout's end each seat's trajectory is bootstrapped with the critic's value
of that seat's own observation (:meth:`~allfours_env.batched.env.Env.observe`). Only the learner's
decisions enter the loss (a mask over the rollout); the opponents' do not.

**Privileged critic** (``ppo.privileged_critic``). The critic reads the deciding seat's observation
followed by the cards that seat cannot see (:func:`allfours_env.batched.hidden.hidden_cards`,
recorded with each decision as booleans), the rollout-end bootstrap of each seat likewise its own
observation and hidden cards; the actor reads the observation only (:meth:`Learner.heads`).

**Update.** ``ppo.n_epochs`` epochs of shuffled minibatches of the learner's decisions (a
``jax.minibatches``-th of the rollout each; the opponents' decisions are left out, see
:meth:`Learner.update`); the loss is SB3's
MaskablePPO's: clipped surrogate with per-minibatch normalised advantages, squared value error
(``vf_coef``), entropy bonus (``ent_coef``) of the masked distribution, gradients clipped to
``max_grad_norm``, Adam (:mod:`train.jax.network`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from allfours_env import batched
from allfours_env.batched.hidden import hidden_cards
from allfours_env.rules import Rules
from train.config import TrainConfig
from train.jax import network

#: Controllers of a seat; a Python bot's is ``BOT`` + its index in :attr:`Learner.bots`.
LEARNER, RANDOM, SNAPSHOT, BOT = 0, 1, 2, 3
#: The opponent kinds of ``opponents.mix`` that play inside ``jit``, by controller.
KINDS = {"random": RANDOM, "snapshot": SNAPSHOT}


def python_bots(config: TrainConfig) -> list[str]:
    """The agent specs of ``opponents.mix``, its schedule and ``opponents.partner`` that play outside
    ``jit`` (every kind but ``random`` and ``snapshot``), in the order they are first named."""
    mixes = [config.opponents.mix, *(stage["mix"] for stage in config.opponents.schedule)]
    named = [kind for mix in mixes for kind in mix]
    if config.opponents.partner != "learner":
        named.append(config.opponents.partner)
    return list(dict.fromkeys(kind for kind in named if kind not in KINDS))


def partner_controller(config: TrainConfig) -> int:
    """The controller of the learner's partner (``opponents.partner``, an agent spec or ``learner``):
    LEARNER, RANDOM or ``BOT`` + the bot's index in :func:`python_bots`."""
    partner = config.opponents.partner
    if partner == "learner":
        return LEARNER
    if partner == "random":
        return RANDOM
    return BOT + python_bots(config).index(partner)


class Batch(NamedTuple):
    """What the loop carries between two calls: the games in progress and their seats' controllers."""

    state: Any
    controllers: jax.Array


class Learner:
    """The jitted functions of one config: :meth:`start` (deal the batch) and :meth:`iterate`."""

    def __init__(self, config: TrainConfig) -> None:
        rules = Rules.make(config.preset, config.num_players, **config.knobs)
        self.env = batched.make(config.preset, config.num_players, reward=config.reward,
                                points_share=config.jax.points_share, **config.knobs)
        self.players = config.num_players
        self.side = jnp.asarray(np.array([rules.side_of(s) for s in range(self.players)], np.int32))
        self.num_envs = config.jax.num_envs
        self.steps = config.jax.rollout_steps
        self.minibatches = config.jax.minibatches
        self.hand_episodes = config.episode == "hand"
        self.ppo = config.ppo
        self.activation = config.ppo.activation
        self.privileged = config.ppo.privileged_critic
        self.snapshots = any(k == "snapshot" for k in config.opponents.mix) or any(
            "snapshot" in stage["mix"] for stage in config.opponents.schedule)
        self.bots = python_bots(config)
        self.partner = partner_controller(config)
        self._step = jax.vmap(batched.auto_reset(self.env))
        self.start = jax.jit(self._start)
        self.iterate = jax.jit(self._iterate)

    # ------------------------------------------------------------ seats

    def draw(self, key: jax.Array, probs: jax.Array) -> jax.Array:
        """Controllers of every seat of ``num_envs`` new games (int32[games, players]): the learner's
        seat, drawn; its partner's (in partnerships) :attr:`partner`; ``probs`` weighs LEARNER,
        RANDOM, SNAPSHOT and each of :attr:`bots` for the seats not on the learner's side."""
        seat_key, kind_key = jax.random.split(key)
        seat = jax.random.randint(seat_key, (self.num_envs,), 0, self.players)
        kinds = jax.random.categorical(kind_key, jnp.log(probs), shape=(self.num_envs, self.players))
        learner_side = self.side[seat][:, None] == self.side[None, :]
        own = seat[:, None] == jnp.arange(self.players)[None, :]
        return jnp.where(own, LEARNER, jnp.where(learner_side, self.partner, kinds)).astype(jnp.int32)

    def _start(self, key: jax.Array, probs: jax.Array) -> Batch:
        deal_key, seat_key = jax.random.split(key)
        state = jax.vmap(self.env.init)(jax.random.split(deal_key, self.num_envs))
        return Batch(state, self.draw(seat_key, probs))

    # ------------------------------------------------------------ the networks

    def hidden(self, state, seat: jax.Array) -> jax.Array | None:
        """bool[..., 212]: what ``seat`` of each game cannot see (a batch of games and seats of the
        same leading shape), for a privileged critic; ``None`` without one."""
        if not self.privileged:
            return None
        return jax.vmap(lambda s, who: hidden_cards(s, who, self.players).astype(bool))(state, seat)

    def heads(self, params, obs: jax.Array, mask: jax.Array, hidden: jax.Array | None
              ) -> tuple[jax.Array, jax.Array]:
        """The actor's masked logits (of the observation only) and the critic's value (of the
        observation and, with a privileged critic, the hidden cards) of a batch of decisions."""
        logits = network.masked_logits(params["actor"], obs, mask, self.activation)
        value = network.mlp(params["critic"], network.critic_input(obs, hidden), self.activation)[:, 0]
        return logits, value

    # ------------------------------------------------------------ rollout

    def choose(self, params, snapshot, batch: Batch, key: jax.Array) -> dict[str, jax.Array]:
        """The first half of a decision in every game: the seat to move, its controller, the
        learner's logits and value, and the action of every seat that decides inside ``jit`` (a
        Python bot's seat gets a placeholder, replaced before :meth:`advance`)."""
        state, controllers = batch.state, batch.controllers
        act_key = jax.random.split(key, 3)[0]
        obs, mask, seat = state.observation, state.legal_action_mask, state.current_player
        who = jnp.take_along_axis(controllers, seat[:, None], axis=1)[:, 0]
        hidden = self.hidden(state, jnp.maximum(seat, 0))
        own, value = self.heads(params, obs, mask, hidden)
        logits = jnp.where((who == LEARNER)[:, None], own, jnp.where(mask, 0.0, -1e9))
        if self.snapshots:
            frozen = network.masked_logits(snapshot, obs, mask, self.activation)
            logits = jnp.where((who == SNAPSHOT)[:, None], frozen, logits)
        chosen = {"obs": obs, "mask": mask, "seat": seat, "who": who, "value": value,
                  "log_probs": jax.nn.log_softmax(own),
                  "action": jax.random.categorical(act_key, logits).astype(jnp.int32)}
        if hidden is not None:
            chosen["hidden"] = hidden
        return chosen

    def advance(self, batch: Batch, chosen: dict[str, jax.Array], probs, key: jax.Array
                ) -> tuple[Batch, dict[str, jax.Array]]:
        """The second half: every game takes ``chosen["action"]`` (the bots' actions put in by then),
        the games that end are dealt again with new controllers; returns the games and the
        decision's record (one row of the rollout)."""
        state, controllers, action, who = batch.state, batch.controllers, chosen["action"], chosen["who"]
        _, env_key, seat_key = jax.random.split(key, 3)
        logp = jnp.take_along_axis(chosen["log_probs"], action[:, None], axis=1)[:, 0]
        nxt, rewards, terminated, truncated = self._step(state, action,
                                                         jax.random.split(env_key, self.num_envs))
        game_end = terminated | truncated
        end = game_end | (nxt.hand_number != state.hand_number) if self.hand_episodes else game_end
        fresh = self.draw(seat_key, probs)
        record = {"obs": chosen["obs"], "mask": chosen["mask"], "action": action, "logp": logp,
                  "value": chosen["value"], "seat": chosen["seat"], "learner": who == LEARNER,
                  "rewards": rewards, "end": end, "game_end": game_end,
                  "learner_seats": controllers == LEARNER}
        if "hidden" in chosen:
            record["hidden"] = chosen["hidden"]
        return Batch(nxt, jnp.where(game_end[:, None], fresh, controllers)), record

    def bootstrap(self, params, batch: Batch) -> jax.Array:
        """float32[games, players]: the critic's value of every seat's own observation (and hidden
        cards, with a privileged critic) at the rollout's end."""
        every_seat = jnp.arange(self.players)
        seen = jax.vmap(lambda s: jax.vmap(lambda seat: self.env.observe(s, seat))(every_seat))(batch.state)
        if self.privileged:
            hidden = jax.vmap(lambda s: jax.vmap(lambda seat: hidden_cards(s, seat, self.players))(every_seat)
                              )(batch.state)
            seen = network.critic_input(seen, hidden)
        return network.mlp(params["critic"], seen, self.activation)[..., 0]

    def _rollout(self, params, snapshot, probs, batch: Batch, key: jax.Array):
        def decide(carry: Batch, key: jax.Array):
            return self.advance(carry, self.choose(params, snapshot, carry, key), probs, key)

        batch, record = jax.lax.scan(decide, batch, self.step_keys(key))
        return batch, record, self.bootstrap(params, batch)

    def step_keys(self, rollout_key: jax.Array) -> jax.Array:
        """The key of each decision of a rollout (:meth:`choose` and :meth:`advance` split it)."""
        return jax.random.split(rollout_key, self.steps)

    def advantages(self, record: dict[str, jax.Array], bootstrap: jax.Array) -> jax.Array:
        """GAE over each seat's own trajectory (see the module docstring): float32[steps, games]."""
        gamma, lam = self.ppo.gamma, self.ppo.gae_lambda
        seats = jnp.arange(self.players)

        def back(carry, t):
            next_value, next_adv, collected, cut = carry
            end = t["end"][:, None]
            next_value = jnp.where(end, 0.0, next_value)
            next_adv = jnp.where(end, 0.0, next_adv)
            collected = jnp.where(end, 0.0, collected) + t["rewards"]
            cut = cut | end
            mine = t["seat"][:, None] == seats
            going = 1.0 - jnp.sum(mine * cut, axis=1)
            reward = jnp.sum(mine * collected, axis=1)
            delta = reward + gamma * going * jnp.sum(mine * next_value, axis=1) - t["value"]
            adv = delta + gamma * lam * going * jnp.sum(mine * next_adv, axis=1)
            carry = (jnp.where(mine, t["value"][:, None], next_value),
                     jnp.where(mine, adv[:, None], next_adv),
                     jnp.where(mine, 0.0, collected), jnp.where(mine, False, cut))
            return carry, adv

        zeros = jnp.zeros_like(bootstrap)
        inputs = {k: record[k] for k in ("end", "rewards", "seat", "value")}
        _, adv = jax.lax.scan(back, (bootstrap, zeros, zeros, jnp.zeros(bootstrap.shape, bool)), inputs,
                              reverse=True)
        return adv

    # ------------------------------------------------------------ update

    def loss(self, params, data: dict[str, jax.Array]):
        """MaskablePPO's loss over the learner's decisions of a minibatch, and its metrics."""
        ppo = self.ppo
        weight = data["learner"].astype(jnp.float32)
        count = jnp.maximum(weight.sum(), 1.0)

        def mean(x):
            return jnp.sum(weight * x) / count

        logits, value = self.heads(params, data["obs"], data["mask"], data.get("hidden"))
        logp_all = jax.nn.log_softmax(logits)
        logp = jnp.take_along_axis(logp_all, data["action"][:, None], axis=1)[:, 0]
        adv = data["adv"]
        centred = adv - mean(adv)
        adv = centred / (jnp.sqrt(mean(centred ** 2)) + 1e-8)
        log_ratio = logp - data["logp"]
        ratio = jnp.exp(log_ratio)
        clipped = jnp.clip(ratio, 1 - ppo.clip_range, 1 + ppo.clip_range)
        policy_loss = -mean(jnp.minimum(ratio * adv, clipped * adv))
        value_loss = mean((data["returns"] - value) ** 2)
        entropy = mean(-jnp.sum(jnp.exp(logp_all) * logp_all, axis=1))
        total = policy_loss + ppo.vf_coef * value_loss - ppo.ent_coef * entropy
        metrics = {"train/policy_loss": policy_loss, "train/value_loss": value_loss,
                   "train/entropy": entropy, "train/approx_kl": mean(ratio - 1 - log_ratio),
                   "train/clip_fraction": mean((jnp.abs(ratio - 1) > ppo.clip_range).astype(jnp.float32))}
        return total, metrics

    def update(self, params, opt, data: dict[str, jax.Array], key: jax.Array, learning_rate: jax.Array):
        """``ppo.n_epochs`` epochs of shuffled minibatches over ``data`` (one rollout, flattened), Adam
        steps of ``learning_rate``.

        Each epoch shuffles the learner's decisions and puts them first, so the minibatches hold
        learner decisions only, but for the last one that holds any; the minibatches after it hold
        none and are skipped (no gradient, no Adam step): an opponent's decision costs no update
        arithmetic. A minibatch is thus ``jax.minibatches``-th of the rollout in learner decisions,
        as SB3's ``batch_size`` counts the learner's decisions only. The metrics are the means over
        the minibatches that ran."""
        size = self.num_envs * self.steps
        gradient = jax.grad(self.loss, has_aux=True)
        shapes = jax.eval_shape(lambda p, d: gradient(p, d)[1], params,
                                jax.tree.map(lambda x: x[: size // self.minibatches], data))
        skipped = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)

        def step(carry, part):
            params, opt = carry
            grads, metrics = gradient(params, part)
            params, opt = network.adam_step(params, grads, opt, learning_rate, self.ppo.max_grad_norm)
            return (params, opt), metrics

        def minibatch(carry, part):
            ran = jnp.any(part["learner"])
            carry, metrics = jax.lax.cond(ran, step, lambda carry, _: (carry, skipped), carry, part)
            return carry, (metrics, ran)

        def epoch(carry, key):
            draw = jax.random.uniform(key, (size,))
            order = jnp.argsort(jnp.where(data["learner"], draw, draw + 2.0))  # the learner's first
            parts = jax.tree.map(lambda x: x[order].reshape(self.minibatches, size // self.minibatches,
                                                            *x.shape[1:]), data)
            return jax.lax.scan(minibatch, carry, parts)

        (params, opt), (metrics, ran) = jax.lax.scan(epoch, (params, opt),
                                                     jax.random.split(key, self.ppo.n_epochs))
        runs = jnp.maximum(jnp.sum(ran), 1)
        return params, opt, jax.tree.map(lambda m: jnp.sum(m) / runs, metrics)

    def _iterate(self, params, opt, snapshot, probs, batch: Batch, key: jax.Array, learning_rate: jax.Array):
        """One rollout of ``jax.rollout_steps`` decisions in every game, then the update at
        ``learning_rate``; returns the new learner, the games in progress and the metrics (learner
        decisions, games ended, ...)."""
        rollout_key, update_key = jax.random.split(key)
        batch, record, bootstrap = self._rollout(params, snapshot, probs, batch, rollout_key)
        params, opt, metrics = self.learn(params, opt, record, bootstrap, update_key, learning_rate)
        return params, opt, batch, metrics

    def learn(self, params, opt, record: dict[str, jax.Array], bootstrap: jax.Array, key: jax.Array,
              learning_rate: jax.Array):
        """The update at ``learning_rate`` from one rollout's ``record`` (rows of :meth:`advance`,
        stacked: [steps, games, ...]) and its ``bootstrap``: the new learner, its Adam state and the
        rollout's metrics."""
        adv = self.advantages(record, bootstrap)
        size = self.num_envs * self.steps
        data = {k: record[k].reshape(size, *record[k].shape[2:])
                for k in ("obs", "mask", "action", "logp", "learner", "hidden") if k in record}
        data["adv"] = adv.reshape(size)
        data["returns"] = (adv + record["value"]).reshape(size)
        params, opt, metrics = self.update(params, opt, data, key, learning_rate)
        mixed = jnp.any(~record["learner_seats"], axis=2)  # games with an opponent that is not the learner
        won = jnp.sum(record["rewards"] * record["learner_seats"] * mixed[..., None])
        games = jnp.sum(record["game_end"] & mixed)
        metrics |= {"learner_steps": jnp.sum(record["learner"]), "games": jnp.sum(record["game_end"]),
                    "rollout/reward_vs_opponents": won / jnp.maximum(games, 1)}
        return params, opt, metrics
