from django.contrib import admin

from accounts.recommend.models import Rating
from accounts.shared.admin import ReadMostlyAdmin


@admin.register(Rating)
class RatingAdmin(ReadMostlyAdmin):
    """Read only: a rating is the researcher's own word, changed on the site
    (where a change also retrains their model), never here."""

    list_display = ("id", "user", "paper", "value", "source", "updated_at")
    list_filter = ("value", "source")
    list_select_related = ("user", "paper")
    raw_id_fields = ("user", "paper")
    readonly_fields = ("user", "paper", "value", "source", "created_at", "updated_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
