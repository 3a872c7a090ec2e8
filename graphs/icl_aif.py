"""One ICL-AIF run: rounds, with critic feedback and the improved player's acknowledgement between.

Entry point for ``langgraph dev`` (see ``langgraph.json``). Without a runtime context the graph
plays the scripted defaults, so it loads and runs with no API keys. It has no checkpointer of its
own (``langgraph dev`` refuses one and brings its own): with ``feedback.source: human`` or a
``person`` in the context's config, the game pauses with ``interrupt()`` and Studio resumes it.
"""

from icl_aif.engine.graphs import build_run_graph
from icl_aif.games.registry import get_game

graph = build_run_graph(get_game("price"))
