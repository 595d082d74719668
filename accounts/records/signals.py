"""What research records tell the domains to their right."""

from django.dispatch import Signal

# Records or tags of `user_id` changed in bulk (writes that send no model
# signals): the recommender's examples changed.
records_changed = Signal()
