"""memlens.viewer: snapshot -> offline HTML bundle, and the CLI."""
