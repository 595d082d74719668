"""The REST API under /api/v1/ (issue 4): thin views over the same filters
(harvest.filters), selectors (harvest.selectors) and statistics
(harvest.stats) as the portal pages, so that pages and API cannot disagree."""
