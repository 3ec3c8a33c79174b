"""Players for the All Fours environment: baseline bots and learned policies behind one interface.

``make_agent("random" | "heuristic" | "pimc" | "ppo:path/to/model.npz", seed=0, **options)``
returns an :class:`~agents.base.Agent`; ``agent.act(observation, view)`` chooses a legal action from
its seat's AEC observation and the engine's view of that seat (never another player's cards).
"""

from agents.base import Agent, AgentError, available_agents, make_agent

__all__ = ["Agent", "AgentError", "available_agents", "make_agent"]
