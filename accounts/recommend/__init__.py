"""Recommendations: "more like what I saved". A linear model per user (and per
tag on request) over hashed TF-IDF-like text features, trained from the
research record; scores for new papers after each harvest; explanations from
the saved papers closest to each recommendation and the terms that weigh most.
See docs/recommendations.md for the method and its measured quality."""
