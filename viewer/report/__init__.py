"""The single-file report: the page, its data blocks, its Content-Security-Policy and inlined assets."""
