"""Bad filters of the research record, shared by its page's and its API's
tests: each is refused with a 400 naming the parameter."""

# A NUL in a filter once reached PostgreSQL (a 500, found by Schemathesis).
BAD_FILTERS = (
    ("tag=none", "tag"),
    ("state=x", "state"),
    ("sort=x", "sort"),
    ("page=0", "page"),
    ("page=%C2%B2", "page"),  # a digit to str.isdigit, not to int()
    ("category=cs.LG%00", "category"),
    ("category=not+a+code", "category"),
    ("q=a%00b", "q"),
)
