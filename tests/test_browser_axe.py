"""axe-core (tests/vendor/axe-core) finds no accessibility violation on the demo's report, on its
site's graph page and on its entity pages, in the light and the dark scheme: as they load, and the
report with an entity selected, its panel open, and a fact's line opened."""
from __future__ import annotations

from pathlib import Path

import pytest
from viewer_fixtures import open_report

pytestmark = pytest.mark.browser
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
RUN_AXE = """async () => {
  const result = await window.axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => [n.target.join(" "), n.failureSummary.split("\\n").slice(0, 3).join(" ")]) }));
}"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from click.testing import CliRunner

    from memlens.viewer.cli import main

    root = tmp_path_factory.mktemp("axe")
    runner = CliRunner(env={"MEMLENS_HOME": str(root / "home")})
    for args in (["demo"], ["export", "-d", "demo", "--format", "html", "-o", str(root / "demo.html")],
                 ["export", "-d", "demo", "--format", "site", "-o", str(root / "site")]):
        result = runner.invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
    entities = sorted((root / "site" / "entities").glob("*.html"))
    pages = {"billing": next(p for p in entities if p.name.startswith("billing-service-")),
             "contested": next(p for p in entities if p.name.startswith("api-gateway-"))}
    return {"report": root / "demo.html", "index": root / "site" / "index.html", **pages}


def violations(browser, path: Path, scheme: str, *, graph: bool, before=None) -> list[dict]:
    """What axe finds on `path` once loaded (and once `before(page)` has run). The page's CSP would
    refuse axe's script, so the context leaves it aside; the page's own code runs as it always does."""
    opened = open_report(browser, path, color_scheme=scheme, wait_for_graph=graph, bypass_csp=True)
    try:
        page = opened.page
        if before:
            before(page)
        page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
        return page.evaluate(RUN_AXE)
    finally:
        opened.close()


def select_and_open_a_fact(page) -> None:
    page.evaluate("() => window.memlens.selectEntityById([...window.memlens.memory.entityById.values()]"
                  ".find((e) => e.name === 'api-gateway').id)")
    page.locator("#detail .fact-toggle").first.click()
    page.wait_for_timeout(300)   # the panel slides in


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("which", ["report", "index", "billing", "contested", "report selected"])
def test_axe_finds_no_violation(browser, demo, which, scheme):
    name = which.split()[0]
    found = violations(browser, demo[name], scheme, graph=name in ("report", "index"),
                       before=select_and_open_a_fact if which.endswith("selected") else None)
    assert found == [], found


def test_axe_runs_and_reports_what_it_finds(browser, demo):
    """The positive case: the same run finds the fault the page had (a div named without a role)."""
    broken = demo["billing"].with_name("broken.html")
    page = demo["billing"].read_text(encoding="utf-8")
    start = page.index(">", page.index('<main id="main"')) + 1
    broken.write_text(page[:start] + '<div aria-label="unnamed box"></div>' + page[start:], encoding="utf-8")
    found = violations(browser, broken, "light", graph=False)
    assert [v["id"] for v in found] == ["aria-prohibited-attr"], found
