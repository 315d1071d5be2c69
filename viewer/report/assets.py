"""The code and styles the page inlines: vis-network from the installed pyvis, and ours from static/."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from importlib.util import find_spec
from pathlib import Path

from memlens.store.errors import BundleError
from memlens.store.recall_intent import page_tables
from memlens.store.words import STOP_WORDS


def _pyvis_folder() -> Path:
    """Where pyvis is installed, found without importing it (its import pulls in IPython: 0.3 s)."""
    spec = find_spec("pyvis")
    if spec is None or not spec.submodule_search_locations:
        raise BundleError("pyvis is not installed; memlens takes vis-network from it (pip install pyvis)")
    return Path(next(iter(spec.submodule_search_locations)))


def _static_text(name: str) -> str:
    return resources.files("memlens.static").joinpath(name).read_text(encoding="utf-8")


# The page drives vis-network through a few of its internals, all in static/vis_adapter.js, so it is
# built for one version, named there, the one pyvis 0.3.x ships; pyproject pins pyvis to those releases.
VIS_VERSION = re.search(r'^const VIS_VERSION = "([^"]+)";', _static_text("vis_adapter.js"), re.MULTILINE)[1]
VIS_DIR = _pyvis_folder() / "templates" / "lib" / f"vis-{VIS_VERSION}"
VIS_HEADER_VERSION = re.compile(r"@version (\S+)")
# Load order matters: later files use what earlier ones define inside the shared closure.
SCRIPT_FILES = ("dom.js", "memory.js", "deeplinks.js", "timetravel.js", "fact_text.js", "node_labels.js", "canvas_labels.js",
                "vis_adapter.js", "fact_tip.js", "graph_view.js", "graph_keys.js", "detail_panel.js", "porter.js",
                "search_index.js", "search_intent.js", "search.js", "refs.js", "provenance.js", "maintenance.js", "briefs.js",
                "timelines.js", "controls.js", "header_counts.js", "app.js")
STYLE_FILES = ("report.css",)
SITE_STYLE_FILES = ("report.css", "site.css")
SITE_SCRIPT_FILES = ("dom.js", "site.js")
# A source map comment is a load the browser may attempt; the page must attempt none.
SOURCE_MAP = re.compile(r"^\s*//# sourceMappingURL=.*$", re.MULTILINE)


@lru_cache(maxsize=1)
def vis_network_script() -> str:
    try:
        text = (VIS_DIR / "vis-network.min.js").read_text(encoding="utf-8")
    except OSError:
        raise BundleError(f"the installed pyvis does not ship vis-network {VIS_VERSION}, which memlens is "
                          "built for (pip install 'pyvis>=0.3.2,<0.4')") from None
    header = VIS_HEADER_VERSION.search(text[:1000])
    if header is None or header[1] != VIS_VERSION:
        raise BundleError(f"{VIS_DIR / 'vis-network.min.js'} is not vis-network {VIS_VERSION}, which memlens "
                          "is built for (pip install 'pyvis>=0.3.2,<0.4')")
    # the build does not say its version at run time; the page's adapter checks this stamp
    return SOURCE_MAP.sub("", text).rstrip() + f'\nvis.version = "{header[1]}";\n'


# A rule of vis-network's stylesheet whose body draws an inline image: the manipulation toolbar's
# and the navigation buttons' icons, 206 of its 220 KB. The graph enables neither (graph_view.js:
# navigationButtons false, no manipulation), so every page leaves them out.
_IMAGE_RULE = re.compile(r"[^{}]+\{[^{}]*url\(\"?data:image[^{}]*\}")


@lru_cache(maxsize=1)
def vis_network_style() -> str:
    """vis-network's stylesheet as the page uses it (see _IMAGE_RULE)."""
    return _IMAGE_RULE.sub("", (VIS_DIR / "vis-network.css").read_text(encoding="utf-8"))


def _stop_words_script() -> str:
    """The stop words of recall (memlens.store.words), which the page's search drops too: one list;
    and the tables recall reads a question's intent with (store/recall_intent.py), one home too."""
    return (f"const STOP_WORDS = new Set({json.dumps(sorted(STOP_WORDS))});\n"
            f"const RECALL_INTENT = {json.dumps(page_tables(), sort_keys=True)};\n")


def app_script() -> str:
    """Our modules concatenated into one IIFE, so their top-level names stay private to the page."""
    body = "\n".join([f"// ---- memlens.store.words\n{_stop_words_script()}"] +
                      [f"// ---- {name}\n{_static_text(name)}" for name in SCRIPT_FILES])
    return f'(function () {{\n"use strict";\n{body}\n}})();\n'


def app_style() -> str:
    return "\n".join(_static_text(name) for name in STYLE_FILES)


def site_style() -> str:
    """The site's stylesheet: the report's, plus what only the site's own pages use."""
    return "\n".join(_static_text(name) for name in SITE_STYLE_FILES)


def site_script() -> str:
    """The small script of the site's pages (not the graph page): filters and shortcuts."""
    body = "\n".join(f"// ---- {name}\n{_static_text(name)}" for name in SITE_SCRIPT_FILES)
    return f'(function () {{\n"use strict";\n{body}\n}})();\n'
