"""PostgreSQL tsquery, evaluated in Python against a paper's lexemes.

A query follow stores the text of `websearch_to_tsquery('english', q)` (the
library's `q`, harvest.filters) parsed into a small tree. Matching a day of
papers then evaluates each distinct tree against the lexemes and positions
PostgreSQL computed for each paper, with tsquery's own rules: `!` binds
tightest, then `<N>` (phrase), `&`, `|`; a phrase `L <N> R` matches where R
sits N positions after the end of L. Trees with operators inside a phrase
other than lexemes and phrases (websearch_to_tsquery writes none) and prefix
or weight marks are not evaluated here: `is_exact` says so and the matcher
asks PostgreSQL instead.

Trees are JSON lists: ["l", lexeme], ["!", t], ["&", a, b], ["|", a, b],
["<>", distance, left, right].
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

Tree = list[Any]
Doc = Mapping[str, Sequence[int]]

_TOKEN = re.compile(r"\s*(?:'((?:[^']|'')*)'(:[*A-Da-d]+)?|(<->|<\d+>)|([!&|()]))")


class QuerySyntaxError(ValueError):
    pass


def parse(text: str) -> tuple[Tree | None, bool]:
    """The tree of a tsquery's text form and whether Python evaluates it
    exactly; (None, True) for an empty query."""
    tokens: list[tuple[str, Any]] = []
    position = 0
    exact = True
    text = text.rstrip()
    while position < len(text):
        found = _TOKEN.match(text, position)
        if not found:
            raise QuerySyntaxError(f"cannot read tsquery at {text[position : position + 20]!r}")
        position = found.end()
        lexeme, marks, phrase, operator = found.groups()
        if lexeme is not None:
            exact = exact and not marks
            tokens.append(("l", lexeme.replace("''", "'")))
        elif phrase is not None:
            tokens.append(("<>", 1 if phrase == "<->" else int(phrase[1:-1])))
        else:
            tokens.append((operator, None))
    if not tokens:
        return None, True
    parser = _Parser(tokens)
    tree = parser.parse_or()
    if parser.index != len(tokens):
        raise QuerySyntaxError("trailing tokens in tsquery")
    return tree, exact and _phrases_exact(tree, False)


class _Parser:
    def __init__(self, tokens: list[tuple[str, Any]]) -> None:
        self.tokens = tokens
        self.index = 0

    def _peek(self) -> str | None:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else None

    def parse_or(self) -> Tree:
        tree = self.parse_and()
        while self._peek() == "|":
            self.index += 1
            tree = ["|", tree, self.parse_and()]
        return tree

    def parse_and(self) -> Tree:
        tree = self.parse_phrase()
        while self._peek() == "&":
            self.index += 1
            tree = ["&", tree, self.parse_phrase()]
        return tree

    def parse_phrase(self) -> Tree:
        tree = self.parse_unary()
        while self._peek() == "<>":
            distance = self.tokens[self.index][1]
            self.index += 1
            tree = ["<>", distance, tree, self.parse_unary()]
        return tree

    def parse_unary(self) -> Tree:
        kind = self._peek()
        if kind == "!":
            self.index += 1
            return ["!", self.parse_unary()]
        if kind == "(":
            self.index += 1
            tree = self.parse_or()
            if self._peek() != ")":
                raise QuerySyntaxError("unbalanced parenthesis in tsquery")
            self.index += 1
            return tree
        if kind == "l":
            value = self.tokens[self.index][1]
            self.index += 1
            return ["l", value]
        raise QuerySyntaxError(f"unexpected {kind!r} in tsquery")


def _phrases_exact(tree: Tree, inside_phrase: bool) -> bool:
    op = tree[0]
    if op == "l":
        return True
    if op == "<>":
        return _phrases_exact(tree[2], True) and _phrases_exact(tree[3], True)
    if inside_phrase:
        return False
    return all(_phrases_exact(child, False) for child in tree[1:])


def _positions(tree: Tree, doc: Doc) -> tuple[set[int], int]:
    """End positions of a lexeme or phrase in the document, and its width."""
    if tree[0] == "l":
        return set(doc.get(tree[1], ())), 0
    distance, left, right = tree[1], tree[2], tree[3]
    left_at, left_width = _positions(left, doc)
    if not left_at:
        return set(), 0
    right_at, right_width = _positions(right, doc)
    offset = distance + right_width
    return {at + offset for at in left_at} & right_at, distance + left_width + right_width


def matches(tree: Tree, doc: Doc) -> bool:
    """Whether `doc` (lexeme -> positions) satisfies an exact tree."""
    op = tree[0]
    if op == "l":
        return tree[1] in doc
    if op == "&":
        return matches(tree[1], doc) and matches(tree[2], doc)
    if op == "|":
        return matches(tree[1], doc) or matches(tree[2], doc)
    if op == "!":
        return not matches(tree[1], doc)
    return bool(_positions(tree, doc)[0])


def lexemes(tree: Tree, *, positive: bool = True) -> list[str]:
    """The lexemes a match looks for (under no `!` when `positive`), in order."""
    found: list[str] = []

    def walk(node: Tree, negated: bool) -> None:
        if node[0] == "l":
            if not (positive and negated) and node[1] not in found:
                found.append(node[1])
        elif node[0] == "!":
            walk(node[1], not negated)
        else:
            for child in node[1:]:
                if isinstance(child, list):
                    walk(child, negated)

    walk(tree, False)
    return found


def candidates(tree: Tree, postings: Mapping[str, set[int]]) -> set[int] | None:
    """A superset of the documents that can match, from the inverted index
    `postings` (lexeme -> documents): the rarest required lexeme's documents,
    unions for `|`. None when a match needs no lexeme at all (a negation)."""
    op = tree[0]
    if op == "l":
        return postings.get(tree[1], set())
    if op == "!":
        return None
    if op == "|":
        left, right = candidates(tree[1], postings), candidates(tree[2], postings)
        return None if left is None or right is None else left | right
    children = [tree[1], tree[2]] if op == "&" else [tree[2], tree[3]]
    bounded = [found for found in (candidates(child, postings) for child in children) if found is not None]
    return min(bounded, key=len) if bounded else None


def is_bounded(tree: Tree) -> bool:
    """Whether every match must contain some lexeme (else the query would match
    almost every paper)."""
    return candidates(tree, {}) is not None
