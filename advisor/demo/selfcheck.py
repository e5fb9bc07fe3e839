"""`python -m advisor.demo.selfcheck`: start the managed llama-server with the demo model and generate 4 tokens.

Set-up runs this so a broken engine build fails loudly once, with the server's own log, instead of failing
every real-engine test later.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from advisor.arms.server import ManagedServer, ServerConfig
from advisor.demo.model import demo_model_path
from advisor.errors import UserError
from probes.base import Unavailable
from probes.engines.base import EngineError
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.engines.llamacpp.binary import find_llama_server


def main() -> int:
    """0 when the engine loads the demo model and generates; 1 with a readable reason otherwise."""
    binary = find_llama_server()
    model = demo_model_path()
    if isinstance(binary, Unavailable) or model is None:
        print(f"selfcheck: engine or demo model missing ({binary if model else 'no demo model'})", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        try:
            with ManagedServer(binary, ServerConfig(model=model, ctx_size=512), Path(tmp)) as server:
                result = LlamaCppAdapter(server.base_url).complete("Hello", max_tokens=4)
        except (UserError, EngineError) as exc:
            hint = getattr(exc, "hint", "")
            print(f"selfcheck: {exc}\n{hint}", file=sys.stderr)
            return 1
    print(f"selfcheck: llama-server {binary.version} generated {result.completion_tokens} tokens", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
