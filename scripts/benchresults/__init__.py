"""scripts/results' parts: reading each benchmark's JSON (readers) and writing docs/results.md (page).

Why: the docs describe what each benchmark measures and why; the figures a run gave live in one generated
page, so that no page carries numbers pasted by hand from a run nobody can name.
"""
