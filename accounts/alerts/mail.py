"""An alert as a mail (multipart plain text and HTML, in the user's language
and time zone, with RFC 8058 one-click unsubscribe headers) and its hand-off
to SMTP, with each failure sorted into transient (retry later) or permanent
(5xx for the address: stop mailing it)."""

from __future__ import annotations

import contextlib
import logging
import smtplib
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.template.loader import get_template
from django.utils import timezone, translation
from django.utils.translation import ngettext

from accounts.alerts.items import AlertContent, AlertPaper
from accounts.alerts.links import absolute, rating_url, unsubscribe_url
from accounts.alerts.models import AlertMail
from accounts.recommend.selectors import recommendations_for_user

logger = logging.getLogger(__name__)

# Backends whose mails nobody reads: with them, alerts are not sent.
_UNREAD_BACKENDS = {
    "django.core.mail.backends.filebased.EmailBackend",
    "django.core.mail.backends.dummy.EmailBackend",
}
ALERT_RECOMMENDATIONS = 5
_HTML = get_template("alerts/alert.html")
_TEXT = get_template("alerts/alert.txt")
_PAPER_HTML = get_template("alerts/_paper.html")
_PAPER_TEXT = get_template("alerts/_paper.txt")


def _render_paper(paper: AlertPaper) -> None:
    """A paper's block is the same in every alert of its language: rendered
    once per batch (most of a day's alerts share their papers), which keeps
    the template work per mail to its frame."""
    if not paper.html:
        context = {"paper": paper}
        paper.html = _PAPER_HTML.render(context)
        paper.text = _PAPER_TEXT.render(context)


def mail_configured() -> bool:
    return settings.EMAIL_BACKEND not in _UNREAD_BACKENDS


def message_id(mail: AlertMail) -> str:
    """The same Message-ID for every attempt at one alert, so a mail handed
    over twice (a worker killed after the server accepted it) is one to the
    reader's client."""
    host = settings.SITE_URL.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] or "localhost"
    return f"<alert-{mail.pk}-{mail.frequency}-{mail.period.isoformat()}@{host}>"


def subject(*, count: int, day: date, frequency: str) -> str:
    if frequency == AlertMail.Frequency.WEEKLY:
        text = ngettext(
            "%(count)d new paper in the week of %(day)s", "%(count)d new papers in the week of %(day)s", count
        )
    else:
        text = ngettext("%(count)d new paper for %(day)s", "%(count)d new papers for %(day)s", count)
    return f"[{settings.SITE_NAME}] " + text % {"count": count, "day": day.isoformat()}


def build_message(content: AlertContent) -> EmailMultiAlternatives:
    user, mail = content.user, content.mail
    day = mail.period
    everything = unsubscribe_url(user_id=user.pk)
    with translation.override(user.language), timezone.override(user.time_zone):
        for entry in content.top:
            _render_paper(entry.paper)
        if not content.ranked:
            for group in content.groups:
                for entry in group.entries:
                    _render_paper(entry.paper)
        context = {
            "top": content.top,
            "ranked": content.ranked,
            "user": user,
            "day": day,
            "frequency": mail.frequency,
            "groups": content.groups,
            "count": content.paper_count,
            "unsubscribe_all_url": everything,
            "me_url": absolute("/me/"),
            "trail_url": absolute("/trail/"),
            "site_name": settings.SITE_NAME,
            "language": user.language,
            "built_at": timezone.now(),
            "zone": user.time_zone,
            "recommendations": _recommended(user) if settings.RECOMMEND_IN_ALERTS else [],
        }
        message = EmailMultiAlternatives(
            subject=subject(count=content.paper_count, day=day, frequency=mail.frequency),
            body=_TEXT.render(context),
            from_email=settings.DEFAULT_FROM_EMAIL,
            to=[user.email],
            headers={
                "Message-ID": message_id(mail),
                # RFC 8058: a POST to this URL unsubscribes, no sign-in, no page.
                "List-Unsubscribe": f"<{everything}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                "Auto-Submitted": "auto-generated",
                "Precedence": "bulk",
                "Content-Language": user.language,
            },
        )
        message.attach_alternative(_HTML.render(context), "text/html")
    return message


def _recommended(user) -> list[dict]:
    """The optional "Recommended" section (PAPERTRAIL_RECOMMEND_IN_ALERTS): the
    top of the user's recommendations, each with the saved papers it is closest to."""
    return [
        {
            "title": entry.paper.title,
            "url": absolute(f"/papers/{entry.paper.arxiv_id}/"),
            "arxiv_url": f"https://arxiv.org/abs/{entry.paper.arxiv_id}",
            "because": [neighbour.title for neighbour in entry.neighbours],
            "more_url": rating_url(user_id=user.pk, paper_id=entry.paper.pk, value=1),
            "less_url": rating_url(user_id=user.pk, paper_id=entry.paper.pk, value=-1),
        }
        for entry in recommendations_for_user(user, ALERT_RECOMMENDATIONS)
    ]


@dataclass
class Outcome:
    sent: bool
    permanent: bool = False
    error: str = ""


def _classify(error: Exception) -> Outcome:
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in error.recipients.values()]
        text = "; ".join(f"{code} {reply.decode(errors='replace')}" for code, reply in error.recipients.values())
        return Outcome(False, permanent=bool(codes) and min(codes) >= 500, error=text)
    if isinstance(error, smtplib.SMTPDataError):
        text = f"{error.smtp_code} {error.smtp_error.decode(errors='replace')}"
        return Outcome(False, permanent=error.smtp_code >= 500, error=text)
    if isinstance(error, smtplib.SMTPResponseException):
        # The server refused us (sender, authentication): the site's problem, not the address's.
        return Outcome(False, error=f"{error.smtp_code} {error.smtp_error.decode(errors='replace')}")
    return Outcome(False, error=f"{type(error).__name__}: {error}")


class Sender:
    """One SMTP connection for a run, reopened after a failure."""

    def __init__(self) -> None:
        self._connection = None

    def send(self, message: EmailMultiAlternatives) -> Outcome:
        try:
            if self._connection is None:
                self._connection = get_connection(fail_silently=False)
                self._connection.open()
            message.connection = self._connection
            message.send(fail_silently=False)
        except (smtplib.SMTPException, OSError) as error:
            self.close()
            outcome = _classify(error)
            logger.warning("alert to %s not sent: %s", message.to[0], outcome.error)
            return outcome
        return Outcome(True)

    def close(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                self._connection.close()
            self._connection = None

    def __enter__(self) -> Sender:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
