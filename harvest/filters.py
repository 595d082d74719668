"""The library's filters and sorts, one definition for the /papers/ page and the
REST API: a django-filter FilterSet whose form rejects a bad value
with a message that names the parameter.

Parameters (all optional, every one in the URL):
  q         full-text query over titles and abstracts in web-search syntax
            (words, "phrases", OR, -exclusions), ranked; PostgreSQL: the stored
            `search_vector`, migration 0003; SQLite: the FTS5 table of
            migration 0011, read by harvest.search_syntax
  sort      updated (version update time, default) | included_at (inclusion on
            this site) | published (first publication, v1) | relevance (with q;
            without q the default order, and `sort_fell_back` says so) |
            popular (the popularity score, among papers whose latest version
            is dated within PAPERTRAIL_POPULAR_WINDOW_DAYS; docs/decisions.md)
  since     Beijing date YYYY-MM-DD, first day of the time range (inclusive)
  until     Beijing date YYYY-MM-DD, last day of the time range (inclusive)
  days      the last N days; since/until/days apply to the chosen sort's date
  category  one or more category codes (repeat it or separate with commas), or
            an archive (cs: every cs.* category); a paper in any of them matches
  cross_lists 1/0: with 0, only papers whose primary category is one of them
  ai        1/0: AI-related papers only (or none of them)
  revised   1/0: papers with more than one version (or with one)
  hf        1/0: papers picked by the Hugging Face community (or not)
  author    an author's exact name, case-insensitive
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta

import django_filters
from django import forms
from django.conf import settings
from django.db.models import BooleanField, Exists, F, Func, JSONField, OuterRef, Q, QuerySet, Value
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from harvest.clock import display_zone
from harvest.hybrid import HYBRID, KEYWORD, SEMANTIC, search
from harvest.keyword_search import MAX_QUERY_WORDS, full_text_search, is_postgresql
from harvest.models import Authorship, CommunityPick, Paper, PaperCategory

__all__ = [
    "MAX_QUERY_WORDS",
    "PaperFilterSet",
    "full_text_search",
    "is_postgresql",
    "popular_window_start",
    "sorted_papers",
]

SORT_UPDATED = "updated"
SORT_INCLUDED = "included_at"
SORT_PUBLISHED = "published"
SORT_RELEVANCE = "relevance"
SORT_POPULAR = "popular"
MODE_CHOICES = [
    (HYBRID, _("words and meaning")),
    (KEYWORD, _("exact words")),
    (SEMANTIC, _("meaning only")),
]
SORT_CHOICES = [
    (SORT_UPDATED, _("version update time")),
    (SORT_INCLUDED, _("inclusion on this site")),
    (SORT_PUBLISHED, _("first publication")),
    (SORT_RELEVANCE, _("relevance")),
    (SORT_POPULAR, _("popular")),
]
# The date column each sort orders by and its time range applies to.
SORT_DATE_FIELD = {
    SORT_UPDATED: "updated",
    SORT_INCLUDED: "included_at",
    SORT_PUBLISHED: "published",
    SORT_RELEVANCE: "updated",
    SORT_POPULAR: "updated",
}
# Papers without a date (no source gave one) sort after every dated paper.
NULLABLE_DATE_FIELDS = frozenset({"updated", "published"})
EARLIEST_DATE = date(1900, 1, 1)
LATEST_DATE = date(2999, 12, 31)
MAX_CATEGORIES = 20
MAX_QUERY_LENGTH = 200
CATEGORY_CODE = re.compile(r"^[a-z][a-z\-]{0,15}(\.[A-Za-z][A-Za-z\-]{0,15})?$")
# What separates the values of a list parameter (`cs.CL, cs.LG`) and the words of a query.
SEPARATORS = re.compile(r"[\s,]+")


def not_a_category_code(value: str) -> str:
    """The library's message for a category that is not a code, naming it as
    given (NUL left out: no page or JSON should carry it back)."""
    message = CategoryListField.default_error_messages["invalid"]
    return str(message % {"value": value[:40].replace("\x00", "")})


class StrictBooleanField(forms.Field):
    """1/true/yes/on or 0/false/no/off; anything else is an error, not "unset"."""

    _TRUE = frozenset({"1", "true", "yes", "on"})
    _FALSE = frozenset({"0", "false", "no", "off"})
    default_error_messages = {"invalid": _("Use 1 (yes) or 0 (no).")}

    def to_python(self, value):
        if value in (None, ""):
            return None
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in self._TRUE:
            return True
        if text in self._FALSE:
            return False
        raise forms.ValidationError(self.error_messages["invalid"], code="invalid")


class MultipleValueWidget(forms.TextInput):
    """Reads every value of a repeated parameter (?category=a&category=b)."""

    def value_from_datadict(self, data, files, name):
        if hasattr(data, "getlist"):
            return data.getlist(name)
        value = data.get(name)
        return value if isinstance(value, list) else ([value] if value else [])

    def format_value(self, value):
        return ", ".join(value) if isinstance(value, list | tuple) else value


class CategoryListField(forms.Field):
    widget = MultipleValueWidget
    default_error_messages = {
        "invalid": _("%(value)s is not an arXiv category code such as cs.LG."),
        "too_many": _("At most %(limit)d categories at once."),
    }

    def to_python(self, value):
        values = value if isinstance(value, list | tuple) else [value]
        codes: list[str] = []
        for item in values:
            for code in SEPARATORS.split(str(item or "")):
                if code and code not in codes:
                    codes.append(code)
        return codes

    def validate(self, value):
        super().validate(value)
        for code in value:
            if not CATEGORY_CODE.match(code):
                raise forms.ValidationError(self.error_messages["invalid"], code="invalid", params={"value": code[:40]})
        if len(value) > MAX_CATEGORIES:
            raise forms.ValidationError(
                self.error_messages["too_many"], code="too_many", params={"limit": MAX_CATEGORIES}
            )


class StrictBooleanFilter(django_filters.Filter):
    field_class = StrictBooleanField


class CategoryFilter(django_filters.Filter):
    """Applied in PaperFilterSet.filter_queryset, with cross_lists: which form
    of the condition is cheaper depends on the sort."""

    field_class = CategoryListField


def category_codes(codes: list[str]) -> Q:
    """Categories (`cs.LG`) match themselves; an archive (`cs`, or an old-style
    one such as `hep-th`) matches itself and every category inside it."""
    exact = [code for code in codes if "." in code]
    condition = Q(category__in=exact) if exact else Q(pk__in=[])
    for archive in (code for code in codes if "." not in code):
        condition |= Q(category=archive) | Q(category__startswith=f"{archive}.")
    return condition


def listed_in(codes: list[str], *, primary_only: bool = False) -> Q:
    """category_codes' condition on the paper's own row (PostgreSQL): its
    `categories` list (any of them), or its `primary_category` alone. The
    PaperCategory rows are made from that list (harvest.stores.rows.link_rows:
    the same codes, the first one primary), so both select the same papers."""
    archives = [code for code in codes if "." not in code]
    if primary_only:
        condition = Q(primary_category__in=codes)
        for archive in archives:
            condition |= Q(primary_category__startswith=f"{archive}.")
        return condition
    condition = Q(categories__has_any_keys=codes)  # `?|`: any of the codes is an element
    for archive in archives:
        condition |= Q(
            Func(
                F("categories"),
                Value("$[*] ? (@ starts with $prefix)"),
                Value({"prefix": f"{archive}."}, output_field=JSONField()),
                function="jsonb_path_exists",
                output_field=BooleanField(),
            )
        )
    return condition


class IntegerFilter(django_filters.NumberFilter):
    field_class = forms.IntegerField


class PaperFilterForm(forms.Form):
    """Cross-parameter rules of the library's filters."""

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        for name, value in (("since", since), ("until", until)):
            # Outside these bounds the range's UTC ends would overflow the date type.
            if value and not (EARLIEST_DATE <= value <= LATEST_DATE):
                self.add_error(name, _("Use a date between 1900-01-01 and 2999-12-31."))
        if since and until and since > until:
            self.add_error("until", _("The time range ends before it starts (until is before since)."))
        return data


class PaperFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_query", max_length=MAX_QUERY_LENGTH, label=_("Search"))
    mode = django_filters.ChoiceFilter(
        choices=MODE_CHOICES, method="filter_nothing", empty_label=None, label=_("Search by")
    )
    sort = django_filters.ChoiceFilter(
        choices=SORT_CHOICES, method="filter_nothing", empty_label=None, label=_("Sort by")
    )
    since = django_filters.DateFilter(method="filter_nothing", label=_("From (Beijing date)"))
    until = django_filters.DateFilter(method="filter_nothing", label=_("Until (Beijing date)"))
    days = IntegerFilter(method="filter_nothing", min_value=1, max_value=36500, label=_("Last N days"))
    category = CategoryFilter(method="filter_nothing", label=_("Categories"))
    ai = StrictBooleanFilter(field_name="ai_related", label=_("AI-related only"))
    revised = StrictBooleanFilter(method="filter_revised", label=_("Has revisions"))
    hf = StrictBooleanFilter(method="filter_hf", label=_("Hugging Face community picks"))
    author = django_filters.CharFilter(method="filter_author", max_length=512, label=_("Author"))
    cross_lists = StrictBooleanFilter(method="filter_nothing", label=_("Including cross-lists"))

    class Meta:
        model = Paper
        fields: list[str] = []
        form = PaperFilterForm

    def __init__(
        self, data=None, queryset=None, *, request=None, prefix=None, now=None, renderings: Sequence[str] = ()
    ):
        super().__init__(
            data, queryset if queryset is not None else Paper.objects.all(), request=request, prefix=prefix
        )
        self.now: datetime | None = now
        self.renderings = tuple(renderings)  # other English texts of the query (a translation), fused by the search

    # --- what was chosen (valid forms only) ---------------------------------
    @property
    def chosen_sort(self) -> str:
        data = self.form.cleaned_data
        if self.sort_fell_back:
            return SORT_UPDATED
        if data.get("sort"):
            return data["sort"]
        return SORT_RELEVANCE if data.get("q") else SORT_UPDATED

    @property
    def chosen_mode(self) -> str:
        return self.form.cleaned_data.get("mode") or HYBRID

    @property
    def narrows_besides_query(self) -> bool:
        """Whether a parameter other than the query and its mode selects papers."""
        data = self.form.cleaned_data
        return any(
            value not in (None, "", [])
            for name, value in data.items()
            if name not in ("q", "mode", "sort", "cross_lists")
        )

    @property
    def sort_fell_back(self) -> bool:
        """Relevance was asked for without a query: there is nothing to rank
        by, so the default order answers (a link that drops `q` and keeps
        `sort` still works) and the page says why."""
        data = self.form.cleaned_data
        return data.get("sort") == SORT_RELEVANCE and not (data.get("q") or "").strip()

    @property
    def narrows(self) -> bool:
        """Whether any parameter but the sort selects papers (else: the whole library)."""
        data = self.form.cleaned_data
        return any(
            value not in (None, "", [])
            for name, value in data.items()
            if name not in ("sort", "mode") and not (name == "q" and not str(value).strip())
        )

    @property
    def error_messages(self) -> list[str]:
        """ "label: message" for every invalid parameter, the field named as the library's form labels it."""
        fields = self.form.fields
        return [
            _("%(field)s: %(message)s") % {"field": fields[name].label if name in fields else name, "message": message}
            if name != "__all__"
            else str(message)
            for name, messages in self.form.errors.items()
            for message in messages
        ]

    # --- filters -------------------------------------------------------------
    def filter_nothing(self, queryset, name, value):
        """Applied together in filter_queryset: the range depends on the sort."""
        return queryset

    def filter_query(self, queryset, name, value):
        """Applied last, in filter_queryset: the semantic side ranks what the
        other filters leave."""
        return queryset

    def filter_revised(self, queryset, name, value):
        if value is None:
            return queryset
        return queryset.filter(version_count__gt=1) if value else queryset.filter(version_count__lte=1)

    def filter_hf(self, queryset, name, value):
        if value is None:
            return queryset
        picked = Exists(CommunityPick.objects.filter(paper=OuterRef("pk")))
        return queryset.filter(picked) if value else queryset.exclude(picked)

    def filter_author(self, queryset, name, value):
        name_text = " ".join(value.split())
        if not name_text:
            return queryset
        return queryset.filter(id__in=Authorship.objects.filter(author__name__iexact=name_text).values("paper_id"))

    def filter_queryset(self, queryset):
        queryset = self._categories(super().filter_queryset(queryset))
        queryset = self._time_range(queryset)
        text = (self.form.cleaned_data.get("q") or "").strip()
        if text:
            mode, narrowed = self.chosen_mode, self.narrows_besides_query
            queryset = search(queryset, text, mode=mode, narrowed=narrowed, renderings=self.renderings)
        return self._order(queryset)

    def _categories(self, queryset: QuerySet[Paper]) -> QuerySet[Paper]:
        """A paper in any of the categories; with cross_lists=0, only as its primary.

        The popular sort reads every paper of its window anyway (a week's,
        whatever the library's size), so on PostgreSQL each row's own lists
        answer there. Elsewhere PaperCategory's index does: EXISTS, not IN,
        the same plans for lists, but combined with the HF filter PostgreSQL
        then counts from the few picked papers, probing each one's
        categories, instead of hashing every paper of a large category
        (docs/decisions.md, "One filter language" and "Popular papers")."""
        codes = self.form.cleaned_data.get("category")
        if not codes:
            return queryset
        primary_only = self.form.cleaned_data.get("cross_lists") is False
        if self.chosen_sort == SORT_POPULAR and is_postgresql():
            return queryset.filter(listed_in(codes, primary_only=primary_only))
        queryset = queryset.filter(Exists(PaperCategory.objects.filter(category_codes(codes), paper=OuterRef("pk"))))
        if primary_only:
            primary = PaperCategory.objects.filter(category_codes(codes), paper=OuterRef("pk"), is_primary=True)
            queryset = queryset.filter(Exists(primary))
        return queryset

    def _time_range(self, queryset: QuerySet[Paper]) -> QuerySet[Paper]:
        data = self.form.cleaned_data
        column = SORT_DATE_FIELD[self.chosen_sort]
        zone = display_zone()
        if self.chosen_sort == SORT_POPULAR:
            queryset = queryset.filter(updated__gte=popular_window_start(self.now))
        if data.get("since"):
            queryset = queryset.filter(**{f"{column}__gte": datetime.combine(data["since"], time.min, tzinfo=zone)})
        if data.get("until"):
            end = datetime.combine(data["until"] + timedelta(days=1), time.min, tzinfo=zone)
            queryset = queryset.filter(**{f"{column}__lt": end})
        if data.get("days"):
            since = (self.now or timezone.now()) - timedelta(days=data["days"])
            queryset = queryset.filter(**{f"{column}__gte": since})
        return queryset

    def _order(self, queryset: QuerySet[Paper]) -> QuerySet[Paper]:
        return sorted_papers(queryset, self.chosen_sort)


def popular_window_start(now: datetime | None = None) -> datetime:
    """The popular sort's window: papers whose latest version is dated from then on."""
    return (now or timezone.now()) - timedelta(days=settings.PAPERTRAIL_POPULAR_WINDOW_DAYS)


def sorted_papers(queryset: QuerySet[Paper], sort: str) -> QuerySet[Paper]:
    """`queryset` in the order of `sort`: the one place a library sort becomes
    an ORDER BY (the filter set's results, a page's keyset, a briefing's list)."""
    return queryset.order_by(*_ordering_for(sort))


def _ordering_for(sort: str) -> list:
    """The order of a sort: newest first, ties by id, papers without the date
    last; relevance by `search_rank` (full_text_search annotates it on both
    databases), ties newest id first; popular by the stored score, ties
    newest id first."""
    if sort == SORT_RELEVANCE:
        return [F("search_rank").desc(), F("id").desc()]
    if sort == SORT_POPULAR:
        return [F("popularity").desc(), F("id").desc()]
    column = SORT_DATE_FIELD[sort]
    if column in NULLABLE_DATE_FIELDS:
        return [F(column).desc(nulls_last=True), F("id").desc()]
    return [F(column).desc(), F("id").desc()]
