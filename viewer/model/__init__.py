"""What the viewer makes of a snapshot before drawing anything: its index, link graph, layout,
timelines, changes, links and colours."""
