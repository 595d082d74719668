"""The people bench/loadtest.py simulates (Locust). Reads what to request from
the JSON file named by PAPERTRAIL_LOADTEST_CONFIG, which bench/loadtest.py
writes from the bench library: query words, categories, papers, an API token
and a signed-in session. Never imports Django: Locust runs under gevent.

Reader: a person browsing, 1 to 5 s between actions. Saturating: the same mix
with no pause, to find how many requests a second the server holds.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from urllib.parse import urlencode

from locust import HttpUser, between, constant, task

CONFIG = json.loads(Path(os.environ["PAPERTRAIL_LOADTEST_CONFIG"]).read_text())
if not CONFIG["host"].startswith("http://127.0.0.1:"):
    raise SystemExit("the load test only talks to the loopback server it started")


class Reader(HttpUser):
    wait_time = between(1, 5)
    host = CONFIG["host"]

    def _get(self, url: str, name: str, **kwargs) -> None:
        with self.client.get(url, name=name, catch_response=True, allow_redirects=False, **kwargs) as response:
            if response.status_code != 200:
                response.failure(f"status {response.status_code}")

    @task(3)
    def overview(self) -> None:
        self._get("/", "overview /")

    @task(4)
    def library(self) -> None:
        params = random.choice(CONFIG["library_params"])
        self._get(f"/papers/?{urlencode(params)}" if params else "/papers/", "/papers/ with filters")

    @task(2)
    def search(self) -> None:
        self._get(f"/papers/?{urlencode({'q': random.choice(CONFIG['queries'])})}", "/papers/?q= full text")

    @task(3)
    def paper(self) -> None:
        self._get(f"/papers/{random.choice(CONFIG['papers'])}/", "paper page")

    @task(2)
    def api_list(self) -> None:
        params = random.choice(CONFIG["library_params"])
        self._get(
            f"/api/v1/papers/?{urlencode(params)}",
            "API papers list (token)",
            headers={"Authorization": f"Bearer {CONFIG['token']}"},
        )

    @task(1)
    def signed_in(self) -> None:
        url = random.choice(CONFIG["signed_in_urls"])
        self._get(url, f"signed in {url}", cookies={CONFIG["session_cookie"]: CONFIG["session"]})


class Saturating(Reader):
    wait_time = constant(0)
