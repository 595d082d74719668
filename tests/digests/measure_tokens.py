"""Tokens per guided reading on the recorded abstracts, and the cost per
thousand papers at the default model's list price.

Run: `DJANGO_SETTINGS_MODULE=papertrail.settings.test python -m tests.digests.measure_tokens`

Input tokens are the fake server's accounting of the real request the
project builds (system prompt, tool schema, delimited paper text; see
fake_anthropic.py for the counting rule). Output tokens are counted on the
fake server's stand-in reading, whose length follows the abstract (English
sentences from it, Chinese of proportional length): an estimate of a real
reading's size, not a measurement of the model.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from decimal import Decimal

from digests import llm
from digests.providers.anthropic_api import AnthropicProvider
from digests.providers.registry import provider_config
from tests.digests.fake_anthropic import FakeAnthropic, prompt_tokens
from tests.digests.recorded import recorded_papers


@dataclass(frozen=True)
class Measurement:
    papers: int
    mean_input: float
    mean_output: float
    max_input: int
    model: str
    per_thousand_usd: Decimal
    per_thousand_batch_usd: Decimal


def measure() -> Measurement:
    from django.conf import settings

    fake = FakeAnthropic().start()  # only its accounting is used; no request is made
    try:
        inputs, outputs = [], []
        for record in recorded_papers():
            text = llm.PaperText(title=record.title, abstract=record.abstract, comments=record.comments)
            request = llm.reading_request(
                model=settings.PAPERTRAIL_SUMMARY_MODEL, arxiv_id=record.arxiv_id, number=1, current=text, previous=None
            )
            params = AnthropicProvider(provider_config("anthropic"), timeout=1).params(request)
            message = fake.message_for(params)
            inputs.append(prompt_tokens(params))
            outputs.append(message["usage"]["output_tokens"])
    finally:
        fake.stop()
    model = settings.PAPERTRAIL_SUMMARY_MODEL
    mean_in, mean_out = statistics.mean(inputs), statistics.mean(outputs)
    config = provider_config("anthropic")
    per_paper = config.cost(model=model, input_tokens=round(mean_in), output_tokens=round(mean_out))
    per_paper_batch = config.cost(model=model, input_tokens=round(mean_in), output_tokens=round(mean_out), batch=True)
    return Measurement(
        papers=len(inputs),
        mean_input=mean_in,
        mean_output=mean_out,
        max_input=max(inputs),
        model=model,
        per_thousand_usd=per_paper * 1000,
        per_thousand_batch_usd=per_paper_batch * 1000,
    )


def main() -> None:
    import django

    django.setup()
    m = measure()
    print(f"recorded abstracts: {m.papers}")
    print(f"tokens per guided reading: {m.mean_input:.0f} input (max {m.max_input}), {m.mean_output:.0f} output")
    print(f"model {m.model}: ${m.per_thousand_usd:.2f} per 1000 papers")
    print(f"through the Message Batches API: ${m.per_thousand_batch_usd:.2f} per 1000 papers")


if __name__ == "__main__":
    main()
