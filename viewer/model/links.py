"""Where a reference to an entity or a fact points, in the single file and in the site.

In the report every reference is an in-page deep link (`#entity=<id>`, `#fact=<id>`) that the
page's script follows. In a site it is a relative path to the entity's own page, so it also
works with scripts off; the graph page's script still catches the click and selects in place.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache
from typing import Any, Iterable, Protocol
from urllib.parse import quote

SLUG_LENGTH = 60
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Links(Protocol):
    def entity(self, entity_id: str) -> str | None: ...

    def fact(self, fact_id: str) -> str | None: ...


def deep_link(kind: str, ident: str) -> str:
    """`#entity=<id>` / `#fact=<id>`: what the page's script reads from the address."""
    return f"#{kind}={quote(ident, safe='')}"


class ReportLinks:
    """References inside the single-file report: fragments its script follows."""

    def __init__(self, entity_ids: Iterable[str], fact_ids: Iterable[str]) -> None:
        self._entities = set(entity_ids)
        self._facts = set(fact_ids)

    def entity(self, entity_id: str) -> str | None:
        return deep_link("entity", entity_id) if entity_id in self._entities else None

    def fact(self, fact_id: str) -> str | None:
        return deep_link("fact", fact_id) if fact_id in self._facts else None


def slug(name: str) -> str:
    """`Billing Service` -> `billing-service`: ASCII letters and digits, dashes between words."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    text = _NOT_SLUG.sub("-", ascii_name.lower()).strip("-")
    return text[:SLUG_LENGTH].rstrip("-") or "entity"


@lru_cache(maxsize=4096)   # a few dozen relations name the groups of 10,000 entities' pages: 0.3 s to 0.01
def file_key(text: str) -> str:
    """Any text (a relation, a maintenance kind) as part of a file name: its slug, then a hash of the
    text, so `a_b` and `a-b` stay apart and nothing of the text but letters and digits reaches a path."""
    return f"{slug(text)[:40]}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def page_key(entity_id: str) -> str:
    """Lowercase hex (and dashes) that names an entity on disk; never the id's own text.

    A memlens id is a uuid and is its own key, so page names made before ids were hashed keep
    working; any other id (an importer's, a hand-made snapshot's) is hashed, so `../`, `/`, NUL
    or 10,000 characters in an id can never reach a path.
    """
    if _UUID.fullmatch(entity_id):
        return entity_id
    return hashlib.sha256(entity_id.encode("utf-8", "surrogatepass")).hexdigest()


def entity_page_names(entities: list[dict[str, Any]]) -> dict[str, str]:
    """Entity id -> file name `slug-<first 8 of its page key>.html`, stable for as long as the name is.

    Two entities whose slugs and short keys both agree (rare, but 10,000 entities make an 8-digit
    clash likely somewhere) get longer keys, decided in snapshot order so it stays deterministic.
    Every name is lowercase, so two never differ only by case (one file on a case-insensitive disk).
    """
    names: dict[str, str] = {}
    taken: set[str] = {"index.html"}
    for entity in entities:
        base = slug(str(entity.get("name") or ""))
        key = page_key(str(entity["id"]))
        for length in (8, 12, len(key)):
            candidate = f"{base}-{key[:length]}.html"
            if candidate not in taken:
                break
        taken.add(candidate)
        names[entity["id"]] = candidate
    return names


class FactPages(Protocol):
    """Fact id -> the file name in entities/ of the page its links lead to (the one with its card);
    None for a fact no page shows (site/entity_plan.SitePlans: worked out when first asked for)."""

    def get(self, fact_id: Any) -> str | None: ...


class SiteLinks:
    """References from a page of the site, `root` being the way back to the site's top ('' or '../')."""

    def __init__(self, pages: dict[str, str], fact_pages: FactPages, root: str = "",
                 entities_dir: str = "entities/") -> None:
        self.pages = pages            # entity id -> file name inside entities/
        self.fact_pages = fact_pages
        self.root = root
        self.prefix = root + entities_dir

    def relative_to(self, root: str) -> "SiteLinks":
        return SiteLinks(self.pages, self.fact_pages, root)

    def entity(self, entity_id: str) -> str | None:
        page = self.pages.get(entity_id)
        return self.prefix + page if page else None

    def fact(self, fact_id: str) -> str | None:
        page = self.fact_pages.get(fact_id)
        return f"{self.prefix}{page}#fact-{fact_id}" if page else None

    def graph(self, kind: str, ident: str) -> str:
        return self.root + "index.html" + deep_link(kind, ident)
