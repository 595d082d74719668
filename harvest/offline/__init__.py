"""The bundled offline snapshot: real recorded files (see PROVENANCE.md here)
and the loader that stores them through the real parsers (loader.py)."""
