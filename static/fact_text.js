// How a fact is put in words, wherever the page shows one: its card in the detail panel, its line
// there, and the tip over the graph's links.

function validityText(state) {
  if (state.validFrom && state.validTo) return "valid " + state.validFrom + " \u2192 " + state.validTo;
  if (state.validFrom) return "valid since " + state.validFrom;
  if (state.validTo) return "valid until " + state.validTo;
  return "validity not stated";
}

// The dates a fact's line carries: its validity when stated, else the day it was recorded.
function shortDates(memory, fact, state) {
  if (state.validFrom || state.validTo) return el("span", { className: "fact-dates" }, validityText(state).replace(/^valid /, ""));
  const recorded = shortTime(memory.times[fact.recordedAt]);
  return el("span", { className: "fact-dates", title: "recorded " + recorded },
    el("span", { className: "visually-hidden" }, "recorded "), recorded.slice(0, 10));
}

// Its status as a badge (`look` from factAppearance), and "contested" as a tag of its own.
function statusBadges(fact, look) {
  return [
    el("span", { className: "status status-" + look.status,
                 title: look.status === "candidate" ? "awaiting review; not believed until approved" : null }, look.status),
    look.heldThen ? el("span", { className: "status status-held", title: "true at the chosen valid time, superseded later" },
                       "held then") : null,
    isArchived(look.state) ? el("span", { className: "status status-archived", title: "kept, but left out of its tool's own reads" },
                                "archived") : null,
    look.contested ? el("strong", { className: "tag tag-contested" }, "contested") : null,
  ];
}

function firstWords(text, count = 8) {
  const words = text.trim().split(/\s+/);
  return words.length > count ? words.slice(0, count).join(" ") + "\u2026" : words.join(" ");
}

// Its status as one mark on its line: a glyph, named in words for a screen reader and a tooltip.
const STATUS_MARKS = { current: "\u25cf", superseded: "\u25cb", retracted: "\u00d7", candidate: "?" };
function statusMark(look) {
  const words = [look.status, look.heldThen ? "held then" : null, isArchived(look.state) ? "archived" : null,
                 look.contested ? "contested" : null].filter(Boolean).join(", ");
  return el("span", { className: "mark mark-" + look.status + (look.contested ? " mark-contested" : ""), title: words },
    el("span", { "aria-hidden": "true" }, look.contested ? "\u26a0" : STATUS_MARKS[look.status] || "\u25cf"),
    el("span", { className: "visually-hidden" }, words));
}
