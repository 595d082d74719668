"""The value types (and their limits) that research records show the other
domains and portal: defined where records uses them, listed here once. Other
domains import records through this module, `models`, `selectors`,
`services` and `signals` only (tests/papertrail/test_domain_faces.py)."""

from accounts.records.export import CONTENT_TYPES, EXPORT_FORMATS, SUFFIXES
from accounts.records.files.identifiers import arxiv_id_in, arxiv_id_of, split_name
from accounts.records.imports import ADDED, MATCHED, UNMATCHED, ImportResult, RecordImportError
from accounts.records.notes import MAX_NOTE_LENGTH

__all__ = [
    "ADDED",
    "CONTENT_TYPES",
    "EXPORT_FORMATS",
    "MATCHED",
    "MAX_NOTE_LENGTH",
    "SUFFIXES",
    "UNMATCHED",
    "ImportResult",
    "RecordImportError",
    "arxiv_id_in",
    "arxiv_id_of",
    "split_name",
]
