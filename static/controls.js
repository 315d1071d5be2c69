// The time-travel sliders, the superseded toggle and the type filters: they only edit the view
// state and ask the app to redraw.
//
// Both sliders run on a time scale: each stop (a record time; a valid date) sits where its time
// falls between the first and the last, with a tick, and a position between two stops means the
// last stop before it, which is what "as of" means. The far left is the earliest stop. Record
// time ends in "now"; valid time has "any time" as a switch of its own. Arrow keys step from
// stop to stop. Writes closer together than one step of the scale (a session's batch, minutes
// apart) are one stop, the state after the last of them: stops are times, not write batches,
// and a memory with 400,000 record times still has at most SCALE_STEPS + 1 of them.
const SCALE_STEPS = 1000;

// Of the sorted times first..last (`dayOf(i)`: time i in days), the last one in each step of the
// scale, found by halving rather than by reading every time.
function lastPerStep(first, last, dayOf) {
  const start = dayOf(first), end = dayOf(last);
  if (start === null || end === null || !(end > start)) return first === last ? [first] : [first, last];
  const found = [];
  let low = first;
  for (let step = 0; step <= SCALE_STEPS && low <= last; step++) {
    const until = start + (end - start) * step / SCALE_STEPS;
    let lo = low, hi = last, at = -1;
    while (lo <= hi) {            // the last time at or before `until`
      const middle = (lo + hi) >> 1;
      const day = dayOf(middle);
      if (day !== null && day > until) hi = middle - 1;
      else { at = middle; lo = middle + 1; }
    }
    if (at >= low) { found.push(at); low = at + 1; }
  }
  if (found[found.length - 1] !== last) found.push(last);
  return found;
}

// Stops (any values) at their times (`timeOf`: a number, or null if unreadable), as slider positions 0..SCALE_STEPS.
function timeScale(stops, timeOf) {
  const times = stops.map(timeOf);
  const known = times.filter((t) => t !== null);
  // loops, not Math.min(...): a large memory has hundreds of thousands of record times
  let first = Infinity, last = -Infinity;
  for (const t of known) { first = Math.min(first, t); last = Math.max(last, t); }
  const span = last - first;
  let previous = 0;
  // a stop whose time cannot be read sits on the one before it, so positions never go back
  const positions = times.map((t) => (previous = t === null ? previous
    : span > 0 ? Math.round((t - first) / span * SCALE_STEPS) : SCALE_STEPS));
  function stopAt(position) { // the last stop at or left of `position`; the first one at worst
    let low = 0, high = positions.length - 1;
    while (low < high) {          // positions never go back, so halve
      const middle = (low + high + 1) >> 1;
      if (positions[middle] <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }
  return { stops, positions, stopAt };
}

// Record times to the minute, or to the second where two stops share a minute.
function stopLabels(times) {
  const minutes = times.map(shortTime);
  const seen = new Map();
  for (const minute of minutes) seen.set(minute, (seen.get(minute) || 0) + 1);
  return times.map((t, i) => (seen.get(minutes[i]) > 1 ? String(t).slice(0, 19).replace("T", " ") : minutes[i]));
}

function drawTicks(node, positions) {
  node.replaceChildren(...[...new Set(positions)].map((position) => {
    const tick = el("span", { className: "time-tick" });
    tick.style.left = (position / SCALE_STEPS * 100) + "%"; // CSSOM, which the CSP allows
    return tick;
  }));
}

function createControls(memory, view, nodes, onChange) {
  // record time: every time the memory was written from its first entity on (before it there
  // is nothing to draw), then "now" (the same state as the last write)
  let firstRecord = memory.times.length - 1;
  for (const entity of memory.entities) if (entity.createdAt >= 0) firstRecord = Math.min(firstRecord, entity.createdAt);
  const recordStops = memory.times.length ? lastPerStep(firstRecord, memory.times.length - 1, (i) => dayNumber(memory.times[i])) : [];
  const record = timeScale(recordStops, (i) => dayNumber(memory.times[i]));
  const recordLabels = stopLabels(recordStops.map((i) => memory.times[i]));
  const valid = timeScale(memory.validTimes.slice(), dayNumber);
  nodes.record.disabled = recordStops.length < 2;
  nodes.valid.disabled = memory.validTimes.length === 0;
  nodes.validAny.disabled = nodes.valid.disabled;
  if (!nodes.record.disabled) drawTicks(nodes.recordTicks, record.positions);
  if (!nodes.valid.disabled) drawTicks(nodes.validTicks, valid.positions);
  const lastRecord = recordStops.length - 1; // stop indexes, not time indexes
  let lastValid = 0; // where the valid slider was left when "any time" went back on

  function recordStop(at) { // the stop showing record time index `at`: the last one at or before it
    let low = 0, high = recordStops.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (recordStops[middle] <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  }
  function recordLabel() {
    return view.asOfRecord === null ? "now" : recordLabels[recordStop(view.asOfRecord)];
  }

  function sync() {
    const now = view.asOfRecord === null;
    nodes.record.value = String(now ? SCALE_STEPS : record.positions[recordStop(view.asOfRecord)]);
    nodes.recordValue.textContent = recordLabel();
    nodes.record.setAttribute("aria-valuetext", now ? "now" : "as believed at " + recordLabel());
    const any = view.asOfValid === null;
    if (!any) lastValid = memory.validTimes.indexOf(view.asOfValid);
    nodes.valid.value = String(valid.positions[Math.max(0, lastValid)] || 0);
    nodes.valid.classList.toggle("is-off", any);
    nodes.validValue.textContent = any ? "any time" : view.asOfValid;
    nodes.valid.setAttribute("aria-valuetext", any ? "any time" : "true at " + view.asOfValid);
    nodes.validAny.checked = any;
    nodes.superseded.checked = view.showSuperseded;
    if (nodes.archived) nodes.archived.checked = view.hideArchived;
    for (const chip of nodes.chips) chip.setAttribute("aria-pressed", String(!view.hiddenTypes.has(chip.dataset.type)));
    countTypes();
    document.body.classList.toggle("is-travelling", view.asOfRecord !== null || view.asOfValid !== null);
  }

  // The legend counts each type's entities as the chosen record time knew them (the build wrote now's).
  let countedAt = null;
  const counts = new Map(nodes.chips.map((chip) => [chip.dataset.type, chip.querySelector(".type-count")]));
  function countTypes() {
    if (countedAt === view.asOfRecord) return;
    countedAt = view.asOfRecord;
    const byType = new Map();
    for (const entity of memory.entities) {
      if (entity.observation !== null || !entityExistsAt(entity, view.asOfRecord)) continue; // an observation is no entity
      byType.set(entity.typeName, (byType.get(entity.typeName) || 0) + 1);
    }
    for (const [type, node] of counts) if (node) node.textContent = (byType.get(type) || 0).toLocaleString("en");
  }

  function goRecord(stop) {
    onChange({ asOfRecord: stop >= lastRecord + 1 ? null : recordStops[stop] });
  }

  function validStop(index) {
    onChange({ asOfValid: memory.validTimes[index] });
  }

  nodes.record.addEventListener("input", () => {
    const position = Number(nodes.record.value);
    goRecord(position >= SCALE_STEPS ? lastRecord + 1 : record.stopAt(position));
  });
  nodes.valid.addEventListener("input", () => validStop(valid.stopAt(Number(nodes.valid.value))));
  nodes.validAny.addEventListener("change", () => {
    if (nodes.validAny.checked) onChange({ asOfValid: null });
    else validStop(Math.max(0, lastValid));
  });

  // Arrow keys, Home and End move by stops (the record slider's last stop is "now"). `current()`
  // is the stop shown, or null when the slider is off ("any time"): a step then starts where it was left.
  function stepKeys(input, count, current, go) {
    input.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 10, PageDown: -10 }[event.key];
      const at = current();
      let target;
      if (step) target = at === null ? lastValid : Math.min(count - 1, Math.max(0, at + step));
      else if (event.key === "Home") target = 0;
      else if (event.key === "End") target = count - 1;
      else return;
      event.preventDefault();
      go(target);
    });
  }
  stepKeys(nodes.record, lastRecord + 2, () => (view.asOfRecord === null ? lastRecord + 1 : recordStop(view.asOfRecord)), goRecord);
  stepKeys(nodes.valid, memory.validTimes.length, () => (view.asOfValid === null ? null : lastValid), validStop);

  nodes.superseded.addEventListener("change", () => onChange({ showSuperseded: nodes.superseded.checked }));
  if (nodes.archived) {
    nodes.archived.addEventListener("change", () => onChange({ hideArchived: nodes.archived.checked }));
    // a memory that archives nothing (memlens's own) is not offered the filter
    nodes.archived.closest("label").hidden = !memory.facts.some(isArchived);
  }
  nodes.reset.addEventListener("click", () => onChange({ asOfRecord: null, asOfValid: null, hiddenTypes: new Set(),
    showSuperseded: Boolean(memory.showSuperseded), hideArchived: false }));
  for (const chip of nodes.chips) {
    chip.addEventListener("click", () => {
      const hidden = new Set(view.hiddenTypes);
      if (hidden.has(chip.dataset.type)) hidden.delete(chip.dataset.type);
      else hidden.add(chip.dataset.type);
      onChange({ hiddenTypes: hidden });
    });
  }
  const legendMore = fitLegend(nodes.legend, nodes.chips, nodes.legendMore);
  roveLegend(nodes.chips, legendMore);
  return { sync };
}

// The legend is one stop of the Tab key: the arrow keys, Home and End move between its chips, and
// a chip the closed legend cuts off opens it.
function roveLegend(chips, legendMore) {
  if (!chips.length) return;
  let at = 0;
  chips.forEach((chip, i) => { chip.tabIndex = i === at ? 0 : -1; });
  const keys = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  chips.forEach((chip, i) => {
    chip.addEventListener("focus", () => {
      chips[at].tabIndex = -1;
      at = i;
      chip.tabIndex = 0;
    });
    chip.addEventListener("keydown", (event) => {
      let next;
      if (event.key in keys) next = (i + keys[event.key] + chips.length) % chips.length;
      else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = chips.length - 1;
      else return;
      event.preventDefault();
      if (legendMore.cutOff(chips[next])) legendMore.open();
      chips[next].focus();
    });
  });
}

// The legend shows the rows it has room for; the types cut off are counted on a button that
// opens the whole legend, so every type can be reached at any window size.
function fitLegend(legend, chips, button) {
  const cutOff = (chip) => chip.getBoundingClientRect().bottom > legend.getBoundingClientRect().bottom + 1;
  function count() {
    if (legend.classList.contains("is-open")) return;
    button.hidden = false; // it takes room beside the legend: counted with it in place
    const cut = chips.filter(cutOff).length;
    button.hidden = cut === 0;
    button.textContent = "+" + cut + " more";
    button.setAttribute("aria-label", cut + " more types");
  }
  function toggle() {
    const open = legend.classList.toggle("is-open");
    button.setAttribute("aria-expanded", String(open));
    if (open) {
      button.textContent = "fewer";
      button.setAttribute("aria-label", "Show fewer types");
    } else {
      count();
    }
    window.dispatchEvent(new Event("resize")); // the graph's box changed
  }
  button.addEventListener("click", toggle);
  // the legend's width settles as the page lays out, and follows the window
  new ResizeObserver(count).observe(legend);
  return { cutOff: (chip) => !legend.classList.contains("is-open") && cutOff(chip), open: toggle };
}
