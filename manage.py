#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import execute_from_command_line


def main() -> None:
    # Read when the settings are first used, below, not on import.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "papertrail.settings.main")
    try:
        settings.INSTALLED_APPS  # noqa: B018 - reads the settings now, to report a bad one in a sentence
    except ImproperlyConfigured as error:
        sys.stderr.write(
            f"manage.py: {error}\n"
            "On a development machine run it as `make run` does: DJANGO_DEBUG=1 .venv/bin/python manage.py …; "
            "on a server, set the variable (README, Configuration).\n"
        )
        sys.exit(2)
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
