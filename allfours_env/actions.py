"""The one action layout shared by the engine, every preset and every player count.

Action ids never change meaning between presets, player counts or versions, so a saved policy keeps
working. The bids 110–116 are those of the auction presets (``auction_pitch``, ``pitch_with_joker``).

=========  =====  ==============================================  ======================
ids        count  meaning                                          phase
=========  =====  ==============================================  ======================
0          1      ``stand`` — accept the proposed trump            beg (eldest, P2)
1          1      ``beg`` — ask for another trump                  beg (eldest, P2)
2          1      ``gift`` — give the beggar a point               gift_or_run (dealer, P3)
3          1      ``run`` — run the cards                          gift_or_run (dealer, P3)
4–56       53     ``discard XX`` — discard card id ``a - 4``       discard (P5); 56 = JK
57–109     53     ``play XX`` — play card id ``a - 57``            play (P6, P8); 109 = JK
110        1      ``pass`` — no bid (auction presets)              bid (RD13)
111–115    5      ``bid N`` for N = 1..5                           bid (RD13)
116        1      ``hold`` — the dealer takes the standing bid     bid (RD14)
=========  =====  ==============================================  ======================

Card ids are those of :mod:`allfours_env.cards` (``suit * 13 + rank``, JK = 52).
"""

from __future__ import annotations

from allfours_env.cards import NUM_CARD_IDS, card_str, parse_card

STAND, BEG, GIFT, RUN = 0, 1, 2, 3
DISCARD_BASE = 4
PLAY_BASE = DISCARD_BASE + NUM_CARD_IDS  # 57
PASS = PLAY_BASE + NUM_CARD_IDS  # 110
BID_BASE = PASS + 1  # 111 is "bid 1"
MAX_BID = 5
HOLD = BID_BASE + MAX_BID  # 116
NUM_ACTIONS = HOLD + 1  # 117

_WORDS = {STAND: "stand", BEG: "beg", GIFT: "gift", RUN: "run", PASS: "pass", HOLD: "hold"}
_IDS_BY_WORD = {word: action for action, word in _WORDS.items()}


def as_action_id(action: object) -> int:
    """``action`` as an action id, checked: a Python ``int``, a numpy integer or a 0-d numpy integer
    array (anything with ``__index__`` but a bool) in 0..116. Raises ``TypeError`` for anything else
    (bools, floats, text, ``None``) and ``ValueError`` for an id out of range, each naming the value;
    nothing is coerced."""
    if isinstance(action, bool):
        value = None
    else:
        try:
            value = action.__index__()  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            value = None
    if value is None:
        raise TypeError(
            f"an action is an integer id 0..{NUM_ACTIONS - 1} (int or numpy integer), got "
            f"{type(action).__name__} {action!r}; the ids are listed in allfours_env.actions and "
            f"str_to_action('play AS') converts text"
        )
    if not 0 <= value < NUM_ACTIONS:
        raise ValueError(
            f"action {value} is out of range: action ids are 0..{NUM_ACTIONS - 1} (see allfours_env.actions)"
        )
    return value


def discard_action(card: int) -> int:
    """The action id that discards ``card``."""
    return DISCARD_BASE + card


def play_action(card: int) -> int:
    """The action id that plays ``card``."""
    return PLAY_BASE + card


def bid_action(amount: int) -> int:
    """The action id that bids ``amount`` (1..MAX_BID)."""
    return BID_BASE + amount - 1


#: Decoders by action id, for every caller including the hot paths: the card a play moves (-1 for
#: any other action), the card a discard moves (-1 likewise), the amount a bid names (0 for any
#: other action, ``pass`` and ``hold`` included), and whether the action is one of the auction's.
PLAYED_CARD = tuple(a - PLAY_BASE if PLAY_BASE <= a < PASS else -1 for a in range(NUM_ACTIONS))
DISCARDED_CARD = tuple(a - DISCARD_BASE if DISCARD_BASE <= a < PLAY_BASE else -1 for a in range(NUM_ACTIONS))
BID_AMOUNT = tuple(a - BID_BASE + 1 if BID_BASE <= a < HOLD else 0 for a in range(NUM_ACTIONS))
IS_AUCTION_ACTION = tuple(PASS <= a <= HOLD for a in range(NUM_ACTIONS))


def is_play(action: int) -> bool:
    """Whether ``action`` plays a card to a trick."""
    return PLAYED_CARD[action] >= 0


def is_discard(action: int) -> bool:
    """Whether ``action`` discards a card."""
    return DISCARDED_CARD[action] >= 0


def is_bid(action: int) -> bool:
    """Whether ``action`` bids an amount (``bid N``; not ``pass`` or ``hold``)."""
    return BID_AMOUNT[action] > 0


def action_card(action: int) -> int | None:
    """The card a discard or play action moves, or ``None`` for any other action."""
    card = max(PLAYED_CARD[action], DISCARDED_CARD[action])
    return card if card >= 0 else None


def action_to_str(action: int) -> str:
    """Return the text form of an action id: ``stand``, ``beg``, ``gift``, ``run``, ``discard XX``,
    ``play XX``, ``pass``, ``bid N`` or ``hold``."""
    if not isinstance(action, int) or isinstance(action, bool):
        try:
            action = action.__index__()
        except AttributeError:
            raise TypeError(f"an action id is an integer, got {type(action).__name__}") from None
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action} is out of range: ids are 0..{NUM_ACTIONS - 1}")
    if action in _WORDS:
        return _WORDS[action]
    if is_discard(action):
        return "discard " + card_str(DISCARDED_CARD[action])
    if is_play(action):
        return "play " + card_str(PLAYED_CARD[action])
    return f"bid {BID_AMOUNT[action]}"


def str_to_action(text: str) -> int:
    """Return the action id of its text form (the inverse of :func:`action_to_str`)."""
    if not isinstance(text, str):
        raise TypeError(f"an action's text form is a string, got {type(text).__name__}")
    if text in _IDS_BY_WORD:
        return _IDS_BY_WORD[text]
    verb, _, arg = text.partition(" ")
    try:
        if verb == "discard":
            return discard_action(parse_card(arg))
        if verb == "play":
            return play_action(parse_card(arg))
    except ValueError as err:
        raise ValueError(f"{text!r} is not an action: {err}") from None
    if verb == "bid" and arg.isdigit() and 1 <= int(arg) <= MAX_BID:
        return bid_action(int(arg))
    raise ValueError(
        f"{text!r} is not an action: write one of 'stand', 'beg', 'gift', 'run', 'discard XX', "
        f"'play XX' (XX a card such as 'AS'), 'pass', 'bid N' (N = 1..{MAX_BID}) or 'hold'"
    )
