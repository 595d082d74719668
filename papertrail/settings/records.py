"""Research records: the limits of an import (accounts/records/imports.py)
and the Zotero Web API the research record syncs with (accounts/zotero/)."""

from papertrail.settings.env import env_int, env_url

# A file (or pasted text) larger than this is refused with a message before it is read.
RECORDS_IMPORT_MAX_BYTES = env_int("PAPERTRAIL_RECORDS_IMPORT_MAX_BYTES", 5 * 1024 * 1024, minimum=1024)
# Papers the library lacks are looked up on the arXiv API while the import
# waits, 100 ids a request with ARXIV_REQUEST_DELAY between requests; past
# this many in one import the rest are reported as not looked up.
RECORDS_IMPORT_MAX_LOOKUPS = env_int("PAPERTRAIL_RECORDS_IMPORT_MAX_LOOKUPS", 200, minimum=0)
# Zotero's Web API v3 (https://www.zotero.org/support/dev/web_api/v3/basics).
ZOTERO_API_URL = env_url("PAPERTRAIL_ZOTERO_API_URL", "https://api.zotero.org")
