// Addresses that point into a page: #entity=<id or name>, #fact=<id>, #panel-<tab>, and
// #search=<words> (a site page's search box hands its words to the graph page, which holds the data).
function deepLink(kind, id) {
  return "#" + kind + "=" + encodeURIComponent(id);
}

function parseDeepLink(hash) {
  let text;
  try {
    text = decodeURIComponent(String(hash || "").replace(/^#/, ""));
  } catch (_) {
    return null; // a malformed escape is no link at all
  }
  const match = /^(entity|fact|search)=(.+)$/s.exec(text);
  if (match) return { kind: match[1], value: match[2] };
  if (/^panel-[a-z]+$/.test(text)) return { kind: "panel", value: text.slice(6) };
  return null;
}

// An id, a name (as the store compares names: case and spacing do not matter) or a unique id
// prefix of at least 4 characters. A live entity wins over a merged one of the same name.
function findEntity(memory, key) {
  const exact = memory.entityById.get(key);
  if (exact) return exact;
  const wanted = foldName(key);
  let found = null;
  for (const entity of memory.entities) {
    if (entity.searchName !== wanted) continue;
    if (!found || (found.mergedInto !== -1 && entity.mergedInto === -1)) found = entity;
  }
  return found || byUniquePrefix(memory.entities, key);
}

function findFact(memory, key) {
  return memory.factById.get(key) || byUniquePrefix(memory.facts, key);
}

function byUniquePrefix(items, key) {
  const prefix = String(key).trim().toLowerCase();
  if (!/^[0-9a-f-]{4,}$/.test(prefix)) return null;
  let found = null;
  for (const item of items) {
    if (!item.id.startsWith(prefix)) continue;
    if (found) return null; // ambiguous
    found = item;
  }
  return found;
}

// Keep the address in step with the selection (shareable), without adding history entries.
function rememberInAddress(hash) {
  if (location.hash === hash || (!hash && !location.hash)) return;
  try {
    history.replaceState(null, "", hash || location.pathname + location.search);
  } catch (_) {
    // some file:// setups refuse; the selection still works
  }
}
