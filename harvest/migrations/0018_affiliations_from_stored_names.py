"""Affiliations of stored authorships, from what the library still holds.

The library never stored arXiv's raw author strings: ingest dropped the
parenthesised affiliations before storing names, and a version's `authors`
is the names joined. So the affiliations of papers stored before 0017 cannot
be recovered from the database; a new harvest, `import_snapshot` or
`load_offline_bundle` of the same records fills them (the upsert sees the
paper's affiliations change and rewrites its authorships). What this
migration can mend is a name that still carries its affiliation
("V. M. Biryukov (Serpukhov, IHEP)", one author string read as one name):
the name loses it, the authorship keeps it, and an author row whose clean
name another row already has is merged into that row (docs/decisions.md).
"""

from django.db import migrations
from django.db.models import Value
from django.db.models.functions import Replace

from harvest.author_strings import parse_authors


def affiliations_out_of_names(apps, schema_editor):
    Author = apps.get_model("harvest", "Author")
    Authorship = apps.get_model("harvest", "Authorship")
    Paper = apps.get_model("harvest", "Paper")
    Version = apps.get_model("harvest", "Version")
    touched: set[int] = set()
    suspects = Author.objects.filter(name__contains="(").filter(name__contains=")").order_by("pk")
    for author_id, written in list(suspects.values_list("pk", "name")):
        names, affiliations = parse_authors(written)
        if len(names) != 1 or not affiliations:
            continue  # a group inside a name, or not one name: left as it is
        name, affiliation = names[0], affiliations[0]
        links = Authorship.objects.filter(author_id=author_id)
        paper_ids = set(links.values_list("paper_id", flat=True))
        links.filter(affiliation="").update(affiliation=affiliation)
        survivor = Author.objects.filter(name=name).exclude(pk=author_id).values_list("pk", flat=True).first()
        if survivor is None:
            Author.objects.filter(pk=author_id).update(name=name)
        else:
            links.update(author_id=survivor)
            Author.objects.filter(pk=author_id).delete()
        Version.objects.filter(paper_id__in=paper_ids, authors__contains=written).update(
            authors=Replace("authors", Value(written), Value(name))
        )
        touched |= paper_ids
    for paper in Paper.objects.filter(pk__in=touched).only("pk", "authors"):
        rows = Authorship.objects.filter(paper_id=paper.pk).order_by("position")
        authors = list(paper.authors)
        found = [""] * len(authors)
        for position, name, affiliation in rows.values_list("position", "author__name", "affiliation"):
            if position < len(authors):
                authors[position], found[position] = name, affiliation
        Paper.objects.filter(pk=paper.pk).update(authors=authors, affiliations=found if any(found) else [])


class Migration(migrations.Migration):
    dependencies = [("harvest", "0017_affiliations")]

    operations = [migrations.RunPython(affiliations_out_of_names, migrations.RunPython.noop, elidable=True)]
