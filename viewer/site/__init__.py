"""The static site: its pages, the items they list, and the folder it is built in and swapped into place."""
