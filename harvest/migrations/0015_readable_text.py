"""Stored papers, versions and authors brought to the form ingest now gives
(harvest/text_repair.py): TeX letters decoded outside math, mis-decoded UTF-8
repaired. Authors whose names become equal are merged into one row. A
paper whose text changed is indexed and embedded again. One pass over the
library, a chunk at a time (about a minute a million papers)."""

from django.db import migrations
from django.db.models import Q

from harvest.source_records import clean_abstract, clean_line
from harvest.text_repair import readable

CHUNK = 2000


def _changed(values: dict, cleaners: dict) -> dict:
    out = {}
    for field, clean in cleaners.items():
        value = values[field]
        fixed = clean(value)
        if fixed != value:
            out[field] = fixed
    return out


def _names(authors):
    return [clean_line(name) for name in authors] if isinstance(authors, list) else authors


def _chunks(queryset, fields):
    last = 0
    while True:
        rows = list(queryset.filter(pk__gt=last).order_by("pk").values("pk", *fields)[:CHUNK])
        if not rows:
            return
        yield rows
        last = rows[-1]["pk"]


def papers_readable(apps, schema_editor):
    Paper = apps.get_model("harvest", "Paper")
    Version = apps.get_model("harvest", "Version")
    PaperEmbedding = apps.get_model("harvest", "PaperEmbedding")
    paper_cleaners = {
        "title": clean_line,
        "abstract": lambda text: clean_abstract(text) if text and readable(text) != text else text,
        "authors": _names,
        "comments": clean_line,
        "journal_ref": clean_line,
        "submitter": clean_line,
    }
    for rows in _chunks(Paper.objects.all(), paper_cleaners):
        changed_ids = []
        for row in rows:
            changed = _changed(row, paper_cleaners)
            if changed:
                Paper.objects.filter(pk=row["pk"]).update(search_pending=True, **changed)
                changed_ids.append(row["pk"])
        # Their embeddings were of the old text: the embedding task makes them again.
        PaperEmbedding.objects.filter(paper_id__in=changed_ids).delete()
    version_cleaners = {
        "title": clean_line,
        "abstract": lambda text: clean_abstract(text) if text and readable(text) != text else text,
        "authors": lambda text: readable(text) if text else text,
        "comments": clean_line,
    }
    for rows in _chunks(Version.objects.all(), version_cleaners):
        for row in rows:
            changed = _changed(row, version_cleaners)
            if changed:
                Version.objects.filter(pk=row["pk"]).update(**changed)


def authors_readable(apps, schema_editor):
    """Rename each author whose name changes; where the new name is taken
    (the same person written once in TeX, once in Unicode), move the
    authorships to the row that has it and drop the other."""
    Author = apps.get_model("harvest", "Author")
    Authorship = apps.get_model("harvest", "Authorship")
    suspects = Author.objects.filter(Q(name__contains="\\") | Q(name__regex=r"[^ -~]"))
    for rows in _chunks(suspects, ["name"]):
        for row in rows:
            fixed = clean_line(row["name"])
            if not fixed or fixed == row["name"]:
                continue
            survivor = Author.objects.filter(name=fixed).exclude(pk=row["pk"]).values_list("pk", flat=True).first()
            if survivor is None:
                Author.objects.filter(pk=row["pk"]).update(name=fixed)
            else:
                Authorship.objects.filter(author_id=row["pk"]).update(author_id=survivor)
                Author.objects.filter(pk=row["pk"]).delete()


class Migration(migrations.Migration):
    dependencies = [("harvest", "0014_long_licence_and_submitter")]

    operations = [
        migrations.RunPython(papers_readable, migrations.RunPython.noop, elidable=True),
        migrations.RunPython(authors_readable, migrations.RunPython.noop, elidable=True),
    ]
