"""What the groups domain tells those to its right (a later channels domain)."""

from django.dispatch import Signal

# A member left or was removed (`group_id`, `user_id`), after their marks went.
member_left = Signal()
# A group is about to be deleted (`group_id`).
group_deleting = Signal()
