"""What follows tell the domains to their right (the trail) when a user's
follows change. Every signal is sent inside the change's transaction, and its
receivers run in it: a change and its cards commit together."""

from django.dispatch import Signal

# The user's exclusions are about to change (`user`): the trail takes its
# writers' lock, so the change falls between two batches' matching.
follows_changing = Signal()
# What a follow matches is new (`follow`, `created`, `since`: the start of its
# back-fill window); an edited follow's unread reasons are stale. The trail
# takes its writers' lock and starts the follow (services.follow_matching_start).
follow_matching_changed = Signal()
# A follow is about to be deleted (`follow`).
follow_deleting = Signal()
# "Not this person": `follow` no longer matches `paper_id`.
author_variant_rejected = Signal()
# A new exclusion (`user`, `exclusion`): the unread cards it covers go.
exclusion_created = Signal()
