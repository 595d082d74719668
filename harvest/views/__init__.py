"""The public portal pages (issue 3): thin views over harvest.selectors,
harvest.filters and harvest.stats."""
