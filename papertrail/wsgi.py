import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from harvest.embeddings.encoders import load_for_queries

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "papertrail.settings.main")

application = get_wsgi_application()

# Loaded here, once, so that the workers a server forks after importing this
# module (gunicorn --preload) share the search's models instead of each
# loading its own copy (docs/search.md, "Speed and memory").
if settings.PAPERTRAIL_PRELOAD_SEARCH_MODELS:
    load_for_queries()
