from rest_framework import serializers

from accounts.zotero.models import ZoteroLink, ZoteroReport


class ZoteroReportSerializer(serializers.ModelSerializer):
    class Meta:
        model = ZoteroReport
        fields = ["kind", "item_key", "title", "created_at"]
        extra_kwargs = {
            "kind": {"help_text": "conflict_ours, conflict_theirs (who won), not_arxiv or not_in_library."},
            "item_key": {"help_text": "The Zotero item's key."},
            "title": {"help_text": "The item's title."},
            "created_at": {"help_text": "When it was reported."},
        }


class ZoteroLinkSerializer(serializers.ModelSerializer):
    """The link as its owner sees it: never the key, only that one is stored."""

    key_stored = serializers.SerializerMethodField(help_text="An API key is stored (encrypted; never returned).")
    collections = serializers.SerializerMethodField(help_text="The library's collections: key and name.")
    reports = serializers.SerializerMethodField(help_text="Conflicts and items not brought back, latest first.")
    synced_items = serializers.SerializerMethodField(help_text="Saved papers in step with an item.")

    class Meta:
        model = ZoteroLink
        fields = [
            "library_type",
            "library_id",
            "key_stored",
            "collection_key",
            "collection_name",
            "collections",
            "library_version",
            "last_synced_at",
            "last_error",
            "last_error_at",
            "backoff_until",
            "seed_result",
            "synced_items",
            "reports",
        ]
        extra_kwargs = {
            "library_type": {"help_text": "user or group."},
            "library_id": {"help_text": "The Zotero user or group id."},
            "collection_key": {"help_text": "The collection kept in step (empty until chosen)."},
            "collection_name": {"help_text": "Its name."},
            "library_version": {"help_text": "The library version the last pull saw."},
            "last_synced_at": {"help_text": "The last sync that completed."},
            "last_error": {"help_text": "The last failure, in words (empty when none)."},
            "last_error_at": {"help_text": "When it failed."},
            "backoff_until": {"help_text": "Zotero asked to wait until then."},
            "seed_result": {"help_text": "What the last topic seeding made, in words."},
        }

    def get_key_stored(self, link: ZoteroLink) -> bool:
        return True

    def get_collections(self, link: ZoteroLink) -> list[dict[str, str]]:
        return [{"key": key, "name": name} for key, name in link.collections]

    def get_reports(self, link: ZoteroLink) -> list[dict]:
        return ZoteroReportSerializer(self.context.get("reports", []), many=True).data

    def get_synced_items(self, link: ZoteroLink) -> int:
        return self.context.get("synced_items", 0)


class ZoteroLinkWriteSerializer(serializers.Serializer):
    library_type = serializers.ChoiceField(
        choices=ZoteroLink.LibraryType.values, default="user", help_text="user (your library) or group."
    )
    library_id = serializers.CharField(max_length=20, help_text="Your Zotero user id, or the group's id.")
    api_key = serializers.CharField(
        max_length=64, write_only=True, help_text="A key with write access; never returned."
    )


class ZoteroCollectionSerializer(serializers.Serializer):
    collection_key = serializers.CharField(max_length=16, help_text="A key from `me/zotero/collections/`.")


class ZoteroCollectionListSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The collection's key.")
    name = serializers.CharField(help_text="The collection's name.")
