"""Signals the harvest sends to other apps, so that harvest depends on none of them.

`versions_created` is sent after the transaction that stored new versions has
committed, with `version_ids` (the primary keys of every Version created).
The digests app listens to it to write guided readings.

`versions_embedded` is sent by the embedding task once a harvest page's
papers have their embeddings, with the page's `version_ids`: accounts
matches its topic follows then.
"""

from django.dispatch import Signal

versions_created = Signal()
versions_embedded = Signal()
