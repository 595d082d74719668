"""Signals of the digests app.

`reading_stored` is sent after the transaction that stored a written guided
reading has committed, with `reading_id`: its Chinese text is then embedded
for the semantic search (digests/reading_vectors.py).

`readings_pending` is sent with `reading_ids` when readings wait to be
written: its receiver (digests/receivers.py) puts them on the LLM queue, so
the services that create readings never import the tasks that run them.

`upgrades_pending` is sent with `reading_ids` when readings written from
the abstract wait to be written again from the full text (digests/upgrades.py).
"""

from django.dispatch import Signal

reading_stored = Signal()
readings_pending = Signal()
upgrades_pending = Signal()
