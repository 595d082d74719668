"""The portal bench's printed table and the Markdown comparison of result files."""

from __future__ import annotations

from bench import sidebyside
from bench.alerts import lines as alerts_lines
from bench.follows import lines as follows_lines
from bench.recommend import lines as recommend_lines
from bench.record_files import lines as record_file_lines


def table(report: dict) -> str:
    header = (
        f"{'scenario':58} {'first':>7} {'p50':>7} {'p95':>7} {'http p50':>8} {'http p95':>8} {'q':>3} {'target':>6}  ok"
    )
    lines = [
        f"PaperTrail at {report['scale']:,} papers ({report['date']}), server times in ms",
        header,
        "-" * len(header),
    ]
    for r in report["results"]:
        f, http = r["in_process"], r.get("http") or {}
        status = "yes" if r["meets_target"] else "NO"
        if f["statuses"] != [200]:
            status += f" status {f['statuses']}"
        lines.append(
            f"{r['name'][:58]:58} {f['first_ms']:>7.1f} {f['p50_ms']:>7.1f} {f['p95_ms']:>7.1f} "
            f"{http.get('p50_ms', float('nan')):>8.1f} {http.get('p95_ms', float('nan')):>8.1f} {f['queries']:>3} "
            f"{r['target_p95_ms']:>6}  {status}"
        )
    lines.append("")
    lines.append("full-text matches: " + ", ".join(f"{k}: {v:,}" for k, v in report["search_matches"].items()))
    if report.get("stats_task"):
        task = report["stats_task"]
        lines.append(f"stats task (worker, once a minute): p50 {task['p50_ms']:.1f} ms, p95 {task['p95_ms']:.1f} ms")
    if report["web_memory"]:
        web = report["web_memory"]
        lines.append(
            f"web: gunicorn worker peak RSS {web['worker_peak_rss_mib']} MiB, master {web['master_peak_rss_mib']} MiB"
        )
    if report["ingest"]:
        i = report["ingest"]
        verdict = "yes" if i["meets_target"] else "NO"
        lines.append(
            f"ingest into the library: {i['records']:,} records in {i['seconds']:.1f} s = "
            f"{i['records_per_second']:,.0f} records/s (target 5,000: {verdict}), {i['ratio_to_parse_only']:.1f}x"
            f" parse-only; worker peak RSS {i['worker_peak_rss_mib']} MiB"
        )
        index = i["search_index"]
        lines.append(
            f"then the full-text indexing pass: {index['papers']:,} papers in {index['seconds']:.1f} s "
            f"({index['papers_per_second']:,.0f}/s); stored and searchable: "
            f"{i['searchable_records_per_second']:,.0f} records/s"
        )
    if report.get("record_files"):
        lines += record_file_lines(report["record_files"])
    if report.get("follows"):
        lines += follows_lines(report["follows"])
    if report.get("alerts"):
        lines += alerts_lines(report["alerts"])
    if report.get("recommend"):
        lines += recommend_lines(report["recommend"])
    lines += sidebyside.lines(report)
    m = report["machine"]
    lines.append(
        f"machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, "
        f"PostgreSQL shared_buffers {m.get('shared_buffers')}, "
        f"parallel workers per gather {m.get('max_parallel_workers_per_gather')}"
        f"; load {m['load_average'][0]:.1f} at start, {m['load_average_at_end'][0]:.1f} at end"
    )
    return "\n".join(lines)


def markdown(reports: list[tuple[str, dict]]) -> str:
    """One Markdown table of p50 / p95 server times (in process) for several
    reports side by side, row by scenario name (— where a report lacks it)."""
    names: list[str] = []
    targets: dict[str, int] = {}
    for _, report in reports:
        for r in report["results"]:
            if r["name"] not in targets:
                names.append(r["name"])
                targets[r["name"]] = r["target_p95_ms"]
    header = "| scenario | target | " + " | ".join(f"{label} p50 / p95 (HTTP p95)" for label, _ in reports) + " |"
    lines = [header, "|" + " --- |" * (2 + len(reports))]
    for name in names:
        cells = []
        for _, report in reports:
            r = next((r for r in report["results"] if r["name"] == name), None)
            if r is None:
                cells.append("—")
                continue
            f, http = r["in_process"], r.get("http") or {}
            mark = "" if r["meets_target"] else " ✗"
            http_p95 = f" ({http['p95_ms']:.0f})" if http else ""
            cells.append(f"{f['p50_ms']:.0f} / {f['p95_ms']:.0f}{http_p95}{mark}")
        lines.append(f"| {name} | {targets[name]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
