"""The settings PaperTrail runs with (`make run`, the web server, the worker and
beat): every topic module, read in this order, each setting defined once.

- base: core Django, the database, the cache, language and time, logging;
- sources: source endpoints, arXiv's politeness, what counts as AI-related;
- llm: AI guided readings;
- recommend: recommendations (minimum saves, window, the email alerts' section);
- api: the REST framework and the schema;
- security: transport rules and error reports;
- accounts: sign-up and sign-in (django-allauth), their rate limits, mail,
  email alerts and feeds, follows and the trail;
- records: the limits of a research-record import;
- celery: the broker, task defaults and the whole beat schedule.

Every value that comes from the environment is read through settings/env.py.
"""

from papertrail.settings.accounts import *  # noqa: F403
from papertrail.settings.api import *  # noqa: F403
from papertrail.settings.base import *  # noqa: F403
from papertrail.settings.celery import *  # noqa: F403
from papertrail.settings.llm import *  # noqa: F403
from papertrail.settings.recommend import *  # noqa: F403
from papertrail.settings.records import *  # noqa: F403
from papertrail.settings.security import *  # noqa: F403
from papertrail.settings.sources import *  # noqa: F403
