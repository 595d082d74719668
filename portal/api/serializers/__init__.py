"""API serializers, by feature: papers (lists, detail) and site (stats, briefings, sources)."""
