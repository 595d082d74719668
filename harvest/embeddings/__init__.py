"""Paper embeddings: a local multilingual sentence-embedding model behind one
small interface (encoders.py), the text of a paper it reads (passages.py),
their storage and the pass that computes them (services.py, selectors.py),
and the nearest-neighbour index the library's semantic and hybrid search and
"similar papers" read (index.py)."""
