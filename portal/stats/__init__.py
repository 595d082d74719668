"""Site-wide statistics for the overview, the briefings and the API: the rolling
24-hour window, its counts, the freshness times, the totals and the daily chart.

Definitions (PRODUCT.md, "全站更新概况"), for a window [start, end] (both edges
included, end = now for the current window):

- new papers: Paper.included_at in the window;
- of which AI-related: those new papers with ai_related;
- revisions: versions discovered in the window of papers included before the
  window started (a new version of a paper first included inside the same
  window is part of a new paper, not a revision);
- new AI guided readings: digests GuidedReading rows done with written_at in the
  window (one per new version).
"""

from portal.stats.overview import OverviewStats, overview_stats, overview_stats_cached
from portal.stats.windows import Window, current_window, parse_window_end, window_ending

__all__ = [
    "OverviewStats",
    "Window",
    "current_window",
    "overview_stats",
    "overview_stats_cached",
    "parse_window_end",
    "window_ending",
]
