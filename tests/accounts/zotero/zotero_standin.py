"""A stand-in for Zotero's Web API v3, built from its documentation
(https://www.zotero.org/support/dev/web_api/v3/basics, write_requests and
syncing) and the response shapes of pyzotero's own test fixtures
(tests/fixtures/zotero/, PROVENANCE.md): one library with version numbers,
collections and items, `?since=` reads, multi-object writes where an object
sent with a stale `version` fails with 412 and the others succeed, the
trash (`deleted: 1`, left out of reads without `includeTrashed=1`), the
keys deleted for good (`/deleted?since=`, syncing "Deletions"), a user or
a group library, and 429 / Backoff on demand. Every request is kept for
the tests to read."""

from __future__ import annotations

import json
import random
import string
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

KEY_CHARS = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"  # write_requests, "Object Keys"
READ_ONLY = {"itemType", "key", "version", "dateAdded", "dateModified"}


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


def new_key() -> str:
    return "".join(random.choice(KEY_CHARS) for _ in range(8))


def stamp(moment: datetime | None = None) -> str:
    return (moment or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")


class ZoteroStandIn:
    def __init__(
        self, *, library_id: int = 475425, api_key: str = "", write: bool = True, library_type: str = "user"
    ) -> None:
        self.library_id = library_id
        self.library_type = library_type
        self.api_key = api_key or "".join(random.choice(string.ascii_letters + string.digits) for _ in range(24))
        self.write_access = write
        self.version = 1
        self.collections: dict[str, dict] = {}
        self.items: dict[str, dict] = {}
        self.deleted: dict[str, int] = {}  # item key -> the library version that deleted it
        self.requests: list[Seen] = []
        self.throttle: list[dict[str, str]] = []  # headers of the next 429s, in order
        self.backoff_next: str | None = None  # a Backoff header on the next success
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    # --- the test's side -------------------------------------------------------------
    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ZoteroStandIn:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def add_collection(self, name: str) -> str:
        with self._lock:
            self.version += 1
            key = new_key()
            self.collections[key] = {"key": key, "version": self.version, "name": name, "parentCollection": False}
            return key

    def add_item(self, data: dict, *, collection: str, modified: datetime | None = None) -> str:
        """An item added in Zotero (the desktop app, the connector)."""
        with self._lock:
            self.version += 1
            key = data.get("key") or new_key()
            body = {**data, "key": key, "version": self.version, "collections": [collection]}
            body.setdefault("tags", [])
            body["dateAdded"] = body["dateModified"] = stamp(modified)
            self.items[key] = body
            return key

    def edit_item(self, key: str, changes: dict, *, modified: datetime) -> None:
        """A change made in Zotero: the item's version moves on."""
        with self._lock:
            self.version += 1
            self.items[key].update(changes, version=self.version, dateModified=stamp(modified))

    def add_note(self, parent: str, note: str, *, modified: datetime) -> str:
        """A child note written in Zotero (its HTML), in no collection of its own."""
        with self._lock:
            self.version += 1
            key = new_key()
            self.items[key] = {
                "key": key,
                "version": self.version,
                "itemType": "note",
                "parentItem": parent,
                "note": note,
                "tags": [],
                "collections": [],
                "relations": {},
                "dateAdded": stamp(modified),
                "dateModified": stamp(modified),
            }
            return key

    def trash_item(self, key: str, *, modified: datetime) -> None:
        """Moved to the trash in Zotero (recoverable): `deleted: 1`, a new version."""
        self.edit_item(key, {"deleted": 1}, modified=modified)

    def delete_item(self, key: str) -> None:
        """Deleted for good (the trash emptied): the key is listed by `/deleted`."""
        with self._lock:
            self.version += 1
            del self.items[key]
            self.deleted[key] = self.version

    def in_collection(self, collection: str, *, trashed: bool = True) -> list[dict]:
        return [
            item
            for item in self.items.values()
            if collection in item.get("collections", []) and (trashed or not item.get("deleted"))
        ]

    def children(self, parent: str) -> list[dict]:
        return [item for item in self.items.values() if item.get("parentItem") == parent]

    def writes(self) -> list[list[dict]]:
        return [json.loads(r.body) for r in self.requests if r.method == "POST"]

    # --- the API's side --------------------------------------------------------------
    def _object(self, data: dict) -> dict:
        library = {"type": self.library_type, "id": self.library_id, "name": "stand-in", "links": {}}
        return {
            "key": data["key"],
            "version": data["version"],
            "library": library,
            "links": {},
            "meta": {},
            "data": data,
        }

    def _answer(self, seen: Seen) -> tuple[int, dict[str, str], object]:
        if self.throttle:
            return 429, self.throttle.pop(0), "Too many requests"
        auth = seen.headers.get("Authorization", "")
        if auth != f"Bearer {self.api_key}" and seen.headers.get("Zotero-API-Key") != self.api_key:
            return 403, {}, "Forbidden"
        if seen.path == "/keys/current":
            rights = {"library": True, "notes": True, "write": self.write_access}
            if self.library_type == "group":
                access = {"user": {"library": True}, "groups": {str(self.library_id): rights}}
            else:
                access = {"user": rights}
            return 200, {}, {"key": self.api_key, "userID": 1, "username": "standin", "access": access}
        prefix = f"/{self.library_type}s/{self.library_id}"
        if not seen.path.startswith(prefix):
            return 403, {}, "Forbidden"
        path = seen.path[len(prefix) :].rstrip("/")
        if seen.method == "GET":
            return self._read(path, seen.query)
        if seen.method == "POST" and path == "/items":
            if not self.write_access:
                return 403, {}, "Write access denied"
            return self._write(json.loads(seen.body))
        return 404, {}, "Not found"

    def _page(self, rows: list[dict], query: dict[str, list[str]]):
        since = int(query.get("since", ["0"])[0])
        trashed = query.get("includeTrashed", ["0"])[0] == "1"
        rows = [row for row in rows if row["version"] > since and (trashed or not row.get("deleted"))]
        start, limit = int(query.get("start", ["0"])[0]), int(query.get("limit", ["25"])[0])
        headers = {"Last-Modified-Version": str(self.version), "Total-Results": str(len(rows))}
        return 200, headers, [self._object(row) for row in rows[start : start + limit]]

    def _read(self, path: str, query: dict[str, list[str]]):
        parts = path.split("/")[1:]
        if parts == ["deleted"]:
            if "since" not in query:
                return 400, {}, "'since' not provided"
            since = int(query["since"][0])
            keys = [key for key, version in self.deleted.items() if version > since]
            body = {"collections": [], "searches": [], "items": keys, "tags": [], "settings": []}
            return 200, {"Last-Modified-Version": str(self.version)}, body
        if parts == ["items"]:
            kind = query.get("itemType", [""])[0]
            return self._page([item for item in self.items.values() if kind in ("", item["itemType"])], query)
        if parts == ["collections"]:
            return self._page(list(self.collections.values()), query)
        if len(parts) == 3 and parts[0] == "collections" and parts[2] == "items":
            if parts[1] not in self.collections:
                return 404, {}, "Collection not found"
            return self._page(self.in_collection(parts[1]), query)
        if len(parts) == 2 and parts[0] == "items" and parts[1] in self.items:
            item = self.items[parts[1]]
            return 200, {"Last-Modified-Version": str(item["version"])}, self._object(item)
        return 404, {}, "Not found"

    def _write(self, objects: list[dict]):
        """write_requests, "Creating Multiple Objects" / "Updating Multiple
        Objects": up to 50; an object with a key and a version updates that
        item as PATCH does, and fails alone with 412 when the version is stale."""
        if len(objects) > 50:
            return 413, {}, "Too many items"
        answer: dict = {"successful": {}, "success": {}, "unchanged": {}, "failed": {}}
        new_version = self.version + 1
        for index, body in enumerate(objects):
            slot = str(index)
            key = body.get("key")
            current = self.items.get(key) if key else None
            if current is not None and "version" in body and body["version"] != current["version"]:
                answer["failed"][slot] = {
                    "key": key,
                    "code": 412,
                    "message": f"Item has been modified since specified version "
                    f"(expected {body['version']}, found {current['version']})",
                }
                continue
            if current is not None:
                changes = {k: v for k, v in body.items() if k not in READ_ONLY}
                if all(current.get(k) == v for k, v in changes.items()):
                    answer["unchanged"][slot] = key
                    continue
                current.update(changes, version=new_version, dateModified=stamp())
                saved = current
            else:
                key = key or new_key()
                saved = {**{k: v for k, v in body.items() if k != "version"}, "key": key, "version": new_version}
                saved.setdefault("tags", [])
                saved.setdefault("collections", [])
                saved["dateAdded"] = saved["dateModified"] = stamp()
                self.items[key] = saved
            answer["successful"][slot] = self._object(saved)
            answer["success"][slot] = key
        if answer["successful"]:
            self.version = new_version
        return 200, {"Last-Modified-Version": str(self.version)}, answer

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                seen = Seen(self.command, parts.path, parse_qs(parts.query), dict(self.headers.items()), body)
                with standin._lock:
                    standin.requests.append(seen)
                    status, headers, payload = standin._answer(seen)
                    if status == 200 and standin.backoff_next:
                        headers = {**headers, "Backoff": standin.backoff_next}
                        standin.backoff_next = None
                raw = (json.dumps(payload) if not isinstance(payload, str) else payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if not isinstance(payload, str) else "text/plain")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            do_GET = _serve
            do_POST = _serve

        return Handler
