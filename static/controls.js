// The time-travel sliders, the superseded toggle and the type filters: they only edit the view
// state and ask the app to redraw.
function createControls(memory, view, nodes, onChange) {
  const lastRecord = Math.max(0, memory.times.length - 1);
  nodes.record.max = String(lastRecord);
  nodes.record.disabled = memory.times.length < 2;
  nodes.valid.max = String(memory.validTimes.length);
  nodes.valid.disabled = memory.validTimes.length === 0;

  function sync() {
    nodes.record.value = String(view.asOfRecord === null ? lastRecord : view.asOfRecord);
    nodes.recordValue.textContent = view.asOfRecord === null ? "now" : shortTime(memory.times[view.asOfRecord]);
    nodes.valid.value = String(view.asOfValid === null ? 0 : memory.validTimes.indexOf(view.asOfValid) + 1);
    nodes.validValue.textContent = view.asOfValid === null ? "any time" : view.asOfValid;
    nodes.superseded.checked = view.showSuperseded;
    for (const chip of nodes.chips) chip.setAttribute("aria-pressed", String(!view.hiddenTypes.has(chip.dataset.type)));
    document.body.classList.toggle("is-travelling", view.asOfRecord !== null || view.asOfValid !== null);
  }

  nodes.record.addEventListener("input", () => {
    const index = Number(nodes.record.value);
    onChange({ asOfRecord: index >= lastRecord ? null : index });
  });
  nodes.valid.addEventListener("input", () => {
    const index = Number(nodes.valid.value);
    onChange({ asOfValid: index === 0 ? null : memory.validTimes[index - 1] });
  });
  nodes.superseded.addEventListener("change", () => onChange({ showSuperseded: nodes.superseded.checked }));
  nodes.reset.addEventListener("click", () => onChange({ asOfRecord: null, asOfValid: null, hiddenTypes: new Set() }));
  for (const chip of nodes.chips) {
    chip.addEventListener("click", () => {
      const hidden = new Set(view.hiddenTypes);
      if (hidden.has(chip.dataset.type)) hidden.delete(chip.dataset.type);
      else hidden.add(chip.dataset.type);
      onChange({ hiddenTypes: hidden });
    });
  }
  return { sync };
}
