"""A paper's full text: fetched politely from arXiv's HTML rendering (the PDF
where there is none) for the versions researchers care about, parsed into
sections with their anchors, paragraphs, captions, references and math as
TeX, and stored compressed per version (docs/fulltext.md)."""
