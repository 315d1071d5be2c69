"""The CLI speaks in words: singulars where there is one, and an import counts as `stats` does."""
from __future__ import annotations

import json
import re

from import_fixtures import build_memoose

from memlens.viewer.cli.formatting import plural, stats_line


def test_counts_of_one_are_singular_and_others_plural():
    assert plural(1, "open contradiction") == "1 open contradiction"
    assert plural(2, "dismissal") == "2 dismissals" and plural(0, "dismissal") == "0 dismissals"
    assert plural(1_500, "entity", "entities") == "1,500 entities"
    line = stats_line({"entities": 1, "facts": 1, "current": 1, "superseded": 0, "retracted": 0, "forgotten": 0,
                       "contested": 0, "open_contradictions": 1, "dismissals": 1, "ledger": 1})
    assert line == ("1 entity, 1 fact (1 current, 0 superseded, 0 retracted, 0 forgotten), 0 contested, "
                    "1 open contradiction, 1 dismissal, 1 ledger row")


def test_an_import_says_what_it_copied_in_words_and_counts_entities_as_stats_does(cli, tmp_path):
    source = tmp_path / "memoose.sqlite"
    build_memoose(source)
    result = cli("import", "--from", "memoose", str(source), "-d", "copy")
    assert result.exit_code == 0, result.output
    summary = result.output.strip().splitlines()[-1]
    live = json.loads(cli("stats", "-d", "copy", "--json").output)["entities"]
    assert summary.startswith(f"imported memoose into copy: {live} entities (1 more merged into them), ")
    assert "_" not in summary.split(": ", 1)[1]              # words, not keys like types_added
    assert re.search(r", \d+ types? added, \d+ rows of its history$", summary)
