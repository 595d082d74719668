"""The one Celery app of PaperTrail."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "papertrail.settings.main")

app = Celery("papertrail")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# accounts keeps its tasks by domain (accounts/<domain>/tasks.py).
app.autodiscover_tasks(["accounts.trail", "accounts.alerts", "accounts.recommend", "accounts.channels"])
# harvest keeps the full-text domain's tasks beside it.
app.autodiscover_tasks(["harvest.fulltext"])
