"""The rules configuration (docs/rules.md §4): presets, knobs and their typed values, validation,
and the RulePlan derived from them."""


import pytest

from allfours_env import PRESETS, Rules, RulesError

TABLE = {  # docs/rules.md §4, K1..K16 per preset
    "seven_up": dict(players=(2, 3, 4), direction="cw", trump_selection="turnup",
                     turnup_scores=(("J", 1),), run_turnup_scoring="only_if_sets_trump", gift_points=1,
                     gift_recipients="all_dealer_opponents", gift_block="non_beggar_3p",
                     exhausted_deck_rule="redeal_keep", discard_after_run="to_hand_size",
                     jack_points=1, hang_jack_points=1, game_points=1, game_tie_rule="seven_up",
                     target_points=7),
    "all_fours": dict(players=(2, 3, 4), direction="cw", run_turnup_scoring="every_turnup",
                      gift_recipients="beggar_side", gift_block="none", exhausted_deck_rule="redeal_void",
                      discard_after_run="to_hand_size", game_tie_rule="nobody", target_points=11),
    "trinidad": dict(players=(2, 4), direction="ccw", turnup_scores=(("6", 2), ("J", 3), ("A", 1)),
                     run_turnup_scoring="every_turnup", gift_recipients="beggar_side", gift_block="none",
                     exhausted_deck_rule="redeal_keep", discard_after_run="none", hang_jack_points=3,
                     game_tie_rule="nobody", target_points=14),
    "blind_all_fours": dict(players=(2, 3, 4), trump_selection="first_lead", game_tie_rule="nobody",
                            target_points=7),
}


@pytest.mark.parametrize("preset", sorted(TABLE))
def test_presets_match_the_rules_table(preset):
    rules = Rules.make(preset, 2)
    for knob, value in TABLE[preset].items():
        assert getattr(rules, knob) == value, knob
    assert rules.partnerships and rules.high_rule == rules.low_rule == "held"
    assert rules.undertrump == "allowed" and rules.discards_in_play is False


def test_default_is_seven_up_two_players():
    rules = Rules.make()
    assert rules.preset == "seven_up" and rules.num_players == 2
    assert set(TABLE) < set(PRESETS)


def test_overrides_apply_and_survive_a_dict_round_trip():
    rules = Rules.make("seven_up", 3, target_points=11, turnup_scores={"J": 1, "A": 2})
    assert rules.target_points == 11 and rules.turnup_points == {"J": 1, "A": 2}
    assert Rules.from_dict(rules.to_dict()) == rules
    assert rules.replace(target_points=5).target_points == 5


def test_D12_replace_applies_the_same_checks_as_make():
    blind = Rules.make("blind_all_fours", 2)
    with pytest.raises(RulesError, match="gift_points has no effect with trump_selection='first_lead'"):
        blind.replace(gift_points=2)
    with pytest.raises(RulesError, match="unknown knob 'colour': the knobs are players, "):
        blind.replace(colour="red")
    assert blind.replace(num_players=3).num_players == 3


def test_sides_and_partnerships():
    assert Rules.make("seven_up", 4).num_sides == 2
    assert [Rules.make("seven_up", 4).side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert Rules.make("seven_up", 4, partnerships=False).num_sides == 4
    assert Rules.make("seven_up", 3).num_sides == 3


@pytest.mark.parametrize("kwargs, message", [
    (dict(preset="bridge"), "unknown preset 'bridge'.*seven_up"),
    (dict(target=7), "unknown knob 'target'.*target_points"),
    (dict(game_tie_rule="dealer"), "game_tie_rule='dealer'.*'nobody'"),
    (dict(undertrump=True), "undertrump=True"),
    (dict(target_points=0), "target_points"),
    (dict(target_points="7"), "target_points"),
    (dict(gift_points=-1), "gift_points"),
    (dict(turnup_scores={"X": 1}), "turnup_scores"),
    (dict(turnup_scores={"J": 0}), "turnup_scores"),
    (dict(hand_size=7), "hand_size"),
    (dict(scoring_order=("high", "low", "game")), "scoring_order"),
    (dict(partnerships="yes"), "partnerships"),
    (dict(preset="trinidad", num_players=3), "trinidad.*2, 4 players, not 3"),
    (dict(num_players=5), "not 5"),
    (dict(players=(2, 5)), "players"),
    (dict(preset="blind_all_fours", gift_points=2), "gift_points has no effect"),
])
def test_bad_rules_raise_a_message_naming_the_allowed_values(kwargs, message):
    with pytest.raises(RulesError, match=message):
        Rules.make(**kwargs)


def test_player_count_can_be_widened_by_overriding_K1():
    assert Rules.make("trinidad", 3, players=(2, 3, 4)).num_players == 3


def test_from_dict_rejects_a_dict_of_another_version():
    data = Rules.make().to_dict()
    del data["undertrump"]
    with pytest.raises(RulesError, match="missing"):
        Rules.from_dict(data)


# ---------------------------------------------------------------- actions


def test_knob_values_are_typed_members_that_read_and_write_as_their_text():
    from allfours_env.rules import KNOB_TYPES, PointKind, TrumpSelection

    rules = Rules.make("auction_pitch", 3)
    assert rules.trump_selection is TrumpSelection.AUCTION
    for name, kind in KNOB_TYPES.items():
        assert isinstance(getattr(rules, name), kind), name
    assert all(isinstance(kind, PointKind) for kind in rules.scoring_order)
    data = rules.to_dict()
    assert type(data["trump_selection"]) is str and all(type(k) is str for k in data["scoring_order"])
    assert Rules.from_dict(data) == rules
    with pytest.raises(RulesError, match="trump_selection='stock-top' is not allowed"):
        Rules.make("california_jack", trump_selection="stock-top")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_rule_plan_says_what_each_knob_means(preset):
    """Each flag of rules.plan read against the knobs' text (an independent restatement)."""
    rules = Rules.make(preset, PRESETS[preset]["players"][0])
    plan, knobs = rules.plan, rules.to_dict()
    selection = knobs["trump_selection"]
    assert (plan.turnup, plan.trump_by_first_lead, plan.stock, plan.auction) == (
        selection == "turnup", selection == "first_lead", selection == "stock_top", selection == "auction")
    assert plan.stock_face_down == (selection == "stock_top" and not knobs["stock_face_up"])
    assert plan.clockwise == (knobs["direction"] == "cw")
    assert plan.undertrump_banned == (knobs["undertrump"] == "banned_unless_no_choice")
    assert plan.every_turnup_scores == (knobs["run_turnup_scoring"] == "every_turnup")
    assert plan.gift_to_beggar_side == (knobs["gift_recipients"] == "beggar_side")
    assert plan.discard_after_run == (knobs["discard_after_run"] == "to_hand_size")
    assert plan.void_when_exhausted == (knobs["exhausted_deck_rule"] == "redeal_void")
    assert (plan.high_by_captor, plan.low_by_captor) == (knobs["high_rule"] == "captured",
                                                         knobs["low_rule"] == "captured")
    assert [kind for kind, _ in plan.scoring] == knobs["scoring_order"]
    assert dict(plan.scoring).get("high", False) == plan.high_by_captor
    assert (plan.scores_nine, plan.scores_joker) == ("nine" in knobs["scoring_order"],
                                                     "joker" in knobs["scoring_order"])
    assert plan.joker_ranks_lowest == (knobs["joker"] and knobs["joker_rank"] == "lowest")
    assert plan.joker_lead_suit == "CDHS".index(knobs["joker_lead_trump"])
    assert plan.score_floor < 0 if selection == "auction" else plan.score_floor == 0
