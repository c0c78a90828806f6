"""The one document model every report format is rendered from (model.py: sections, tables,
cells, figures, images), and the small parts every section builds with (parts.py). Below the
suites, so that each suite's package makes its own report section (its report.py)."""
