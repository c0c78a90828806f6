"""Reports derived from the results store alone: a document model (model.py) computed from the
runs' cells (document.py: sections.py, summary.py, pubsub.py, steady.py; uncertainty.py shows
intervals, rank intervals, unstable marks and ratios the same way in all of them), rendered as
Markdown (markdown.py) and as a self-contained HTML page (html.py, templates/), with SVG plots
(plots.py); the cells exported as CSV and JSON (files.py). `files.build` writes them all.

The package itself imports nothing, so its modules depend on one another and never on it."""
