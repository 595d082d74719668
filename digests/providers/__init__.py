"""Where LLM tasks run: one small interface (base.py), one module per protocol
(Anthropic's Messages API, OpenAI-compatible Chat Completions) and the
registry that turns settings into a provider per task (registry.py)."""
