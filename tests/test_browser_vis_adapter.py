"""vis-network behind static/vis_adapter.js: the page draws with the build the adapter is made for and
refuses, in words, a build stamped with another version."""

from __future__ import annotations

import pytest
from viewer_fixtures import open_report, project_ids

from memlens.viewer.report import assets
from memlens.viewer.report.csp import source_hash

pytestmark = pytest.mark.browser
IDS = project_ids()


def test_the_page_carries_the_vis_build_its_adapter_is_made_for_and_draws_with_it(project_report):
    page = project_report.page
    assert assets.VIS_VERSION == "9.1.2"
    assert page.evaluate("vis.version") == assets.VIS_VERSION
    assert page.evaluate("window.memlens.ready") is True
    assert IDS.alice in page.evaluate("window.memlens.network.body.data.nodes.getIds()")
    assert project_report.console_errors == []


def test_a_vis_build_stamped_with_another_version_is_refused_in_words(browser, project_report_path, tmp_path):
    html = project_report_path.read_text(encoding="utf-8")
    script = assets.vis_network_script()
    stamp = f'vis.version = "{assets.VIS_VERSION}";'
    assert html.count(script) == 1 and script.count(stamp) == 1
    other = script.replace(stamp, 'vis.version = "9.0.4";')
    # the page's CSP lets only the hashed scripts run: the changed one gets its own hash
    old_hash, new_hash = source_hash(script).strip("'"), source_hash(other).strip("'")
    assert html.count(old_hash) == 1
    changed = tmp_path / "other-vis.html"
    changed.write_text(html.replace(script, other).replace(old_hash, new_hash), encoding="utf-8")

    refused = open_report(browser, changed, wait_for_graph=False)
    try:
        refused.page.wait_for_function("document.getElementById('graph').textContent.includes('cannot be drawn')")
        assert refused.page.locator("#graph").inner_text() == \
            "The graph cannot be drawn: this page drives vis-network 9.1.2 but carries 9.0.4."
        assert refused.page.evaluate("window.memlens.ready") is False
        assert any("9.0.4" in error for error in refused.console_errors)
    finally:
        refused.context.close()

    kept = open_report(browser, project_report_path)
    try:
        assert kept.page.evaluate("window.memlens.ready") is True
        assert "cannot be drawn" not in kept.page.locator("#graph").inner_text()
    finally:
        kept.context.close()
