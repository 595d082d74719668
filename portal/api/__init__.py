"""The REST API under /api/v1/: thin views over the same filters, selectors and
statistics as the pages, so that pages and API cannot disagree."""
