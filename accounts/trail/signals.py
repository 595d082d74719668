"""What the trail tells the domains to its right."""

from django.dispatch import Signal

# A harvest's batch was matched (`events`: the batch's PaperFacts, one per
# paper). A receiver may write readers' own matches (saved papers' revisions)
# and return its TrailWriteResult, which the matching task adds to its own.
versions_matched = Signal()
# The reader dismissed or restored cards (`user_id`): the recommender's
# explicit negatives changed.
cards_dismissed = Signal()
