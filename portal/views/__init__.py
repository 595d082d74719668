"""The pages: thin views over the selectors of harvest, digests and accounts,
the library's filters (harvest.filters) and the site statistics (portal.stats)."""
