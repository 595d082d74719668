"""The token measurement on the recorded abstracts runs and stays in bounds
(a prompt that balloons, or a reading that cannot fit max_tokens, fails here)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings

from tests.digests.measure_tokens import measure


def test_tokens_per_reading_on_recorded_abstracts(capsys):
    m = measure()

    assert m.papers >= 100
    assert 700 < m.mean_input < 2500 and m.max_input < 4000
    assert 100 < m.mean_output < settings.PAPERTRAIL_SUMMARY_MAX_TOKENS
    assert m.per_thousand_usd > 0 and abs(m.per_thousand_batch_usd * 2 - m.per_thousand_usd) < Decimal("0.002")
    with capsys.disabled():
        print(
            f"\n[digests] {m.papers} recorded abstracts: {m.mean_input:.0f} input / {m.mean_output:.0f} output tokens "
            f"per reading; {m.model}: ${m.per_thousand_usd:.2f} per 1000 papers "
            f"(${m.per_thousand_batch_usd:.2f} via batches)"
        )
