// How a fact is put in words, wherever the page shows one: its card in the detail panel, its line
// there, and the tip over the graph's links.

function validityText(state) {
  if (state.validFrom && state.validTo) return "valid " + state.validFrom + " \u2192 " + state.validTo;
  if (state.validFrom) return "valid since " + state.validFrom;
  if (state.validTo) return "valid until " + state.validTo;
  return "validity not stated";
}

// The dates a fact's one line carries: its validity when stated, else when it was recorded.
function shortDates(memory, fact, state) {
  if (state.validFrom || state.validTo) return validityText(state).replace(/^valid /, "");
  return "recorded " + shortTime(memory.times[fact.recordedAt]).slice(0, 10);
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
