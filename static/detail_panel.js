// The detail panel: every fact of the selected entity, as it stands under the view state, grouped
// by relation and direction with exact counts. Each fact is one line (relation, other end, status
// mark, dates) that opens into its card, or, at the reader's choice, its card. A hub holds tens
// of thousands of facts, so a group shows its first GROUP_CARDS; "Show all N" turns it into pages
// of GROUP_PAGE. Every render builds lines and cards only for what is on screen; the rest of an
// entity's facts is only counted.
const STATUS_ORDER = { current: 0, superseded: 1, retracted: 2, forgotten: 3 };
const GROUP_CARDS = 10;
const GROUP_PAGE = 100;
const TOMBSTONES = "forgotten";
const OBSERVATIONS = "observations"; // an entity's observations: a list of their own, in their source's order
const OVERVIEW_ROWS = 8;
const HUB_CANDIDATES = 40;

// Where a merge brought a fact from (memory.js: [bundle, dataset, recorded there]); the site's card
// says the same (viewer/model/fact_status.py merged_from).
function mergedFrom(origin) {
  const [bundle, dataset, recorded] = origin;
  return "merged from " + dataset + " (bundle " + String(bundle).slice(0, 15) + "), recorded there " + shortTime(recorded);
}

function createDetailPanel(memory, view, panel, actions) {
  // A link to something the chosen record time did not know yet says so.
  const notYet = () => el("span", { className: "muted not-yet" }, " (not recorded yet then)");
  // Facts whose evidence changed in the repository since they were recorded (store/evidence.py).
  const checked = memory.meta && memory.meta.evidence_check;
  const evidenceChanged = new Set(checked && Array.isArray(checked.changed) ? checked.changed : []);

  function refButton(entity, label) {
    if (!entity) return el("span", { className: "muted" }, "(forgotten entity)");
    return [el("button", { type: "button", className: "ref ref-entity", "data-ref-kind": "entity",
                           "data-ref-id": entity.id }, label || entity.name),
            entityExistsAt(entity, view.asOfRecord) || view.asOfRecord === null ? null : notYet()];
  }

  // A link to `fact` from the card of `from`: where both read the same (two versions of one
  // memory: "memory c96a99b6 filed_under ownership"), the link names what differs instead.
  function factRef(fact, from) {
    return [el("button", { type: "button", className: "ref ref-fact", "data-ref-kind": "fact",
                           "data-ref-id": fact.id }, from ? differenceLabel(fact, from) : factLabel(fact)),
            factStateAt(fact, view.asOfRecord) ? null : notYet()];
  }

  function differenceLabel(fact, from) {
    const label = factLabel(fact);
    if (label !== factLabel(from)) return label;
    if (fact.description && fact.description !== from.description) return "\u201c" + firstWords(fact.description) + "\u201d";
    if (fact.validFrom && fact.validFrom !== from.validFrom) return label + ", valid from " + fact.validFrom;
    return label + " (" + shortId(fact.id) + ")";
  }

  function evidenceList(fact) {
    if (fact.evidence === null) return null; // not read yet: the panel is drawn again once it is
    if (!fact.evidence.length) return el("p", { className: "fact-evidence none" }, "no evidence recorded");
    return el("ul", { className: "fact-evidence", "aria-label": "evidence" }, fact.evidence.map((text) =>
      el("li", null, isWebLink(text)
        ? el("a", { href: text, target: "_blank", rel: "noopener noreferrer" }, text)
        : el("span", { className: "evidence-text" }, text))));
  }

  function contestedBox(fact, contradictions) {
    return contradictions.map((c) => {
      const others = c.factList.filter((f) => f && f !== fact);
      const confidence = typeof c.confidence === "number" ? c.confidence.toFixed(2) : "?";
      return el("div", { className: "contested-box" },
        el("p", null, el("span", { className: "contested-label" }, "why"),
           el("span", { className: "contested-reason" }, c.reason || "(no reason given)")),
        el("p", { className: "fact-meta" }, "confidence " + confidence + " \u00b7 raised by " + (c.actor || "?") +
           " \u00b7 " + shortTime(memory.times[c.recordedAt])),
        others.length ? el("p", { className: "contested-other" }, "conflicts with ", others.map((o) => factRef(o, fact))) : null);
    });
  }

  function supersededBox(fact, state) {
    if (!RETIRED.has(state.status)) return null;
    return el("div", { className: "retired-box" },
      el("p", null, state.status === "superseded" ? "superseded" : "retracted",
         state.supersededByFact ? [" by ", factRef(state.supersededByFact, fact)] : null),
      state.reason ? el("p", { className: "retired-reason" }, "reason: ", state.reason) : null);
  }

  // A fact memlens never puts in a brief, and why (the snapshot's withheld_from_briefs).
  const withheld = memory.meta.withheld_from_briefs || {};
  function withheldNote(fact) {
    const reason = Object.hasOwn(withheld, fact.id) ? withheld[fact.id] : null;
    return reason === null ? null : el("p", { className: "fact-withheld" },
      el("span", { className: "status status-withheld" }, "withheld from briefs"), " " + reason);
  }

  function factCard(entity, fact, look) {
    const state = look.state;
    if (state.status === "forgotten" || fact.relationName === null) return null;
    const outgoing = fact.subjectEntity === entity;
    const line = el("p", { className: "fact-line" },
      outgoing ? el("span", { className: "fact-self" }, entity.name) : refButton(fact.subjectEntity),
      el("span", { className: "fact-relation" }, " " + fact.relationName + " "),
      outgoing ? refButton(fact.objectEntity) : el("span", { className: "fact-self" }, entity.name));
    const badges = el("p", { className: "fact-badges" }, statusBadges(fact, look),
      evidenceChanged.has(fact.id) ? el("strong", { className: "tag tag-stale", title: "the file it cites is gone, "
        + "or git says the cited lines changed after it was recorded" }, "evidence changed since recorded") : null,
      fact.functional ? el("span", { className: "status status-functional", title: "one current value per subject" }, "functional") : null,
      fact.reassertions ? el("span", { className: "status" }, "reasserted \u00d7" + fact.reassertions) : null,
      el("code", { className: "fact-id", title: fact.id }, shortId(fact.id)));
    const meta = el("p", { className: "fact-meta" },
      el("span", null, validityText(state)),
      el("span", null, "by " + (fact.actor || "unknown")),
      el("span", null, "recorded " + shortTime(memory.times[fact.recordedAt])),
      RETIRED.has(state.status) && fact.retiredAt !== -1
        ? el("span", null, "retired " + shortTime(memory.times[fact.retiredAt])) : null,
      fact.origin ? el("span", { className: "fact-origin" }, mergedFrom(fact.origin)) : null);
    return el("article", { className: "fact fact-" + (isArchived(state) ? "archived" : state.status) + (look.contested ? " is-contested" : ""),
                           "data-fact-id": fact.id },
      line, badges,
      fact.description ? el("p", { className: "fact-description" }, fact.description) : null,
      look.contested ? contestedBox(fact, openContradictionsAt(fact, view.asOfRecord)) : null,
      withheldNote(fact),
      state.status === "current" && state.reason ? el("p", { className: "fact-state-reason" }, state.reason) : null,
      look.status === "candidate" ? null : supersededBox(fact, state), evidenceList(fact), meta);
  }

  function tombstone(fact) {
    return el("article", { className: "fact fact-forgotten", "data-fact-id": fact.id },
      el("p", { className: "fact-badges" }, el("span", { className: "status status-forgotten" }, "forgotten"),
         el("code", { className: "fact-id", title: fact.id }, shortId(fact.id))),
      el("p", { className: "fact-description muted" }, "The text of this fact was erased."),
      el("p", { className: "fact-meta" }, el("span", null, "recorded " + shortTime(memory.times[fact.recordedAt])),
         el("span", null, "forgotten " + shortTime(memory.times[fact.retiredAt]))));
  }

  // An entity's facts by relation and direction (outgoing first, then by relation name), each group
  // in card order; forgotten facts, whose relation is erased, in a group of their own at the end.
  // Worked out once per selected entity: a view change only re-counts.
  let grouped = null;
  function groupsOf(entity) {
    if (grouped && grouped.entity === entity) return grouped.groups;
    const byKey = new Map();
    for (const fact of entity.facts) {
      const outgoing = fact.subjectEntity === entity;
      const key = fact.relationName === null ? TOMBSTONES : outgoing && notesObservation(fact) ? OBSERVATIONS
        : (outgoing ? "out:" : "in:") + fact.relationName;
      let group = byKey.get(key);
      if (!group) byKey.set(key, group = { key, outgoing, relation: fact.relationName, facts: [] });
      group.facts.push(fact);
    }
    const rank = (g) => (g.key === OBSERVATIONS ? -1 : g.key === TOMBSTONES ? 2 : g.outgoing ? 0 : 1);
    const groups = [...byKey.values()].sort((a, b) => rank(a) - rank(b) ||
      (a.relation < b.relation ? -1 : a.relation > b.relation ? 1 : 0));
    for (const group of groups) {
      if (group.key === OBSERVATIONS) { // the source's order: those it no longer holds where they were
        group.facts.sort((a, b) => a.objectEntity.observation - b.objectEntity.observation || a.index - b.index);
        continue;
      }
      group.facts.sort((a, b) => (STATUS_ORDER[a.status] ?? 9) - (STATUS_ORDER[b.status] ?? 9) || a.index - b.index);
    }
    grouped = { entity, groups };
    return groups;
  }

  // Which page each group the reader opened with "Show all" is on, and which facts' lines are open;
  // forgotten on a new selection. Cards or lines is kept across selections.
  const pages = new Map();
  const opened = new Set();
  let pagesFor = null;
  let asCards = false;
  // The facts each group showed at the last render, for highlightFact.
  let lastShown = new Map();

  function groupHeading(entity, group, count) {
    if (group.key === OBSERVATIONS) {
      return el("h3", { className: "detail-section observations-head", "aria-label": plural(count, "observation") },
        "Observations ", el("span", { className: "muted" }, count.toLocaleString("en")));
    }
    const title = group.key === TOMBSTONES ? "forgotten"
      : group.outgoing ? group.relation + " \u2192" : "\u2190 " + group.relation;
    const label = group.key === TOMBSTONES ? plural(count, "forgotten fact")
      : plural(count, (group.outgoing ? "outgoing " : "incoming ") + group.relation + " fact");
    return el("h4", { className: "fact-group-title" + (asCards ? "" : " visually-hidden"), "aria-label": label },
      el("span", { className: "fact-relation" }, title), " ", el("span", { className: "muted fact-group-count" }, count.toLocaleString("en")));
  }

  // A fact's line: the relation (the button that opens its card), the other end, its status and its dates.
  function factLine(entity, fact, look) {
    if (look.state.status === "forgotten" || fact.relationName === null) return null;
    const outgoing = fact.subjectEntity === entity;
    const open = opened.has(fact.id);
    const line = el("div", { className: "fact-row" + (look.contested ? " is-contested" : "") + (look.retired ? " is-retired" : "") },
      el("button", { type: "button", className: "fact-toggle", "aria-expanded": String(open), "data-fact": fact.id,
                     title: (open ? "Hide" : "Show") + " the whole fact" },
         el("span", { className: "fact-chevron", "aria-hidden": "true" }, open ? "\u25be" : "\u25b8"),
         el("span", { className: "fact-relation" }, outgoing ? fact.relationName + " \u2192" : "\u2190 " + fact.relationName)),
      refButton(outgoing ? fact.objectEntity : fact.subjectEntity), statusMark(look),
      evidenceChanged.has(fact.id) ? el("span", { className: "mark mark-stale", title: "evidence changed since recorded" },
        el("span", { "aria-hidden": "true" }, "\u21ba"), el("span", { className: "visually-hidden" }, "evidence changed since recorded")) : null,
      Object.hasOwn(withheld, fact.id) ? el("span", { className: "mark mark-withheld", title: "withheld from briefs: " + withheld[fact.id] },
        el("span", { "aria-hidden": "true" }, "\u2298"), el("span", { className: "visually-hidden" }, "withheld from briefs")) : null,
      shortDates(memory, fact, look.state));
    return open ? el("div", { className: "fact-item is-open" }, line, factCard(entity, fact, look)) : line;
  }

  function groupBody(entity, group, shown) {
    const observed = group.key === OBSERVATIONS ? observationList(shown) : null;
    const item = (fact) => (group.key === TOMBSTONES ? tombstone(fact) : observed ? observed.item(fact)
      : (asCards ? factCard : factLine)(entity, fact, factAppearance(fact, view)));
    const list = (items) => (observed ? [observed.sources, el("ol", { className: "observation-list" }, items)] : items);
    const page = pages.get(group.key);
    if (page === undefined) {
      const more = shown.length - GROUP_CARDS;
      return [list(shown.slice(0, GROUP_CARDS).map(item)),
        more > 0 ? el("button", { type: "button", className: "link-button group-show-all", "data-group": group.key },
                      "Show all " + shown.length.toLocaleString("en")) : null];
    }
    const last = Math.max(0, Math.ceil(shown.length / GROUP_PAGE) - 1);
    const at = Math.min(page, last);
    const first = at * GROUP_PAGE, end = Math.min(shown.length, first + GROUP_PAGE);
    const pager = () => el("p", { className: "group-pager" },
      el("button", { type: "button", className: "link-button group-page", "data-group": group.key, "data-page": String(at - 1),
                     disabled: at === 0 }, "\u2190 Previous"),
      el("span", { className: "muted" }, " " + (shown.length ? first + 1 : 0).toLocaleString("en") + "\u2013" +
         end.toLocaleString("en") + " of " + shown.length.toLocaleString("en") + " "),
      el("button", { type: "button", className: "link-button group-page", "data-group": group.key, "data-page": String(at + 1),
                     disabled: at >= last }, "Next \u2192"));
    return [pager(), list(shown.slice(first, end).map(item)), end - first > 10 ? pager() : null];
  }

  // What an observation's card would repeat on every one (its evidence: its source's digest; its
  // validity; who wrote it; when) said once per source above the list, and each observation as
  // its text, numbered in its source's order among those it holds under the view. One the source
  // no longer holds (shown with "Show superseded") keeps its place, marked, without a number.
  function observationList(shown) {
    const sources = new Map(); // what a card would repeat -> [number, its words]
    const numbers = new Map(); // fact -> [its number in the list, its source's number]
    let held = 0;
    for (const fact of shown) {
      const look = factAppearance(fact, view);
      const words = observationSource(fact, look.state);
      if (!sources.has(words)) sources.set(words, sources.size + 1);
      numbers.set(fact, [look.retired ? null : ++held, sources.get(words)]);
    }
    const several = sources.size > 1;
    return {
      sources: el("div", { className: "observation-sources" }, [...sources].map(([words, number]) =>
        el("p", { className: "observation-source fact-meta" },
           several ? el("span", { className: "source-number" }, "source " + number) : null, words))),
      item(fact) {
        const look = factAppearance(fact, view);
        const [number, source] = numbers.get(fact);
        const open = opened.has(fact.id);
        const line = el("div", { className: "fact-row observation-row" + (look.retired ? " is-retired" : "") },
          el("span", { className: "observation-number", "aria-hidden": number === null ? "true" : null },
             number === null ? "" : number + "."),
          el("button", { type: "button", className: "fact-toggle observation-toggle", "aria-expanded": String(open),
                         "data-fact": fact.id, title: (open ? "Hide" : "Show") + " the whole fact" },
             el("span", { className: "fact-chevron", "aria-hidden": "true" }, open ? "\u25be" : "\u25b8"),
             el("span", { className: "observation-text" }, fact.objectEntity.name)),
          look.retired || look.contested ? statusMark(look) : null,
          several ? el("span", { className: "source-number", title: "source " + source }, String(source)) : null);
        return el("li", { className: "observation-item" + (open ? " is-open" : ""), "data-fact-id": fact.id },
          line, open ? factCard(fact.subjectEntity, fact, look) : null);
      },
    };
  }

  // A source in words: its evidence, its validity and who wrote it, and when (what set its
  // observations apart from the rest's: each import of a file cites the file's digest then).
  function observationSource(fact, state) {
    const evidence = fact.evidence === null ? null : fact.evidence.length ? fact.evidence.join(", ") : "no evidence recorded";
    return [evidence, validityText(state), "by " + (fact.actor || "unknown"),
            "recorded " + shortTime(memory.times[fact.recordedAt])].filter((part) => part !== null).join(" \u00b7 ");
  }

  panel.addEventListener("click", (event) => {
    const toggle = event.target.closest(".fact-toggle");
    if (toggle) {
      if (!opened.delete(toggle.dataset.fact)) opened.add(toggle.dataset.fact);
      render();
      panel.querySelector('.fact-toggle[data-fact="' + CSS.escape(toggle.dataset.fact) + '"]').focus();
      return;
    }
    if (event.target.closest("#detail-cards")) {
      showCards(!asCards);
      document.getElementById("detail-cards").focus();
      return;
    }
    const button = event.target.closest(".group-show-all, .group-page");
    if (!button) return;
    pages.set(button.dataset.group, button.dataset.page === undefined ? 0 : Number(button.dataset.page));
    render();
  });

  function header(entity) {
    const swatch = el("span", { className: "swatch-dot", "aria-hidden": "true" });
    swatch.style.backgroundColor = entity.color; // CSSOM, not a style attribute: allowed by the CSP
    const merged = entity.mergedInto !== -1 ? memory.entities[entity.mergedInto] : null;
    return el("header", { className: "detail-head" },
      el("div", { className: "detail-title" },
        el("h2", { id: "detail-title" }, entity.name),
        el("button", { type: "button", className: "icon-button", id: "detail-close", "aria-label": "Close details (Escape)" }, "\u00d7")),
      el("p", { className: "detail-type" }, swatch, entity.typeName, el("code", { title: entity.id }, shortId(entity.id))),
      entity.description ? el("p", { className: "detail-description" }, entity.description) : null,
      entityExistsAt(entity, view.asOfRecord) || view.asOfRecord === null || merged ? null
        : el("p", { className: "merged-note" }, "Not recorded yet at the chosen record time: created " +
             shortTime(memory.times[entity.createdAt]) + "."),
      merged ? el("p", { className: "merged-note" }, "Merged into ", refButton(merged), " at " +
                  shortTime(memory.times[entity.mergedAt]) + "; its facts now belong there.") : null,
      el("p", { className: "fact-meta" }, el("span", null, "created " + shortTime(memory.times[entity.createdAt])),
         el("span", null, "updated " + shortTime(memory.times[entity.updatedAt]))));
  }

  function actionsRow(entity) {
    const hidden = actions.hiddenNeighbours(entity);
    const timeline = document.getElementById("timeline-entity-" + entity.id);
    return el("div", { className: "detail-actions" },
      hidden ? el("button", { type: "button", className: "button", id: "detail-expand" },
                  "Show " + plural(hidden, "hidden neighbour")) : null,
      entity.page ? el("a", { className: "button-quiet", href: entity.page, id: "detail-page" }, "Open its page") : null,
      timeline ? el("a", { className: "button-quiet", href: "#timeline-entity-" + entity.id, id: "detail-timeline" },
                    "Open timeline") : null);
  }

  // The entities with the most links shown under the view, as [entity, links]. Now, the build's
  // counts; at another time, counted among the best connected of today (HUB_CANDIDATES of them: a
  // hub's facts are tens of thousands, and every view change would count them all).
  function hubsUnderView() {
    if (view.asOfRecord === null && view.asOfValid === null && !view.showSuperseded) {
      return memory.overview.filter((e) => e.mergedInto === -1).slice(0, OVERVIEW_ROWS).map((e) => [e, e.degree]);
    }
    const counted = [];
    for (const entity of memory.overview.slice(0, HUB_CANDIDATES)) {
      if (!entityExistsAt(entity, view.asOfRecord)) continue;
      let links = 0;
      for (const fact of entity.facts) {
        if (fact.subjectEntity && fact.objectEntity && !notesObservation(fact) && hiddenWhy(fact, view) === null) links++;
      }
      if (links) counted.push([entity, links]);
    }
    return counted.sort((a, b) => b[1] - a[1] || (a[0].name < b[0].name ? -1 : a[0].name > b[0].name ? 1 : 0)).slice(0, OVERVIEW_ROWS);
  }

  // The facts in a contradiction open at the view's record time (the first OVERVIEW_ROWS of them).
  let firstContested = null; // now: fixed, and a walk over every fact
  function contestedUnderView() {
    const at = view.asOfRecord;
    if (at === null) return firstContested || (firstContested = memory.facts.filter((f) => f.contested).slice(0, OVERVIEW_ROWS));
    const found = new Set();
    for (const contradiction of memory.contradictions) {
      if (!(contradiction.recordedAt <= at && (contradiction.resolvedAt === -1 || contradiction.resolvedAt > at))) continue;
      for (const fact of contradiction.factList) if (fact && factStateAt(fact, at)) found.add(fact);
      if (found.size >= OVERVIEW_ROWS) break;
    }
    return [...found].slice(0, OVERVIEW_ROWS);
  }

  // With nothing selected the panel offers ways in: the hubs and whatever is in dispute, as the
  // view has them.
  function overview() {
    const hubs = hubsUnderView();
    const contested = contestedUnderView();
    const travelling = view.asOfRecord !== null || view.asOfValid !== null;
    const swatch = (entity) => {
      const dot = el("span", { className: "swatch-dot", "aria-hidden": "true" });
      dot.style.backgroundColor = entity.color;
      return dot;
    };
    return el("div", { className: "detail-empty" },
      el("div", { className: "detail-title" }, el("p", { className: "detail-empty-title" }, "Nothing selected"),
         el("button", { type: "button", className: "icon-button", id: "detail-close", "aria-label": "Close the overview (Escape)" }, "\u00d7")),
      el("p", null, "Click a node, or search, to see every fact about an entity: status, evidence, validity, and who recorded it when."),
      el("h3", { className: "detail-section" }, "Most connected", travelling ? el("span", { className: "muted" }, " then") : null),
      el("ul", { className: "overview-list" }, hubs.map(([entity, links]) => el("li", null, swatch(entity), refButton(entity),
        el("span", { className: "degree" }, plural(links, "link"))))),
      contested.length ? [el("h3", { className: "detail-section" }, "Contested", travelling ? el("span", { className: "muted" }, " then") : null),
        el("ul", { className: "overview-list" }, contested.map((fact) => el("li", null,
          el("strong", { className: "tag tag-contested" }, "contested"), factRef(fact))))] : null);
  }

  function showCards(on) {
    asCards = on;
    render();
  }

  // Where the panel lies over the graph (report.css), it is open while something is selected or
  // while the reader asked for the overview (#detail-open); a selection ends that ask.
  let overviewAsked = false;
  function showOverview(on) {
    overviewAsked = on;
    render();
  }

  let shownEntity = null;
  function render() {
    const entity = view.selected;
    panel.replaceChildren();
    if (entity !== shownEntity) panel.scrollTop = 0; // another entity starts at its name
    shownEntity = entity;
    if (entity) overviewAsked = false;
    panel.classList.toggle("is-open", Boolean(entity) || overviewAsked);
    if (pagesFor !== entity) {
      pages.clear();
      opened.clear();
      pagesFor = entity;
    }
    if (!entity) {
      lastShown = new Map();
      panel.append(overview());
      return;
    }
    const hidden = { superseded: 0, unrecorded: 0, invalid: 0, archived: 0 };
    const sections = [];
    let observations = null; // listed above the facts, apart from them
    let total = 0;
    lastShown = new Map();
    for (const group of groupsOf(entity)) {
      const shown = [];
      for (const fact of group.facts) {
        const why = hiddenWhy(fact, view);
        if (group.key === TOMBSTONES) {
          if (why !== "unrecorded") shown.push(fact); // its text is erased: a tombstone once recorded
        } else if (why === null) shown.push(fact);
        else if (why in hidden) hidden[why]++;
      }
      if (!shown.length) continue;
      lastShown.set(group.key, shown);
      const section = el("section", { className: group.key === OBSERVATIONS ? "observations" : "fact-group", "data-group": group.key },
        groupHeading(entity, group, shown.length), groupBody(entity, group, shown));
      if (group.key === OBSERVATIONS) observations = section;
      else {
        if (group.key !== TOMBSTONES) total += shown.length;
        sections.push(section);
      }
    }
    const notes = [];
    if (hidden.superseded) {
      notes.push(el("p", { className: "hidden-note" }, plural(hidden.superseded, "superseded or retracted fact") + " hidden. ",
        el("button", { type: "button", className: "link-button", id: "detail-show-superseded" }, "Show superseded")));
    }
    if (hidden.unrecorded) notes.push(el("p", { className: "hidden-note" }, plural(hidden.unrecorded, "fact") + " not yet recorded at the as-of time."));
    if (hidden.archived) notes.push(el("p", { className: "hidden-note" }, plural(hidden.archived, "archived fact") + " hidden."));
    if (hidden.invalid) notes.push(el("p", { className: "hidden-note" }, plural(hidden.invalid, "fact") + " not valid at the chosen valid time."));
    appendAll(panel, [header(entity), actionsRow(entity), observations,
      el("div", { className: "detail-section facts-head" },
         el("h3", null, "Facts ", el("span", { className: "muted" }, total.toLocaleString("en"))),
         total ? el("button", { type: "button", className: "link-button", id: "detail-cards", "aria-pressed": String(asCards) },
                    "Show as cards") : null),
      total ? null : el("p", { className: "muted" }, "No " + (observations ? "other " : "") + "facts to show under the current view."),
      sections, notes]);
  }

  // Brings the fact's card on screen (turning its group to the right page, opening its line) and flashes it.
  function highlightFact(fact) {
    for (const [key, facts] of lastShown) {
      const position = facts.indexOf(fact);
      if (position < 0) continue;
      if (position >= GROUP_CARDS || pages.has(key)) pages.set(key, Math.floor(position / GROUP_PAGE));
      opened.add(fact.id);
      render();
      break;
    }
    return flashCard(fact);
  }

  function flashCard(fact) {
    const card = panel.querySelector('[data-fact-id="' + CSS.escape(fact.id) + '"]');
    if (!card) return false;
    card.classList.remove("flash");
    void card.offsetWidth; // restart the animation
    card.classList.add("flash");
    card.scrollIntoView({ block: "nearest" });
    return true;
  }

  return { render, highlightFact, showOverview, showCards, isOpen: () => panel.classList.contains("is-open") };
}
