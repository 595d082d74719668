"""Error reports (admin e-mails, DEBUG pages) without credentials: Django's
safe filter hides settings and request META whose names look secret, but not
the Authorization header, which carries API tokens."""

from __future__ import annotations

import re

from django.views.debug import SafeExceptionReporterFilter


class CredentialSafeReporterFilter(SafeExceptionReporterFilter):
    hidden_settings = re.compile("API|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|AUTHORIZATION", flags=re.IGNORECASE)
