from rest_framework import serializers

from accounts.zotero.models import ZoteroLink, ZoteroReport


class ZoteroReportSerializer(serializers.ModelSerializer):
    class Meta:
        model = ZoteroReport
        fields = ["kind", "item_key", "title", "created_at"]


class ZoteroLinkSerializer(serializers.ModelSerializer):
    """The link as its owner sees it: never the key, only that one is stored."""

    key_stored = serializers.SerializerMethodField()
    collections = serializers.SerializerMethodField()
    reports = serializers.SerializerMethodField()
    synced_items = serializers.SerializerMethodField()

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

    def get_key_stored(self, link: ZoteroLink) -> bool:
        return True

    def get_collections(self, link: ZoteroLink) -> list[dict[str, str]]:
        return [{"key": key, "name": name} for key, name in link.collections]

    def get_reports(self, link: ZoteroLink) -> list[dict]:
        return ZoteroReportSerializer(self.context.get("reports", []), many=True).data

    def get_synced_items(self, link: ZoteroLink) -> int:
        return self.context.get("synced_items", 0)


class ZoteroLinkWriteSerializer(serializers.Serializer):
    library_type = serializers.ChoiceField(choices=ZoteroLink.LibraryType.values, default="user")
    library_id = serializers.CharField(max_length=20)
    api_key = serializers.CharField(max_length=64, write_only=True)


class ZoteroCollectionSerializer(serializers.Serializer):
    collection_key = serializers.CharField(max_length=16)


class ZoteroCollectionListSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
