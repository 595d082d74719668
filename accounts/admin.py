from importlib import import_module

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import ApiToken, User

# Each domain registers its own models in its admin module.
ADMINS = (
    "accounts.follows.admin",
    "accounts.trail.admin",
    "accounts.records.admin",
    "accounts.recommend.admin",
    "accounts.alerts.admin",
    "accounts.groups.admin",
    "accounts.channels.admin",
    "accounts.zotero.admin",
)
for module in ADMINS:
    import_module(module)

admin.site.register(User, UserAdmin)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens by name and public prefix; the secret's hash is never shown. An
    admin revokes a token by setting its revocation time; new ones are made
    on /me/ or with `manage.py create_api_token`, which show the secret once."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("name", "prefix", "user__username")
    fields = ("user", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("user", "name", "prefix", "created_at", "last_used_at")

    def has_add_permission(self, request) -> bool:
        return False
