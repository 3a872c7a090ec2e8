"""The LangGraph entry points load with no keys and no vendor SDK, and play the scripted defaults."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys

from tests.conftest import ROOT


def test_langgraph_json_lists_graphs_that_import() -> None:
    spec = json.loads((ROOT / "langgraph.json").read_text())
    assert set(spec["graphs"]) == {"negotiation", "icl_aif"}
    for target in spec["graphs"].values():
        path, _, attribute = target.partition(":")
        module_spec = importlib.util.spec_from_file_location("entry", ROOT / path)
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        assert hasattr(getattr(module, attribute), "ainvoke")


def test_core_imports_without_vendor_sdks() -> None:
    code = (
        "import sys, icl_aif, icl_aif.cli.app, icl_aif.engine.graphs;"
        "print(sorted(m for m in ('openai','anthropic','cohere','ai21','llama_cpp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_graphs_run_without_a_context() -> None:
    from icl_aif.engine.graphs import build_round_graph, build_run_graph
    from icl_aif.games.registry import get_game

    price = get_game("price")
    round_graph = build_round_graph(price)
    round_state = asyncio.run(round_graph.ainvoke({"round": 1, "history": [], "turns": []}))
    assert round_state["status"] in ("deal", "no_deal")
    assert round_state["turns"][0] == {"speaker": "buyer", "text": "Hi, how much is the balloon?"}
    run_state = asyncio.run(build_run_graph(price).ainvoke({}))
    assert [r["round"] for r in run_state["rounds"]] == [1, 2, 3, 4, 5]
