"""memlens's version: written here only. pyproject.toml reads it ([tool.setuptools.dynamic]), and
a snapshot and the MCP server say it without asking importlib.metadata, whose lookup of the
installed distribution was 14-22 ms of every export."""

VERSION = "0.1.0"
