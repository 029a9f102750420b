"""One module per sample document.

Each module defines `PATH` (the document's path relative to the corpus root) and
`render(draw: Draw, facts: Facts) -> str` (its markdown). `generate.py` discovers the modules, so
adding a document is adding a module.
"""
