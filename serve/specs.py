"""Which agents a page may seat: any agent spec (:func:`agents.base.parse_spec`), but a trained
policy only from the policies shipped with allfours or from a file under ``--runs`` — a page never
names a file elsewhere on the machine."""

from __future__ import annotations

from pathlib import Path

import agents
from agents.base import AgentError, available_agents, parse_spec
from serve.paths import PathError, inside

#: The folder of the shipped policies; a page names them ``ppo:agents/policies/<file>``.
POLICIES = Path(agents.__file__).resolve().parent / "policies"
SHIPPED_PREFIX = "agents/policies/"


def shipped_policies() -> list[str]:
    """The specs of the shipped policies: ``ppo:agents/policies/seven_up_2p.npz``, ..."""
    return [f"ppo:{SHIPPED_PREFIX}{path.name}" for path in sorted(POLICIES.glob("*.npz"))]


def offered_agents() -> list[str]:
    """The agent specs the play page offers: the registered bots that need no options, then the
    shipped policies."""
    return [name for name in available_agents() if name not in ("ppo", "split")] + shipped_policies()


def resolve_spec(spec: str, runs: Path | None) -> str:
    """``spec`` as :func:`agents.base.make_agent` takes it, its policy file (if any) made an absolute
    path: a shipped policy or a file under ``runs``. Raises :class:`~agents.base.AgentError` naming
    the problem (an unknown agent, a bad option, a policy file outside those folders)."""
    name, options = parse_spec(spec)
    if name == "ppo":
        return f"ppo:{_policy_path(options['path'], runs)}"
    if name == "split":
        parts = ",".join(f"{kind}={resolve_spec(str(part), runs)}" for kind, part in options.items())
        return f"split:{parts}"
    return spec


def _policy_path(text: str, runs: Path | None) -> Path:
    """The policy file a page names: ``agents/policies/<file>`` (shipped) or a path under ``runs``."""
    if text.startswith(SHIPPED_PREFIX):
        try:
            return inside(POLICIES, text[len(SHIPPED_PREFIX):], must_exist=True)
        except PathError:
            raise AgentError(f"no shipped policy {text!r}: choose one of "
                             f"{', '.join(shipped_policies()) or 'none'}") from None
    if runs is None:
        raise AgentError(f"policy {text!r}: only the shipped policies ({', '.join(shipped_policies())}) "
                         f"can be used; start the server with --runs DIR to use policies saved there")
    try:
        return inside(runs, text, must_exist=True)
    except PathError as err:
        raise AgentError(f"policy {text!r}: {err}") from None
