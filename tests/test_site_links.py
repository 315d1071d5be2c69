"""Entity page names: readable, stable, unique."""

from __future__ import annotations

from memlens.viewer.model.links import entity_page_names, slug


def test_slug_keeps_letters_and_digits_and_drops_the_rest():
    assert slug("Billing Service") == "billing-service"
    assert slug("  auth.tokens/v2 ") == "auth-tokens-v2"
    assert slug("Café Zürich") == "cafe-zurich"
    assert slug("</script><script>alert(1)</script>") == "script-script-alert-1-script"
    assert slug("日本語") == "entity" and slug("") == "entity"
    assert len(slug("x" * 500)) == 60


def test_page_names_are_slug_and_short_id_and_never_collide():
    entities = [{"id": "1a2b3c4d-0000-5000-8000-000000000001", "name": "Billing Service"},
                {"id": "1a2b3c4d-0000-5000-8000-000000000002", "name": "billing-service"},
                {"id": "1a2b3c4d-0000-5000-8000-000000000003", "name": "billing service"},
                {"id": "99999999-0000-5000-8000-000000000004", "name": "index"}]
    names = entity_page_names(entities)
    assert names[entities[0]["id"]] == "billing-service-1a2b3c4d.html"
    assert names[entities[1]["id"]] == "billing-service-1a2b3c4d-000.html"  # same slug and short id
    assert names[entities[2]["id"]] == "billing-service-1a2b3c4d-0000-5000-8000-000000000003.html"
    assert names[entities[3]["id"]] == "index-99999999.html"  # never the list's own index.html
    assert len(set(names.values())) == len(entities)
    assert entity_page_names(entities) == names  # the same snapshot, the same names
