"""LangGraph entry points (listed in langgraph.json); the graphs themselves live in icl_aif.engine.graphs."""
