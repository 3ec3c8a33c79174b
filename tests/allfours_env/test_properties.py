"""Property tests over random games of every preset x player count (hypothesis)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from allfours_env import Game, Rules, replay
from allfours_env.actions import BEG, DISCARD_BASE, GIFT, HOLD, PASS, PLAY_BASE, RUN, STAND
from allfours_env.cards import JOKER, cards_of
from allfours_env.events import Phase
from allfours_env.knowledge import SeatView, known_voids, pack_mask, seen_draws
from conftest import ALL_PRESET_PLAYERS

MAX_DECISIONS = 20_000  # far above any real game; a game that runs this long is a bug

games = st.tuples(st.sampled_from(ALL_PRESET_PLAYERS), st.integers(0, 2**32 - 1))
MAX_HANDS = 60  # random bidders in the auction presets may never reach the target (engine.MAX_HANDS)
knob_variants = st.sampled_from([
    {}, {"undertrump": "banned_unless_no_choice"}, {"discards_in_play": True},
    {"high_rule": "captured", "low_rule": "captured"}, {"game_tie_rule": "non_dealer"},
    {"target_points": 3},
])


def where_cards_are(game):
    """Every place a card can be, as bit sets (R5: turn-ups are a place of their own)."""
    places = list(game.hands) + list(game.discards) + list(game.captured)
    places.append(sum(1 << c for c in game.turnups))
    places.append(sum(1 << c for c in game.trick_cards))
    places.append(sum(1 << c for c in game.deck[game.pos:]))
    return places


def reference_legal(game):
    """R3/K15, RD13/RD14, RD22 and the phase rules of §3, written independently of the engine."""
    seat, rules = game.current_player, game.rules
    hand = set(cards_of(game.hands[seat]))
    if game.phase == Phase.BID:
        bids = [value for kind, _, value in game.hand_log() if kind == "act"]
        high = max([b - PASS for b in bids if PASS < b < HOLD], default=0)
        legal = {PASS} | {PASS + k for k in range(high + 1, rules.bid_max + 1)}
        if seat == game.dealer and high and rules.dealer_may_hold:
            legal.add(HOLD)
        return legal
    if game.phase == Phase.BEG:
        return {STAND, BEG}
    if game.phase == Phase.GIFT_OR_RUN:
        blocked = False
        recipients = game.gift_recipients()
        if rules.gift_block == "any_recipient_would_win":
            blocked = any(game.scores[s] + rules.gift_points >= rules.target_points for s in recipients)
        elif rules.gift_block == "non_beggar_3p" and game.n == 3:
            other = (game.dealer + 2) % 3
            blocked = other in recipients and game.scores[other] + rules.gift_points >= rules.target_points
        return {RUN} if blocked else {GIFT, RUN}
    if game.phase == Phase.DISCARD:
        return {DISCARD_BASE + c for c in hand}
    trick = game.trick_cards
    if not trick:
        return {PLAY_BASE + c for c in hand}
    trump = game.trump

    def suit(card):  # the joker belongs to the trump suit (RD22)
        return trump if card == JOKER else card // 13

    def rank(card):  # the joker's place among the trumps (RD22), in halves of a rank
        if card != JOKER:
            return 2 * (card % 13)
        return 23 if rules.joker_rank == "second_highest" else -1

    led = suit(trick[0])
    if any(suit(c) == led for c in hand):
        allowed = {c for c in hand if suit(c) in (led, trump)}
    else:
        allowed = set(hand)
    trumps_in_trick = [rank(c) for c in trick if suit(c) == trump]
    if rules.undertrump == "banned_unless_no_choice" and led != trump and trumps_in_trick:
        lower = {c for c in allowed if suit(c) == trump and rank(c) < max(trumps_in_trick)}
        if allowed - lower:
            allowed -= lower
    return {PLAY_BASE + c for c in allowed}


def play_random(preset, num_players, seed, knobs=None, check=None):
    """A random game to its end, or to ``MAX_HANDS`` hands (random bidders may never finish)."""
    game = Game(Rules.make(preset, num_players, **(knobs or {})), seed=seed)
    rng = random.Random(seed)
    for _ in range(MAX_DECISIONS):
        if game.is_over or game.hand_number >= MAX_HANDS:
            return game
        if check:
            check(game)
        game.apply(rng.choice(game.legal_actions()))
    raise AssertionError(f"game did not end within {MAX_DECISIONS} decisions")


@settings(max_examples=300, deadline=None)
@given(games, knob_variants)
def test_invariants_hold_at_every_decision(game_spec, knobs):
    (preset, num_players), seed = game_spec
    awards_seen = []

    def check(game):
        places = where_cards_are(game)
        union = 0
        for cards in places:  # cards are conserved: every card is in exactly one place
            assert union & cards == 0
            union |= cards
        assert union == pack_mask(game)
        legal = game.legal_actions()
        assert legal and set(legal) == reference_legal(game)  # masks are exactly the legal moves
        assert len(set(legal)) == len(legal)
        assert game.legal_action_bits() == sum(1 << action for action in legal)
        # scores only move by an award, and every award is in the log
        assert [s - i for s, i in zip(game.scores, game.initial_scores)] == [
            sum(a.points for a in game.awards if a.side == s) for s in range(game.num_sides)
        ]
        assert len(game.awards) == sum(1 for kind, _, _ in game.log if kind == "award")
        awards_seen.append(len(game.awards))

    game = play_random(preset, num_players, seed, knobs, check)
    if game.is_over:
        assert game.winner is not None and game.scores[game.winner] >= game.rules.target_points
        assert sum(1 for s in game.scores if s >= game.rules.target_points) == 1  # the win is at once
    assert awards_seen == sorted(awards_seen)


@settings(max_examples=40, deadline=None)
@given(games)
def test_same_seed_replays_the_same_game_and_records_replay(game_spec):
    (preset, num_players), seed = game_spec
    first = play_random(preset, num_players, seed)
    second = play_random(preset, num_players, seed)
    assert first.record() == second.record()
    assert first.log == second.log
    replayed = replay(first.record())
    assert replayed.record() == first.record()


@settings(max_examples=60, deadline=None)
@given(games, st.integers(0, 200), st.sampled_from(["allowed", "banned_unless_no_choice"]))
def test_resample_never_contradicts_the_seats_knowledge(game_spec, stop_at, undertrump):
    (preset, num_players), seed = game_spec
    game = Game(Rules.make(preset, num_players, undertrump=undertrump), seed=seed)
    rng = random.Random(seed)
    for _ in range(stop_at):
        if game.is_over:
            return
        game.apply(rng.choice(game.legal_actions()))
    if game.is_over:
        return
    seat = game.current_player
    view = SeatView(game, seat)
    voids = known_voids(game, seat)
    seen = seen_draws(game, seat)
    for _ in range(3):
        world = view.resample(rng)
        assert world.hands[seat] == game.hands[seat] and world.discards[seat] == game.discards[seat]
        assert world.turnups == game.turnups and world.trick_cards == game.trick_cards
        assert world.captured == game.captured and world.scores == game.scores
        assert world.legal_actions() == game.legal_actions()
        places = where_cards_are(world)
        union = 0
        for cards in places:
            assert union & cards == 0
            union |= cards
        assert union == pack_mask(game)
        top = view.stock_top()
        assert top < 0 or world.deck[world.pos] == top  # a face-up top card stays (RD10)
        for q in range(num_players):
            assert world.hands[q].bit_count() == game.hands[q].bit_count()
            assert world.discards[q].bit_count() == game.discards[q].bit_count()
            assert world.hands[q] & seen[q] == seen[q]  # cards seen drawn stay in their hands
            assert world.hands[q] & ~seen[q] & voids[q] == 0
            if game.start_hands is not None:
                assert world.in_play()[q] & ~world.hands[q] == game.in_play()[q] & ~game.hands[q]
        # the world plays on legally to the end of the hand
        deal = len(world.decks)
        while not world.is_over and len(world.decks) == deal:
            world.apply(rng.choice(world.legal_actions()))
