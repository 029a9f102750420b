"""The case explorer (`cairn view`, and the Action's explorer artifact): `page` lays out one self-contained
HTML page per report or comparison, `cases` is each case's data, `overview` the summary at its top and
`reliability` the confidence plot. The template and script are in `render/templates/`.
"""
