"""Recommendations in the form people deploy: plain flags, LLMKube (speculativeDecoding or extraArgs), docker run,
compose, systemd.

For the report and the GUI (nothing here imports Qt)::

    from advisor.deploy.render import FORMATS, render_deploy
    text = render_deploy(verdict.flags, "docker", model_path="/models/m.gguf", verdict=verdict.verdict)
    text = render_deploy(verdict.flags, "llmkube", manifest_text=Path("isvc.yaml").read_text())

`verdict.flags` is None unless the verdict is ENABLE; then every format says to leave speculation off and
adds no speculative flag (llmkube with a manifest removes existing ones). Errors are DeployError, a
UserError with a hint. `verdict_to_json` is unchanged; `spec-advisor decide --json --format-flags FMT`
adds {"deploy": {"format", "text"}}.
"""
