"""allfours: the All Fours family of card games (Seven Up, All Fours, Trinidad, Blind All Fours)
as a fast rules engine and a PettingZoo AEC environment.

The rules core (``cards``, ``rules``, ``actions``, ``engine``, ``record``, ``knowledge``) needs only
the standard library; ``env``/``raw_env`` (PettingZoo) and ``wrappers`` (Gymnasium) load numpy,
Gymnasium and PettingZoo on first use.
"""

from allfours_env.actions import NUM_ACTIONS, action_to_str, str_to_action
from allfours_env.cards import card_str, parse_card, parse_cards, parse_deck
from allfours_env.engine import Game, IllegalActionError
from allfours_env.events import PHASE_NAMES, Event, EventKind, Phase
from allfours_env.record import RecordError, load_record, replay, save_record
from allfours_env.rules import PRESETS, Rules, RulesError

__version__ = "0.1.0"

ENV_ID = "allfours/AllFours-v0"
_LAZY = {"env": "allfours_env.aec", "raw_env": "allfours_env.aec"}


def _register() -> None:
    """Register :data:`ENV_ID` with PettingZoo's registry (PettingZoo >= 1.27), so that
    ``pettingzoo.make("aec", "allfours/AllFours-v0")`` works once ``allfours_env`` is imported. The
    environment itself is imported only when it is made; without PettingZoo this does nothing."""
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:
        return
    if ENV_ID not in aec_registry:
        register("aec", ENV_ID, entry_point="allfours_env.aec:env")


_register()


def __getattr__(name: str):
    """Load the PettingZoo environment (numpy, Gymnasium, PettingZoo) only when it is asked for."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'allfours_env' has no attribute {name!r}")


__all__ = [
    "ENV_ID",
    "NUM_ACTIONS",
    "PHASE_NAMES",
    "Event",
    "EventKind",
    "Phase",
    "PRESETS",
    "Game",
    "IllegalActionError",
    "RecordError",
    "Rules",
    "RulesError",
    "action_to_str",
    "card_str",
    "env",
    "load_record",
    "parse_card",
    "parse_cards",
    "parse_deck",
    "raw_env",
    "replay",
    "save_record",
    "str_to_action",
]
