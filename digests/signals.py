"""Signals of the digests app.

`reading_stored` is sent after the transaction that stored a written guided
reading has committed, with `reading_id`: its Chinese text is then embedded
for the semantic search (digests/reading_vectors.py).
"""

from django.dispatch import Signal

reading_stored = Signal()
