// Record-time and valid-time travel over the data (docs/snapshot-format.md, "Record-time travel").
// `at` is null for "now" or an index into memory.times; every record time in the data is such an
// index, so "from <= T < to" is an integer comparison.
const RETIRED = new Set(["superseded", "retracted"]);

// A fact's state at record time `at`: its status, supersededByFact, reason, validFrom and validTo,
// read from the fact itself (now) or from its version then, not copied: a view change asks this of
// every fact of the selected entity (64,768 for the 100,000-entity hub; with hiddenWhy below, the
// detail panel's share of an as-of change went 42 -> 28-33 ms).
function factStateAt(fact, at) {
  if (at === null) return fact;
  for (const version of fact.history) {
    if (version.from <= at && (version.to === -1 || at < version.to)) return version;
  }
  return null; // not yet recorded at that time
}

function entityExistsAt(entity, at) {
  if (at === null) return entity.mergedInto === -1;
  return entity.createdAt <= at && (entity.mergedAt === -1 || entity.mergedAt > at);
}

// Whether an entity had been merged into another by record time `at` (null: now).
function mergedAwayAt(entity, at) {
  return entity !== null && entity.mergedInto !== -1 && (at === null || entity.mergedAt <= at);
}

// Whether, as of record time `at`, a merge had carried the fact to the kept entity: at a valid time
// its copy there is the value, and it is not listed beside it (store/reads.py _fact_filter).
function movedByMerge(fact, at) {
  return mergedAwayAt(fact.subjectEntity, at) || mergedAwayAt(fact.objectEntity, at);
}

function openContradictionsAt(fact, at) {
  if (!fact.contradictionList.length) return fact.contradictionList; // most facts: no new array
  return fact.contradictionList.filter((c) =>
    at === null ? c.resolvedAt === -1 : c.recordedAt <= at && (c.resolvedAt === -1 || c.resolvedAt > at));
}

// Valid times are ISO dates or datetimes as written, so they compare as strings (as the store's
// `--as-of-valid` does).
function holdsAtValid(factState, validAt) {
  if (validAt === null) return true;
  if (factState.status === "retracted") return false;
  return (factState.validFrom === null || factState.validFrom <= validAt) &&
         (factState.validTo === null || validAt < factState.validTo);
}

// The status a reader sees. A retracted fact that is still one side of an open contradiction is
// a candidate awaiting review (memware's review queue): a memlens store resolves a fact's
// contradictions when it retracts it, so only an import has these. viewer/model/fact_status.py
// says the same for the site's pages and the CLI.
function shownStatus(status, contested) {
  return status === "retracted" && contested ? "candidate" : status;
}

// A current fact whose state says it was archived (mnemo's archive: kept, but left out of mnemo's
// own reads). store/reads.py `is_archived` says the same for the CLI's counts.
function isArchived(state) {
  return state.status === "current" && typeof state.reason === "string" && state.reason.toLowerCase().startsWith("archived");
}

// Whether a fact is in an open contradiction at record time `at`.
function contestedAt(fact, at) {
  return at === null ? fact.contested || openContradictionsAt(fact, null).length > 0 : openContradictionsAt(fact, at).length > 0;
}

// Why a fact is hidden under the view state ("unrecorded", "forgotten", "archived", "merged" (at a
// valid time, a fact a merge carried away: its copy is shown), "invalid", "superseded"), or
// null when it is shown: factAppearance's decision without building its answer, which the detail
// panel built, with a pair, for each fact of the selected entity on every view change.
// "True at T" shows what `memlens facts --as-of-valid T` returns under the chosen record time:
// every current or superseded fact whose validity holds at T, a value superseded later included,
// whatever "Show superseded" says. Without a valid time, retired facts wait for "Show superseded";
// a candidate awaiting review is shown, contested.
function hiddenWhy(fact, view) {
  return whyHidden(fact, view, factStateAt(fact, view.asOfRecord));
}

// hiddenWhy for the fact's `state` at the view's record time, which factAppearance also needs.
function whyHidden(fact, view, state) {
  if (!state) return "unrecorded";
  if (state.status === "forgotten") return "forgotten";
  if (view.hideArchived && isArchived(state)) return "archived";
  if (view.asOfValid !== null) {
    if (movedByMerge(fact, view.asOfRecord)) return "merged";
    return holdsAtValid(state, view.asOfValid) ? null : "invalid";
  }
  if (view.showSuperseded || !RETIRED.has(state.status)) return null;
  return state.status === "retracted" && contestedAt(fact, view.asOfRecord) ? null : "superseded"; // a candidate
}

// How a fact appears under the view state: hidden (with why) or shown as current/retired, and a
// value superseded later that held at the chosen valid time (`heldThen`).
function factAppearance(fact, view) {
  const state = factStateAt(fact, view.asOfRecord);
  const why = whyHidden(fact, view, state);
  if (why === "unrecorded" || why === "forgotten") return { shown: false, why, state };
  const contested = contestedAt(fact, view.asOfRecord);
  const status = shownStatus(state.status, contested);
  const retired = RETIRED.has(status);
  if (why) return { shown: false, why, state, retired, status };
  return { shown: true, why: null, state, status, retired, heldThen: view.asOfValid !== null && retired, contested };
}
