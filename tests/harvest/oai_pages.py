"""OAI-PMH pages for tests, cut from the recorded arXivRaw reply.

The only real arXivRaw ListRecords page on record (tests/fixtures/arxiv_oai/
ListRecordsResponse.xml, 6 records) is split into several pages joined by
resumption tokens, keeping arXiv's own envelope, record markup and token form;
variants (a malformed record, a deleted record, a later version) change only
the element they are about. Nothing here invents a new format.
"""

from __future__ import annotations

import copy

from lxml import etree

from tests.replay_server import fixture_bytes

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
RAW_NS = "http://arxiv.org/OAI/arXivRaw/"
OAI = f"{{{OAI_NS}}}"
RAW = f"{{{RAW_NS}}}"

RECORDED_IDS = ["0704.0471", "0704.0716", "0704.0874", "0704.1109", "0704.1114", "0704.1586"]


def _recorded() -> etree._Element:
    return etree.fromstring(fixture_bytes("arxiv_oai/ListRecordsResponse.xml"))


def recorded_records() -> dict[str, etree._Element]:
    root = _recorded()
    records = {}
    for record in root.iter(f"{OAI}record"):
        identifier = record.findtext(f"{OAI}header/{OAI}identifier").rsplit(":", 1)[-1]
        records[identifier] = record
    return records


def list_records_page(
    records: list[etree._Element], *, token: str | None, cursor: int = 0, response_date: str | None = None
) -> bytes:
    """A ListRecords reply holding `records`; `token` None closes the list with
    an empty resumptionToken, as arXiv does."""
    root = _recorded()
    if response_date:
        root.find(f"{OAI}responseDate").text = response_date
    list_records = root.find(f"{OAI}ListRecords")
    token_element = list_records.find(f"{OAI}resumptionToken")
    for record in list(list_records.iter(f"{OAI}record")):
        list_records.remove(record)
    for record in records:
        token_element.addprevious(copy.deepcopy(record))
    token_element.set("cursor", str(cursor))
    token_element.text = token
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def with_new_version(record: etree._Element, *, date: str, size: str, title: str) -> etree._Element:
    """The record as arXiv would send it after its author posted one more version."""
    record = copy.deepcopy(record)
    raw = record.find(f"{OAI}metadata/{RAW}arXivRaw")
    versions = raw.findall(f"{RAW}version")
    number = len(versions) + 1
    added = copy.deepcopy(versions[-1])
    added.set("version", f"v{number}")
    added.find(f"{RAW}date").text = date
    added.find(f"{RAW}size").text = size
    versions[-1].addnext(added)
    raw.find(f"{RAW}title").text = title
    return record


def malformed(record: etree._Element) -> etree._Element:
    """The record with an unreadable version date."""
    record = copy.deepcopy(record)
    record.find(f"{OAI}metadata/{RAW}arXivRaw/{RAW}version/{RAW}date").text = "Someday, 99 Foo 20x7"
    return record


def with_field(record: etree._Element, tag: str, text: str | None) -> etree._Element:
    """The record with one arXivRaw field's text replaced, or the field
    removed (`text` None): an odd value in arXiv's own markup."""
    record = copy.deepcopy(record)
    element = record.find(f"{OAI}metadata/{RAW}arXivRaw/{RAW}{tag}")
    if text is None:
        element.getparent().remove(element)
    else:
        element.text = text
    return record


def deleted(record: etree._Element) -> etree._Element:
    """The record as OAI-PMH reports a deletion: a header with status="deleted" and no metadata."""
    record = copy.deepcopy(record)
    record.find(f"{OAI}header").set("status", "deleted")
    record.remove(record.find(f"{OAI}metadata"))
    return record


def error_reply(name: str) -> bytes:
    return fixture_bytes(f"arxiv_oai/{name}")
