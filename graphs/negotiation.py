"""One round of bargaining: scripted openers, then the two seats alternate under a moderator.

Entry point for ``langgraph dev`` (see ``langgraph.json``). Without a runtime context the graph
plays the scripted defaults, so it loads and runs with no API keys.
"""

from icl_aif.engine.graphs import build_round_graph
from icl_aif.games.registry import get_game

graph = build_round_graph(get_game("price"))
