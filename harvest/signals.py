"""Signals the harvest sends to other apps, so that harvest depends on none of them.

`versions_created` is sent after the transaction that stored new versions has
committed, with `version_ids` (the primary keys of every Version created).
The digests app listens to it to write guided readings.

`versions_embedded` is sent by the embedding task once a harvest page's
papers have their embeddings, with the page's `version_ids`: accounts
matches its topic follows then.

`full_texts_wanted` is sent once a day by the full-text selection task, with
`for_you` (how many of each active researcher's "for you" list to take) and
`now`: accounts answers with the versions researchers saved and the top of
their lists, through `harvest.fulltext.services.request_full_text`.

`full_text_stored` is sent after a version's full text has been read and
stored (not when a refresh found it unchanged), with `version_ids`: digests
writes its abstract readings again from the full text, once.
"""

from django.dispatch import Signal

versions_created = Signal()
versions_embedded = Signal()
full_texts_wanted = Signal()
full_text_stored = Signal()
