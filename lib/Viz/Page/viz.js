// The Phobos visualizer's page: draws the data phobos-viz put in the
// <script id="phobos-viz-data"> element (its form: include/Phobos/Viz/
// Visualization.h). No library and no network. window.phobosViz exposes
// the few calls the browser test makes (test/Tools/phobos-viz).
//
// Why this file is long: it is the page's one script, which Page.cpp puts
// inline at the page's script marker (no modules: the page loads nothing);
// it is one section per panel (code, passes, layouts, shared memory,
// traffic, grid writes, autotuning, cluster), each a set of functions over
// the page's data that shares only the helpers at the top. The panels are
// the parts to move into files of their own if Page.cpp inlines several.
"use strict";

(function () {
  const data = JSON.parse(document.getElementById("phobos-viz-data").textContent);
  const $ = (id) => document.getElementById(id);

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ---- Header ------------------------------------------------------------

  function showSummary() {
    $("title").textContent = "Phobos visualizer: " + data.kernel;
    document.title = data.kernel + " · Phobos visualizer";
    const facts = [
      ["variant", data.variant.map(([name, value]) => name + "=" + value).join(", ") || "(none)"],
      ["chip", data.chip],
      ["dims", Object.entries(data.dims).map(([n, v]) => n + "=" + v).join(", ") || "(none)"],
      ["grid", data.grid ? data.grid.join(" x ") : "(" + (data.grid_note || "unknown") + ")"],
      ["warps", String(data.warps)],
      ["shared", data.shared_bytes !== undefined ? data.shared_bytes + " B" : "0 B"],
    ];
    for (const [name, value] of facts) {
      const item = element("div");
      item.append(element("dt", "", name), element("dd", "", value));
      $("facts").append(item);
    }
    if (data.missing && data.missing.length)
      $("missing").textContent = "Not shown yet: " + data.missing.join("; ") + ".";
  }

  // ---- Code panel ----------------------------------------------------------

  const sourceRows = new Map(); // source line -> row element
  let selectedSource = 0;

  function showSource() {
    const source = data.source;
    $("source-file").textContent = source.file + " (" + source.language + ")";
    const hidden = new Set(source.hidden);
    const fragment = document.createDocumentFragment();
    source.lines.forEach((text, index) => {
      const line = index + 1;
      if (hidden.has(line)) return; // @cluster: one GPU ignores it
      const row = element("div", "src-line");
      row.dataset.line = String(line);
      row.append(element("span", "no", String(line)), element("span", "text", text));
      row.addEventListener("click", () => selectSourceLine(line, true));
      sourceRows.set(line, row);
      fragment.append(row);
    });
    $("code").append(fragment);
  }

  function markSourceLines(lines) {
    for (const [line, row] of sourceRows) row.classList.toggle("has-ops", lines.has(line));
  }

  /// Highlights source line `line`; `fromSource`: also the IR lines linked
  /// to it in the current pass.
  function selectSourceLine(line, fromSource) {
    for (const row of $("code").querySelectorAll(".selected")) row.classList.remove("selected");
    selectedSource = line;
    const row = sourceRows.get(line);
    if (row) {
      row.classList.add("selected");
      row.scrollIntoView({ block: "nearest" });
    }
    if (fromSource) {
      for (const irRow of $("ir").querySelectorAll(".ir-line")) {
        irRow.classList.toggle("linked", Number(irRow.dataset.src) === line);
        irRow.classList.remove("selected");
      }
      const first = $("ir").querySelector(".ir-line.linked");
      if (first) first.scrollIntoView({ block: "nearest" });
    }
  }

  // ---- Passes panel --------------------------------------------------------

  const passes = data.passes;
  const texts = []; // the IR of each pass, rebuilt from the edits on demand
  const sources = [];
  let currentPass = 0;

  function textOf(index) {
    if (texts[index]) return texts[index];
    const pass = passes[index];
    let lines;
    if (pass.omitted) return null; // past --max-ir-lines: counts only
    if (pass.text) lines = pass.text;
    else if (!pass.changed) lines = textOf(index - 1);
    else {
      const before = textOf(index - 1);
      lines = [];
      let at = 0;
      for (const [kind, value] of pass.edits) {
        if (kind === "=") {
          for (let k = 0; k < value; ++k) lines.push(before[at + k]);
          at += value;
        } else if (kind === "-") at += value;
        else for (const line of value) lines.push(line);
      }
    }
    texts[index] = lines;
    return lines;
  }

  function sourcesOf(index) {
    if (sources[index]) return sources[index];
    const pass = passes[index];
    sources[index] = pass.src || (index > 0 ? sourcesOf(index - 1) : []);
    return sources[index];
  }

  function showPassList() {
    const list = $("pass-list");
    passes.forEach((pass, index) => {
      const item = element("div", "pass-item");
      item.dataset.index = String(index);
      item.dataset.pass = pass.pass;
      const name = element("span", "name", index + ". " + pass.pass);
      name.title = "ran on " + pass.anchor + "; " + pass.lines + " lines";
      const delta = element("span", "delta");
      if (pass.omitted) {
        item.classList.add("unchanged");
        delta.textContent = pass.lines + " lines, not shown";
      } else if (pass.text) delta.textContent = pass.lines + " lines";
      else if (!pass.changed) {
        item.classList.add("unchanged");
        delta.textContent = "unchanged";
      } else {
        delta.append(element("span", "plus", "+" + pass.added), " ", element("span", "minus", "-" + pass.removed));
      }
      item.append(name, delta);
      item.addEventListener("click", () => selectPass(index));
      list.append(item);
    });
  }

  function irRow(line, text, source, kind) {
    const row = element("div", "ir-line" + (kind ? " " + kind : ""));
    if (line) row.dataset.line = String(line);
    if (source) {
      row.dataset.src = String(source);
      row.classList.add("linked-op");
      row.title = "source line " + source;
    }
    row.append(element("span", "no", line ? String(line) : ""), element("span", "text", text));
    return row;
  }

  /// Shows pass `index`'s IR, whole or (changesOnly) as its diff with the
  /// pass before, three lines of context around each change.
  function selectPass(index) {
    currentPass = index;
    for (const item of $("pass-list").children)
      item.classList.toggle("active", Number(item.dataset.index) === index);
    const pass = passes[index];
    const lines = textOf(index);
    if (!lines) {
      $("ir-title").textContent = index + ". " + pass.pass + " on " + pass.anchor + " (" + pass.lines + " lines)";
      $("ir").replaceChildren(irRow(0, "The IR after this pass has " + pass.lines +
        " lines, more than the page keeps (phobos-viz --max-ir-lines).", 0, "skip"));
      return;
    }
    const src = sourcesOf(index);
    const changesOnly = $("diff-toggle").checked && index > 0 && pass.changed && !!pass.edits;
    $("ir-title").textContent = index + ". " + pass.pass + " on " + pass.anchor + " (" + lines.length + " lines" +
      (pass.edits ? ", +" + pass.added + " -" + pass.removed : index > 0 && !pass.changed ? ", unchanged" : "") + ")";
    const fragment = document.createDocumentFragment();
    if (!changesOnly) {
      lines.forEach((text, k) => fragment.append(irRow(k + 1, text, src[k], "")));
    } else {
      const before = textOf(index - 1);
      let oldAt = 0, newAt = 0;
      const context = 3;
      pass.edits.forEach(([kind, value], e) => {
        if (kind === "=") {
          const head = e > 0 ? Math.min(context, value) : 0;
          const tail = e + 1 < pass.edits.length ? Math.min(context, value - head) : 0;
          for (let k = 0; k < head; ++k) fragment.append(irRow(newAt + k + 1, lines[newAt + k], src[newAt + k], ""));
          if (value > head + tail) fragment.append(irRow(0, "  ... " + (value - head - tail) + " unchanged lines", 0, "skip"));
          for (let k = value - tail; k < value; ++k) fragment.append(irRow(newAt + k + 1, lines[newAt + k], src[newAt + k], ""));
          oldAt += value;
          newAt += value;
        } else if (kind === "-") {
          for (let k = 0; k < value; ++k) fragment.append(irRow(0, "- " + before[oldAt + k], 0, "removed"));
          oldAt += value;
        } else {
          for (let k = 0; k < value.length; ++k) fragment.append(irRow(newAt + k + 1, value[k], src[newAt + k], "added"));
          newAt += value.length;
        }
      });
    }
    const ir = $("ir");
    ir.replaceChildren(fragment);
    markSourceLines(new Set(src.filter((line) => line > 0)));
    if (selectedSource) selectSourceLine(selectedSource, true);
  }

  /// Selects IR line `line` of pass `index` and the source line of its op.
  function selectIrLine(index, line) {
    if (index !== currentPass) selectPass(index);
    showTab("panel-passes");
    let row = $("ir").querySelector('.ir-line[data-line="' + line + '"]');
    if (!row && $("diff-toggle").checked) {
      $("diff-toggle").checked = false;
      selectPass(index);
      row = $("ir").querySelector('.ir-line[data-line="' + line + '"]');
    }
    if (!row) return;
    for (const other of $("ir").querySelectorAll(".selected, .linked")) other.classList.remove("selected", "linked");
    row.classList.add("selected");
    row.scrollIntoView({ block: "center" });
    const source = Number(row.dataset.src || 0);
    if (source) selectSourceLine(source, false);
  }

  function wirePasses() {
    $("ir").addEventListener("click", (event) => {
      const row = event.target.closest(".ir-line");
      if (row && row.dataset.line) selectIrLine(currentPass, Number(row.dataset.line));
    });
    $("diff-toggle").addEventListener("change", () => selectPass(currentPass));
  }

  // ---- Tabs ----------------------------------------------------------------

  function showTab(panel) {
    for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.panel === panel);
    for (const view of document.querySelectorAll(".view")) view.classList.toggle("active", view.id === panel);
  }

  // ---- Grids (layouts and banks) -------------------------------------------

  /// Rows and columns a grid of `shape` is drawn as: the last axis across,
  /// the others down; a vector in rows of up to 64.
  function gridShape(shape) {
    if (shape.length === 1) {
      const columns = Math.min(shape[0], 64);
      return [Math.ceil(shape[0] / columns), columns];
    }
    const columns = shape[shape.length - 1];
    return [shape.slice(0, -1).reduce((a, b) => a * b, 1), columns];
  }

  function coordsOf(shape, flat) {
    const coords = [];
    for (let axis = shape.length - 1; axis >= 0; --axis) {
      coords.unshift(flat % shape[axis]);
      flat = Math.floor(flat / shape[axis]);
    }
    return coords;
  }

  /// Draws `count` cells of `columns` per row on `canvas`; colour(k) is the
  /// fill of cell k. Returns the cell size in pixels.
  function drawGrid(canvas, rows, columns, count, colour) {
    const box = canvas.parentElement.clientWidth || 800;
    const cell = Math.max(3, Math.min(22, Math.floor((box - 16) / columns)));
    canvas.width = columns * cell;
    canvas.height = rows * cell;
    const context = canvas.getContext("2d");
    context.clearRect(0, 0, canvas.width, canvas.height);
    const gap = cell >= 6 ? 1 : 0;
    for (let k = 0; k < count; ++k) {
      context.fillStyle = colour(k);
      context.fillRect((k % columns) * cell, Math.floor(k / columns) * cell, cell - gap, cell - gap);
    }
    return cell;
  }

  function cellAt(canvas, event, cell, columns, count) {
    const rect = canvas.getBoundingClientRect();
    const x = Math.floor((event.clientX - rect.left) * (canvas.width / rect.width) / cell);
    const y = Math.floor((event.clientY - rect.top) * (canvas.height / rect.height) / cell);
    const k = y * columns + x;
    return x >= 0 && x < columns && k >= 0 && k < count ? k : -1;
  }

  // ---- Layouts panel -------------------------------------------------------

  const layoutValues = data.layouts.values;
  const layoutTable = data.layouts.layouts;
  let shownLayout = -1;
  let pickedThread = -1;
  let lastRenderMs = 0;

  function warpColour(warp, lane, warps) {
    const hue = (warp * 360 / Math.max(warps, 1) + (warp % 2) * 17) % 360;
    return "hsl(" + hue.toFixed(0) + ",70%," + (30 + (lane / 31) * 45).toFixed(0) + "%)";
  }

  function showLayoutList() {
    const select = $("layout-select");
    if (!layoutValues.length) {
      select.append(element("option", "", "(no laid-out tile values)"));
      select.disabled = true;
      $("layout-info").textContent = "The kernel has no tile value with a register layout.";
      return;
    }
    layoutValues.forEach((value, index) => {
      const layout = layoutTable[value.layout];
      const option = element("option", "", value.name + " = " + value.op + (value.src ? "  (line " + value.src + ")" : "") +
        "  " + layout.shape.join("x") + "x" + layout.element + " " + layout.kind);
      option.value = String(index);
      select.append(option);
    });
    select.addEventListener("change", () => showLayout(Number(select.value)));
  }

  /// Draws value `index`'s layout (and, with `link`, highlights its source
  /// line); returns the milliseconds it took.
  function showLayout(index, link = true) {
    const start = performance.now();
    const value = layoutValues[index];
    if (!value) return 0;
    shownLayout = index;
    pickedThread = -1;
    $("layout-select").value = String(index);
    const layout = layoutTable[value.layout];
    $("layout-info").textContent = layout.type + ": " + layout.registers + " registers a thread, " + layout.warps +
      " warps" + (layout.holders ? "; some elements are held by several threads (copies)" : "");
    drawLayout();
    const legend = $("layout-legend");
    legend.replaceChildren();
    for (let warp = 0; warp < layout.warps; ++warp) {
      const item = element("span");
      const swatch = element("span", "swatch");
      swatch.style.background = warpColour(warp, 16, layout.warps);
      item.append(swatch, "warp " + warp);
      legend.append(item);
    }
    legend.append(element("span", "muted", "(lighter: higher lane)"));
    if (value.line) {
      const link = element("a", "", "IR line " + value.line + " of pass " + data.layouts.stage);
      link.href = "#";
      link.addEventListener("click", (event) => { event.preventDefault(); selectIrLine(data.layouts.stage, value.line); });
      legend.append(link);
    }
    if (link && value.src) selectSourceLine(value.src, false);
    lastRenderMs = performance.now() - start;
    return lastRenderMs;
  }

  let layoutCell = 0;

  function drawLayout() {
    const layout = layoutTable[layoutValues[shownLayout].layout];
    const canvas = $("layout-canvas");
    if (!layout.thread) {
      canvas.width = canvas.height = 0;
      $("layout-hover").textContent = layout.omitted || "No register layout.";
      return;
    }
    const [rows, columns] = gridShape(layout.shape);
    const count = layout.thread.length;
    layoutCell = drawGrid(canvas, rows, columns, count, (k) => {
      const thread = layout.thread[k];
      if (pickedThread >= 0 && thread !== pickedThread) return "#e9e9e6";
      return warpColour(thread >> 5, thread & 31, layout.warps);
    });
  }

  function describeElement(layout, k) {
    const thread = layout.thread[k];
    return "element [" + coordsOf(layout.shape, k).join(", ") + "]: warp " + (thread >> 5) + ", lane " + (thread & 31) +
      ", register " + layout.register[k] + (layout.holders && layout.holders[k] > 1 ? " (" + layout.holders[k] + " registers hold it)" : "");
  }

  function wireLayouts() {
    const canvas = $("layout-canvas");
    const hit = (event) => {
      if (shownLayout < 0) return [null, -1];
      const layout = layoutTable[layoutValues[shownLayout].layout];
      if (!layout.thread) return [layout, -1];
      const [, columns] = gridShape(layout.shape);
      return [layout, cellAt(canvas, event, layoutCell, columns, layout.thread.length)];
    };
    canvas.addEventListener("mousemove", (event) => {
      const [layout, k] = hit(event);
      if (k >= 0) $("layout-hover").textContent = describeElement(layout, k);
    });
    canvas.addEventListener("click", (event) => {
      const [layout, k] = hit(event);
      if (k < 0) return;
      const thread = layout.thread[k];
      pickedThread = pickedThread === thread ? -1 : thread;
      drawLayout();
      $("layout-hover").textContent = pickedThread < 0 ? describeElement(layout, k) :
        "warp " + (thread >> 5) + ", lane " + (thread & 31) + " holds the coloured elements (click again for all)";
    });
  }

  // ---- Shared-memory panel -------------------------------------------------

  function bankColour(bank) {
    return "hsl(" + ((bank * 360) / 32).toFixed(0) + ",65%," + (bank % 2 ? 62 : 48) + "%)";
  }

  function showShared() {
    const buffers = data.shared.buffers;
    $("shared-summary").textContent = buffers.length
      ? buffers.length + " buffer" + (buffers.length > 1 ? "s" : "") + (data.shared_bytes !== undefined ? ", " + data.shared_bytes + " bytes of shared memory a CTA" : "") +
        ". Grids: the bank (of 32) each element of a slot starts in."
      : "The kernel uses no shared buffer.";
    for (const buffer of buffers) $("shared-list").append(sharedCard(buffer));
  }

  function sharedCard(buffer) {
    const card = element("div", "buffer");
    const title = element("h3");
    const link = element("a", "", buffer.name);
    link.addEventListener("click", () => selectIrLine(data.shared.stage, buffer.line));
    title.append(link, " = " + buffer.op + (buffer.src ? " (line " + buffer.src + ")" : ""));
    card.append(title);
    const facts = [
      ["type", buffer.type],
      ["layout", buffer.layout],
      ["slots", buffer.slots + " of " + buffer.slot_shape.join("x") + "x" + buffer.element + ", " + buffer.slot_bytes + " B each"],
      ["bytes", String(buffer.bytes) + (buffer.offset !== undefined ? " at offset " + buffer.offset : "")],
    ];
    const table = element("table");
    for (const [name, value] of facts) {
      const row = element("tr");
      row.append(element("th", "", name), element("td", "", value));
      table.append(row);
    }
    card.append(table);
    if (buffer.conflicts) card.append(conflictTable(buffer.conflicts));
    if (buffer.banks) {
      const box = element("div", "canvas-box");
      const canvas = element("canvas", "bank-canvas");
      box.append(canvas);
      const hover = element("div", "hover muted", "Point at an element to see its bank.");
      card.append(box, hover);
      const [rows, columns] = buffer.slot_shape;
      requestAnimationFrame(() => {
        const cell = drawGrid(canvas, rows, columns, buffer.banks.length, (k) => bankColour(buffer.banks[k]));
        canvas.addEventListener("mousemove", (event) => {
          const k = cellAt(canvas, event, cell, columns, buffer.banks.length);
          if (k >= 0) hover.textContent = "element [" + Math.floor(k / columns) + ", " + (k % columns) + "] of slot 0: bank " + buffer.banks[k];
        });
      });
    }
    return card;
  }

  function conflictTable(conflicts) {
    const box = element("div");
    const kinds = Object.entries(conflicts.accesses).map(([kind, count]) => count + " " + kind).join(", ");
    box.append(element("div", "muted", "Bank-conflict model (tile-swizzle-shared), per warp-wide access: " + (kinds || "no access it models")));
    if (conflicts.note) box.append(element("div", "muted", "Note: " + conflicts.note + "."));
    if (!conflicts.layouts.length) return box;
    const table = element("table", "conflicts");
    const head = element("tr");
    for (const name of ["layout", "excess wavefronts", "wavefronts", "bytes"]) head.append(element("th", "", name));
    table.append(head);
    for (const candidate of conflicts.layouts) {
      const row = element("tr", candidate.chosen ? "chosen" : "");
      row.append(element("td", "", candidate.layout + (candidate.chosen ? " (chosen)" : "")),
        element("td", "", String(candidate.excess_wavefronts)), element("td", "", String(candidate.wavefronts)),
        element("td", "", String(candidate.bytes)));
      table.append(row);
    }
    box.append(table);
    return box;
  }

  // ---- Memory-traffic panel -------------------------------------------------

  const traffic = data.traffic || { note: "no traffic in this page's data" };
  const trafficColours = { read: [47, 111, 196], write: [214, 110, 28], "atomic add": [142, 68, 173] };
  /// Elements a mask left alone (outside the tensor), an element of the
  /// tensor the access did not touch, and the rest of the box around the
  /// tensor that holds the masked ones.
  const kMaskedColour = [120, 180, 40], kUntouched = [228, 228, 224], kOutside = [255, 255, 255];
  /// A pixel's state: what the colour of the access, of a mask, or neither.
  const kTouched = 1, kMasked = 2, kOutsideTensor = 3;
  /// Tensors past this many elements are drawn a block of elements a pixel.
  const kMaxTrafficPixels = 1 << 22;
  let shownTraffic = -1;
  let trafficView = null; // what the hover needs: the box, its grid, block, states

  function showTrafficList() {
    const select = $("traffic-select");
    const accesses = traffic.accesses || [];
    const notes = [];
    if (traffic.cta) notes.push("CTA (" + traffic.cta.join(", ") + ") on the interpreter, inputs seeded as phobos-run seeds them.");
    if (traffic.note) notes.push(traffic.note + ".");
    $("traffic-info").textContent = notes.join(" ");
    if (!accesses.length) {
      select.append(element("option", "", "(no traced access)"));
      select.disabled = true;
      return;
    }
    accesses.forEach((access, index) => {
      const tensor = traffic.tensors[access.tensor];
      const option = element("option", "", (access.src ? "line " + access.src + ": " : "") + access.op + " " +
        access.kind + " " + tensor.name + " (" + access.count + " elements)");
      option.value = String(index);
      select.append(option);
    });
    select.addEventListener("change", () => showTraffic(Number(select.value)));
  }

  /// Draws access `index` over its tensor, and its masked elements apart
  /// around it (in the box that holds both); returns the milliseconds it
  /// took.
  function showTraffic(index, link = true) {
    const start = performance.now();
    const access = (traffic.accesses || [])[index];
    if (!access) return 0;
    shownTraffic = index;
    $("traffic-select").value = String(index);
    const tensor = traffic.tensors[access.tensor];
    const box = access.box || { origin: tensor.shape.map(() => 0), shape: tensor.shape };
    const [rows, columns] = gridShape(box.shape);
    const elements = box.shape.reduce((a, b) => a * b, 1);
    const block = elements > kMaxTrafficPixels ? Math.ceil(Math.sqrt(elements / kMaxTrafficPixels)) : 1;
    const height = Math.ceil(rows / block), width = Math.ceil(columns / block);
    const states = new Uint8Array(width * height);
    const mark = (position, state) => {
      const pixel = Math.floor(Math.floor(position / columns) / block) * width + Math.floor((position % columns) / block);
      if (states[pixel] !== kTouched) states[pixel] = state;
    };
    // A tensor element's position in the box: the same when the box is the
    // tensor.
    const rank = box.shape.length;
    const shifted = access.box !== undefined;
    const inBox = (flat) => {
      if (!shifted) return flat;
      let position = 0, stride = 1;
      for (let axis = rank - 1; axis >= 0; --axis) {
        const extent = tensor.shape[axis];
        position += (flat % extent - box.origin[axis]) * stride;
        flat = Math.floor(flat / extent);
        stride *= box.shape[axis];
      }
      return position;
    };
    if (shifted) {
      // Box elements outside the tensor, then the masked ones.
      const index = new Array(rank).fill(0);
      for (let position = 0; position < elements; ++position) {
        let inside = true;
        for (let axis = 0; axis < rank; ++axis) {
          const at = index[axis] + box.origin[axis];
          if (at < 0 || at >= tensor.shape[axis]) { inside = false; break; }
        }
        if (!inside) mark(position, kOutsideTensor);
        for (let axis = rank - 1; axis >= 0; --axis) {
          if (++index[axis] < box.shape[axis]) break;
          index[axis] = 0;
        }
      }
      for (const [first, length] of access.masked_runs)
        for (let k = first; k < first + length; ++k) mark(k, kMasked);
    }
    for (const [first, length] of access.runs)
      for (let k = first; k < first + length; ++k) mark(inBox(k), kTouched);
    const canvas = $("traffic-canvas");
    canvas.width = width;
    canvas.height = height;
    const image = canvas.getContext("2d").createImageData(width, height);
    const colour = trafficColours[access.kind] || [0, 0, 0];
    const fills = [kUntouched, colour, kMaskedColour, kOutside];
    for (let p = 0; p < width * height; ++p) {
      const c = fills[states[p]];
      image.data.set([c[0], c[1], c[2], 255], p * 4);
    }
    canvas.getContext("2d").putImageData(image, 0, 0);
    // Small tensors get bigger cells; the pixels stay square.
    const boxWidth = canvas.parentElement.clientWidth || 800;
    const scale = Math.max(1, Math.min(22, Math.floor((boxWidth - 16) / width)));
    canvas.style.width = width * scale + "px";
    canvas.style.height = height * scale + "px";
    trafficView = { tensor, box, columns, block, width, states, scale };
    const legend = $("traffic-legend");
    const entry = (fill, text) => {
      const item = element("span", "", "");
      const swatch = element("span", "swatch");
      swatch.style.background = "rgb(" + fill.join(",") + ")";
      item.append(swatch, text);
      return item;
    };
    legend.replaceChildren(entry(colour, access.kind + " by " + access.op));
    if (shifted) {
      legend.append(entry(kMaskedColour, "masked (outside " + tensor.name + ", left alone)"));
      legend.append(entry(kOutside, "outside " + tensor.name));
    }
    legend.append(element("span", "muted", tensor.name + ": " + tensor.shape.join("x") + "x" + tensor.element +
      (shifted ? ", drawn in the box from [" + box.origin.join(", ") + "] of " + box.shape.join("x") : "") +
      (block > 1 ? ", a pixel per " + block + "x" + block + " block" : "") + "; " + access.count + " elements touched over " +
      access.executions + " execution" + (access.executions > 1 ? "s" : "") + ", " +
      (shifted ? access.masked_elements + " masked (" + access.masked + " over every execution)" : access.masked + " masked") +
      (access.truncated ? " (the list is cut short)" : "")));
    if (access.line) {
      const irLink = element("a", "", "IR line " + access.line + " of pass " + traffic.stage);
      irLink.href = "#";
      irLink.addEventListener("click", (event) => { event.preventDefault(); selectIrLine(traffic.stage, access.line); });
      legend.append(irLink);
    }
    if (link && access.src) selectSourceLine(access.src, false);
    return performance.now() - start;
  }

  function wireTraffic() {
    $("traffic-canvas").addEventListener("mousemove", (event) => {
      if (!trafficView) return;
      const view = trafficView;
      const rect = $("traffic-canvas").getBoundingClientRect();
      const x = Math.floor((event.clientX - rect.left) / view.scale), y = Math.floor((event.clientY - rect.top) / view.scale);
      if (x < 0 || x >= view.width || y < 0) return;
      const position = (y * view.block) * view.columns + x * view.block;
      const coords = (view.box.shape.length === 1 ? [position] : coordsOf(view.box.shape, position))
        .map((at, axis) => at + view.box.origin[axis]);
      const state = view.states[y * view.width + x];
      $("traffic-hover").textContent = view.tensor.name + "[" + coords.join(", ") + "]" + (view.block > 1 ? " (block)" : "") +
        (state === kTouched ? ": touched" : state === kMasked ? ": masked (outside the tensor)"
          : state === kOutsideTensor ? ": outside the tensor" : ": not touched");
    });
  }

  // ---- Grid-writes panel ----------------------------------------------------

  const writes = data.writes || { note: "no grid view in this page's data" };
  const writesTensors = writes.tensors || [];
  // CTAs get light colours, so that the races (strong red) and the
  // elements several CTAs wrote (dark) stand out.
  const kNotWritten = [238, 238, 234], kRaced = [214, 0, 0], kSeveral = [58, 36, 92];
  let shownWrites = -1;
  let writesView = null; // what the hover and the click need
  let pickedCta = -1;

  /// A colour per CTA (linear index): hues a golden angle apart, so that
  /// neighbours differ.
  function ctaColour(cta) {
    const hue = (200 + cta * 137.508) % 360, light = 0.74 - 0.08 * ((cta >> 3) % 2);
    const c = (1 - Math.abs(2 * light - 1)) * 0.75, x = c * (1 - Math.abs((hue / 60) % 2 - 1)), m = light - c / 2;
    const [r, g, b] = hue < 60 ? [c, x, 0] : hue < 120 ? [x, c, 0] : hue < 180 ? [0, c, x]
      : hue < 240 ? [0, x, c] : hue < 300 ? [x, 0, c] : [c, 0, x];
    return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
  }

  function ctaName(cta) {
    const [gx, gy] = writes.grid;
    return "CTA (" + (cta % gx) + ", " + (Math.floor(cta / gx) % gy) + ", " + Math.floor(cta / (gx * gy)) + ")";
  }

  function showWritesList() {
    const select = $("writes-select");
    const races = writes.races || [];
    const notes = [];
    if (writes.grid)
      notes.push("The whole grid (" + writes.grid.join(" x ") + ") on the interpreter with the race check, inputs seeded as phobos-run seeds them: " +
        (races.length ? races.length + " unordered pair" + (races.length > 1 ? "s" : "") + " of accesses." : "no race."));
    if (writes.note) notes.push(writes.note + ".");
    $("writes-info").textContent = notes.join(" ");
    races.forEach((race, index) => {
      const tensor = writesTensors[race.tensor];
      const row = element("div", "race", "race on " + (tensor ? tensor.name : "?") + "[" + race.element.join(", ") + "]" +
        (race.count > 1 ? " (" + race.count + " pairs)" : "") + ": " + race.second.access + " by CTA (" + race.second.cta.join(", ") +
        ")" + (race.second.src ? " at line " + race.second.src : "") + ", unordered with the " + race.first.access + " by CTA (" +
        race.first.cta.join(", ") + ")" + (race.first.src ? " at line " + race.first.src : ""));
      row.dataset.index = String(index);
      row.addEventListener("click", () => selectRace(index));
      $("writes-races").append(row);
    });
    if (!writesTensors.length) {
      select.append(element("option", "", "(no tensor written)"));
      select.disabled = true;
      return;
    }
    writesTensors.forEach((tensor, index) => {
      const option = element("option", "", tensor.name + " (" + tensor.written + " elements written by " + tensor.ctas + " CTA" +
        (tensor.ctas === 1 ? "" : "s") + (tensor.raced && tensor.raced.length ? ", races" : "") + ")");
      option.value = String(index);
      select.append(option);
    });
    select.addEventListener("change", () => { pickedCta = -1; showWrites(Number(select.value)); });
  }

  /// Shows race `index`: its tensor, and the source line of its later access.
  function selectRace(index) {
    const race = (writes.races || [])[index];
    if (!race) return;
    for (const row of $("writes-races").querySelectorAll(".race")) row.classList.toggle("selected", row.dataset.index === String(index));
    if (race.tensor >= 0 && race.tensor !== shownWrites) showWrites(race.tensor, false);
    if (race.second.src) selectSourceLine(race.second.src, false);
  }

  /// Draws tensor `index` of the grid view; returns the milliseconds it took.
  function showWrites(index, link = true) {
    const start = performance.now();
    const tensor = writesTensors[index];
    if (!tensor) return 0;
    shownWrites = index;
    $("writes-select").value = String(index);
    const [rows, columns] = gridShape(tensor.shape);
    const elements = tensor.shape.reduce((a, b) => a * b, 1);
    const block = elements > kMaxTrafficPixels ? Math.ceil(Math.sqrt(elements / kMaxTrafficPixels)) : 1;
    const height = Math.ceil(rows / block), width = Math.ceil(columns / block);
    // Per pixel: the CTA (linear index + 1; 0 none), then the flags.
    const writer = new Int32Array(width * height), flags = new Uint8Array(width * height);
    const pixel = (k) => Math.floor(Math.floor(k / columns) / block) * width + Math.floor((k % columns) / block);
    for (const [first, length, cta] of tensor.runs || [])
      for (let k = first; k < first + length; ++k) {
        const p = pixel(k);
        if (!writer[p]) writer[p] = cta + 1;
      }
    for (const [bit, runs] of [[1, tensor.several || []], [2, tensor.raced || []]])
      for (const [first, length] of runs)
        for (let k = first; k < first + length; ++k) flags[pixel(k)] |= bit;
    const canvas = $("writes-canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d");
    const image = context.createImageData(width, height);
    for (let p = 0; p < width * height; ++p) {
      let c = writer[p] ? ctaColour(writer[p] - 1) : kNotWritten;
      if (flags[p] & 2) c = kRaced;
      else if (flags[p] & 1) c = kSeveral;
      const dim = pickedCta >= 0 && writer[p] !== pickedCta + 1;
      image.data.set([c[0], c[1], c[2], dim ? 60 : 255], p * 4);
    }
    context.putImageData(image, 0, 0);
    const box = canvas.parentElement.clientWidth || 800;
    const scale = Math.max(1, Math.min(22, Math.floor((box - 16) / width)));
    canvas.style.width = width * scale + "px";
    canvas.style.height = height * scale + "px";
    writesView = { tensor, columns, block, width, height, writer, flags, scale };
    const legend = $("writes-legend");
    legend.replaceChildren();
    const swatch = (colour, text) => {
      const item = element("span", "");
      const mark = element("span", "swatch");
      mark.style.background = "rgb(" + colour.join(",") + ")";
      item.append(mark, text);
      legend.append(item);
    };
    const ctas = new Set((tensor.runs || []).map((run) => run[2]));
    [...ctas].slice(0, 8).forEach((cta) => swatch(ctaColour(cta), ctaName(cta)));
    if (ctas.size > 8) legend.append(element("span", "muted", "... (a colour per CTA)"));
    swatch(kRaced, "raced");
    swatch(kSeveral, "written by several CTAs");
    swatch(kNotWritten, "not written");
    legend.append(element("span", "muted", tensor.name + ": " + tensor.shape.join("x") + "x" + tensor.element +
      (block > 1 ? ", a pixel per " + block + "x" + block + " block" : "") + "; " + tensor.written + " elements written by " +
      tensor.ctas + " CTA" + (tensor.ctas === 1 ? "" : "s") + (tensor.omitted ? "; not drawn: " + tensor.omitted : "")));
    const race = (writes.races || []).find((r) => r.tensor === index);
    if (link && race && race.second.src) selectSourceLine(race.second.src, false);
    return performance.now() - start;
  }

  function writesElementAt(event) {
    const view = writesView;
    if (!view) return null;
    const rect = $("writes-canvas").getBoundingClientRect();
    const x = Math.floor((event.clientX - rect.left) / view.scale), y = Math.floor((event.clientY - rect.top) / view.scale);
    if (x < 0 || x >= view.width || y < 0 || y >= view.height) return null;
    return { pixel: y * view.width + x, flat: (y * view.block) * view.columns + x * view.block };
  }

  function wireWrites() {
    $("writes-canvas").addEventListener("mousemove", (event) => {
      const at = writesElementAt(event);
      if (!at) return;
      const view = writesView;
      const coords = view.tensor.shape.length === 1 ? [at.flat] : coordsOf(view.tensor.shape, at.flat);
      const writer = view.writer[at.pixel], flags = view.flags[at.pixel];
      $("writes-hover").textContent = view.tensor.name + "[" + coords.join(", ") + "]" + (view.block > 1 ? " (block)" : "") + ": " +
        (writer ? "written by " + ctaName(writer - 1) : "not written") + (flags & 1 ? ", by several CTAs" : "") + (flags & 2 ? ", raced" : "");
    });
    $("writes-canvas").addEventListener("click", (event) => {
      const at = writesElementAt(event);
      if (!at) return;
      const writer = writesView.writer[at.pixel];
      pickedCta = writer && pickedCta !== writer - 1 ? writer - 1 : -1;
      showWrites(shownWrites, false);
    });
  }

  // ---- Autotuning panel -----------------------------------------------------

  const tuning = data.tuning || { note: "no autotuning data in this page" };

  function variantLabel(report, variant) {
    const names = (report.variant_order || []).filter((name) => name in variant);
    for (const name of Object.keys(variant).sort()) if (!names.includes(name)) names.push(name);
    return names.map((name) => name + "=" + variant[name]).join(",") || "-";
  }

  /// Whether `variant` is the one this page shows.
  function isShownVariant(variant) {
    return data.variant.length > 0 && data.variant.every(([name, value]) => variant[name] === value);
  }

  function svgElement(tag, attributes, text) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /// Draws the panel; returns the milliseconds it took.
  function showTuning() {
    const start = performance.now();
    const report = tuning.report;
    if (!report) {
      $("tuning-info").textContent = (tuning.note || "no search") + ".";
      return performance.now() - start;
    }
    const variants = report.variants || [];
    const timed = variants.filter((v) => v.status === "ok" && typeof v.time_ms === "number")
      .sort((a, b) => a.time_ms - b.time_ms);
    const counts = {};
    for (const v of variants) counts[v.status] = (counts[v.status] || 0) + 1;
    const from = tuning.from === "cache"
      ? "the tuning cache's record (" + tuning.record.chip + (tuning.record.general ? ", general kernels" : "") + ": " + tuning.record.path + ")"
      : "a report file";
    $("tuning-info").textContent = "phobos-tune's search of " + report.kernel + " on " + report.device + ", " +
      (Object.entries(report.dims || {}).map(([n, v]) => n + "=" + v).join(", ") || "no dims") + ", " + (report.date || "undated") +
      ", from " + from + ": " + variants.length + " variants, " + Object.entries(counts).map(([k, n]) => n + " " + k).join(", ") +
      "; checked with " + (report.checked_with || "?") + "; " + (report.wall_s || 0).toFixed(1) + " s.";

    // The plot: one bar per timed variant, fastest first.
    const plot = $("tuning-plot");
    plot.replaceChildren();
    if (timed.length) {
      const labels = timed.map((v) => variantLabel(report, v.variant));
      const labelWidth = Math.min(360, 8 + 7 * Math.max(...labels.map((l) => l.length)));
      const barWidth = 420, row = 18, slowest = timed[timed.length - 1].time_ms || 1;
      const svg = svgElement("svg", { width: labelWidth + barWidth + 170, height: timed.length * row + 6, role: "img",
        "aria-label": "time of each timed variant" });
      timed.forEach((v, k) => {
        const y = 3 + k * row, width = Math.max(1, barWidth * v.time_ms / slowest);
        const best = report.best_variant && variantLabel(report, report.best_variant) === labels[k];
        svg.append(svgElement("text", { x: labelWidth - 6, y: y + 12, "text-anchor": "end" }, labels[k]));
        const bar = svgElement("rect", { x: labelWidth, y: y + 2, width, height: row - 5,
          fill: best ? "#2e9d4a" : "#7c9cc9", class: "tuning-bar" });
        if (isShownVariant(v.variant)) { bar.setAttribute("stroke", "#1d1f21"); bar.setAttribute("stroke-width", "1.5"); }
        svg.append(bar);
        svg.append(svgElement("text", { x: labelWidth + width + 6, y: y + 12 },
          v.time_ms.toPrecision(4) + " ms" + (typeof v.ratio_to_best === "number" ? "  " + v.ratio_to_best.toFixed(2) + "x" : "")));
      });
      plot.append(svg);
    }

    // The table: every variant, timed ones first, then the dropped.
    const table = element("table");
    const head = element("tr");
    for (const title of ["variant", "status", "time (ms)", "vs best", "max rel err", "compile (ms)", "regs", "spill (B)", "smem (KiB)", "reason"])
      head.append(element("th", "", title));
    table.append(head);
    const dropped = variants.filter((v) => !timed.includes(v));
    const number = (value, digits) => typeof value === "number" && value >= 0 ? value.toFixed(digits) : "-";
    for (const v of timed.concat(dropped)) {
      const best = report.best_variant && variantLabel(report, report.best_variant) === variantLabel(report, v.variant);
      const tr = element("tr", (best ? "best" : v.status === "ok" ? "" : "dropped") + (isShownVariant(v.variant) ? " shown" : ""));
      const compile = v.compile_ms && typeof v.compile_ms.total === "number" ? v.compile_ms.total.toFixed(0) : "-";
      for (const cell of [variantLabel(report, v.variant), best ? "best" : v.status, number(v.time_ms, 4), number(v.ratio_to_best, 2) + (typeof v.ratio_to_best === "number" ? "x" : ""),
        typeof v.max_rel_err === "number" ? v.max_rel_err.toExponential(1) : "-", compile,
        v.registers >= 0 ? String(v.registers) : "-", v.spill_bytes >= 0 ? String(v.spill_bytes) : "-",
        v.shared_bytes >= 0 ? (v.shared_bytes / 1024).toFixed(1) : "-", (isShownVariant(v.variant) ? "(this page's variant) " : "") + (v.reason || "")])
        tr.append(element("td", "", cell));
      table.append(tr);
    }
    $("tuning-table").replaceChildren(table);
    return performance.now() - start;
  }

  // ---- Cluster panel --------------------------------------------------------

  const cluster = data.cluster || { note: "no cluster plan in this page" };
  const kindColours = { allocate: "#c9c9c4", load: "#4f7fc4", fetch: "#2aa39a", compute: "#e08a2e", store: "#3f9a4a", free: "#e6e6e1" };
  const kindShort = { allocate: "al", load: "ld", fetch: "fe", compute: "co", store: "st", free: "fr" };
  let instructionNodes = new Map(); // id -> [svg groups]

  function formatBytes(bytes) {
    const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let value = bytes, unit = 0;
    while (value >= 1024 && unit < units.length - 1) { value /= 1024; ++unit; }
    return (unit ? value.toFixed(1) : String(value)) + " " + units[unit];
  }

  function describeInstruction(instruction) {
    return "node " + instruction.node + " #" + instruction.id + ": " + (instruction.label || instruction.kind) + ", " +
      formatBytes(instruction.bytes) + (instruction.kind === "fetch" ? " from node " + instruction.from : "") +
      (instruction.deps.length ? "; after #" + instruction.deps.join(", #") : "") + "; level " + instruction.level;
  }

  function instructionBox(instruction, x, y, width, height) {
    const group = svgElement("g", { class: "instr", "data-id": instruction.id });
    group.append(svgElement("title", {}, describeInstruction(instruction)));
    group.append(svgElement("rect", { x, y, width, height, rx: 2, fill: kindColours[instruction.kind] || "#999" }));
    group.addEventListener("mouseenter", () => { $("cluster-hover").textContent = describeInstruction(instruction); });
    group.addEventListener("click", () => markInstruction(instruction.id));
    if (!instructionNodes.has(instruction.id)) instructionNodes.set(instruction.id, []);
    instructionNodes.get(instruction.id).push(group);
    return group;
  }

  /// Marks instruction `id` and those it depends on (a fetch: its source too).
  function markInstruction(id) {
    for (const groups of instructionNodes.values()) for (const g of groups) g.classList.remove("marked");
    const byId = new Map(cluster.instructions.map((i) => [i.id, i]));
    const instruction = byId.get(id);
    if (!instruction) return 0;
    const marked = [id].concat(instruction.deps, instruction.source !== undefined ? [instruction.source] : []);
    for (const m of marked) for (const g of instructionNodes.get(m) || []) g.classList.add("marked");
    $("cluster-hover").textContent = describeInstruction(instruction);
    return marked.length;
  }

  /// The cluster program's IR, or why there is none.
  function showClusterProgram() {
    const listing = $("cluster-program");
    const program = cluster.program_ir;
    if (!program) {
      listing.replaceChildren(element("div", "muted", "(not an @cluster kernel)"));
      return 0;
    }
    if (!program.lines) {
      listing.replaceChildren(element("div", "muted", program.note + "."));
      return 0;
    }
    const fragment = document.createDocumentFragment();
    program.lines.forEach((text, index) => {
      const row = element("div", "cluster-line");
      row.append(element("span", "no", String(index + 1)), element("span", "text", text));
      fragment.append(row);
    });
    listing.replaceChildren(fragment);
    return program.lines.length;
  }

  /// The run's measured timeline (the summary's per-node rows of [segment,
  /// instruction, start, end]) beside the plan: a lane per node with a row
  /// for computes, one for fetches and one for the rest, time across. The
  /// plan's instructions (segment 0) are drawn as in the plan (hover and
  /// click); a re-planned segment's grey. Each pod's times count from when
  /// it took the job.
  function showMeasuredTimeline(byId, laneLabel) {
    const target = $("cluster-measured");
    const summary = cluster.summary;
    const rows = summary ? summary.nodes.map((n) => n.timeline || []) : [];
    if (!rows.some((r) => r.length)) {
      target.replaceChildren(element("div", "muted", summary
        ? "(the summary has no timeline: a scheduler older than the measured timeline wrote it)"
        : "(no run: give the scheduler's --summary-json with --cluster-summary)"));
      return 0;
    }
    const end = Math.max(1e-9, ...rows.map((r) => Math.max(0, ...r.map((row) => row[3]))));
    // As wide as the panel shows without scrolling.
    const width = Math.max(300, (target.clientWidth || 1000) - laneLabel - 80), sub = 9, lane = 3 * sub + 8;
    const scale = width / end;
    const svg = svgElement("svg", { width: laneLabel + width + 60, height: rows.length * lane + 18, role: "img",
      "aria-label": "the measured timeline" });
    const rowOf = (kind) => kind === "compute" ? 0 : kind === "fetch" ? 1 : 2;
    let drawn = 0;
    summary.nodes.forEach((node, n) => {
      const top = n * lane + 2;
      svg.append(svgElement("rect", { x: 0, y: top - 2, width: laneLabel + width + 60, height: lane,
        fill: n % 2 ? "#f4f4f1" : "#fbfbfa" }));
      svg.append(svgElement("text", { x: 4, y: top + 15 }, "node " + (node.node ?? n)));
      for (const [segment, id, begin, finish] of node.timeline || []) {
        const planned = segment === 0 ? byId.get(id) : undefined;
        const x = laneLabel + begin * scale, w = Math.max(1, (finish - begin) * scale);
        if (planned && planned.node === (node.node ?? n)) {
          const group = instructionBox(planned, x, top + rowOf(planned.kind) * sub, w, sub - 1);
          group.classList.add("measured");
          group.querySelector("title").textContent += "; ran " + (begin * 1e3).toFixed(2) + " to " +
            (finish * 1e3).toFixed(2) + " ms";
          svg.append(group);
        } else {
          const bar = svgElement("rect", { x, y: top + 2 * sub, width: w, height: sub - 1, fill: "#bbb" });
          bar.append(svgElement("title", {}, "segment " + segment + " #" + id + ": " + (begin * 1e3).toFixed(2) +
            " to " + (finish * 1e3).toFixed(2) + " ms"));
          svg.append(bar);
        }
        ++drawn;
      }
    });
    const axis = rows.length * lane + 14;
    svg.append(svgElement("text", { x: laneLabel, y: axis }, "0"));
    svg.append(svgElement("text", { x: laneLabel + width - 40, y: axis }, (end * 1e3).toFixed(1) + " ms"));
    target.replaceChildren(svg);
    return drawn;
  }

  /// Draws the panel; returns the milliseconds it took.
  function showCluster() {
    const start = performance.now();
    showClusterProgram();
    if (!cluster.instructions) {
      $("cluster-info").textContent = (cluster.note || "no plan") + ".";
      return performance.now() - start;
    }
    instructionNodes = new Map();
    const instructions = cluster.instructions, nodes = cluster.nodes;
    const byId = new Map(instructions.map((i) => [i.id, i]));
    const moved = cluster.links.reduce((sum, link) => sum + link.bytes, 0);
    $("cluster-info").textContent = "Job " + (cluster.job || "?") + ": program " + cluster.program + " on " + nodes + " node" +
      (nodes === 1 ? "" : "s") + "; dims " + Object.entries(cluster.dims || {}).map(([n, v]) => n + "=" + v).join(", ") +
      "; @cluster " + Object.entries(cluster.bindings || {}).map(([n, v]) => n + "=" + v).join(", ") + "; " +
      instructions.length + " instructions in " + cluster.levels + " levels; " + formatBytes(moved) + " between nodes.";
    const legend = $("cluster-legend");
    legend.replaceChildren();
    for (const [kind, colour] of Object.entries(kindColours)) {
      const item = element("span", "");
      const mark = element("span", "swatch");
      mark.style.background = colour;
      item.append(mark, kind);
      legend.append(item);
    }

    // The DAG: per node a lane, per level a column, the instructions of one
    // (node, level) stacked; dependencies as lines, fetches across lanes.
    const box = 14, gap = 4, column = 110, laneLabel = 64;
    const stacks = new Map(); // "node,level" -> count
    const place = new Map(); // id -> [x, y]
    const laneDepth = new Array(nodes).fill(1);
    for (const i of instructions) {
      const key = i.node + "," + i.level;
      const k = stacks.get(key) || 0;
      stacks.set(key, k + 1);
      laneDepth[i.node] = Math.max(laneDepth[i.node], k + 1);
    }
    const laneTop = [];
    let top = 4;
    for (let n = 0; n < nodes; ++n) { laneTop.push(top); top += laneDepth[n] * (box + gap) + 12; }
    const dag = svgElement("svg", { width: laneLabel + cluster.levels * column + 20, height: top, role: "img", "aria-label": "the plan's DAG" });
    for (let n = 0; n < nodes; ++n) {
      dag.append(svgElement("rect", { x: 0, y: laneTop[n] - 4, width: laneLabel + cluster.levels * column + 20,
        height: laneDepth[n] * (box + gap) + 8, fill: n % 2 ? "#f4f4f1" : "#fbfbfa" }));
      dag.append(svgElement("text", { x: 4, y: laneTop[n] + 11 }, "node " + n));
    }
    stacks.clear();
    for (const i of instructions) {
      const key = i.node + "," + i.level;
      const k = stacks.get(key) || 0;
      stacks.set(key, k + 1);
      place.set(i.id, [laneLabel + i.level * column, laneTop[i.node] + k * (box + gap)]);
    }
    const edges = svgElement("g", {});
    for (const i of instructions) {
      const [x, y] = place.get(i.id);
      const before = i.deps.map((d) => [d, "#9a9a95"]).concat(i.source !== undefined ? [[i.source, "#c0392b"]] : []);
      for (const [d, colour] of before) {
        const from = place.get(d);
        if (!from) continue;
        edges.append(svgElement("line", { x1: from[0] + column - 30, y1: from[1] + box / 2, x2: x, y2: y + box / 2,
          stroke: colour, "stroke-width": colour === "#c0392b" ? 1.4 : 0.7 }));
      }
    }
    dag.append(edges);
    for (const i of instructions) {
      const [x, y] = place.get(i.id);
      const group = instructionBox(i, x, y, column - 30, box);
      const tile = ((i.label || "").match(/\w+\[[^\]]*\]/) || [i.leaf || ""])[0].replace(/ /g, "");
      group.append(svgElement("text", { x: x + 2, y: y + 10.5 }, (kindShort[i.kind] + " " + tile).slice(0, 13)));
      dag.append(group);
    }
    $("cluster-dag").replaceChildren(dag);

    // Each node's instructions in the order their dependencies allow.
    const perNode = Array.from({ length: nodes }, () => []);
    for (const i of instructions) perNode[i.node].push(i);
    for (const list of perNode) list.sort((a, b) => a.level - b.level || a.id - b.id);
    const longest = Math.max(1, ...perNode.map((l) => l.length));
    const step = Math.max(3, Math.min(14, Math.floor(900 / longest)));
    const timeline = svgElement("svg", { width: laneLabel + longest * step + 20, height: nodes * 22 + 4, role: "img",
      "aria-label": "each node's instructions in order" });
    perNode.forEach((list, n) => {
      timeline.append(svgElement("text", { x: 4, y: n * 22 + 15 }, "node " + n));
      list.forEach((i, k) => timeline.append(instructionBox(i, laneLabel + k * step, n * 22 + 4, Math.max(2, step - 1), 16)));
    });
    $("cluster-timeline").replaceChildren(timeline);
    showMeasuredTimeline(byId, laneLabel);

    // Tables: each node's totals (and what the run measured), each link.
    const tables = $("cluster-tables");
    tables.replaceChildren();
    const table = (caption, headers, rows) => {
      const t = element("table");
      t.append(element("caption", "", caption));
      const head = element("tr");
      for (const h of headers) head.append(element("th", "", h));
      t.append(head);
      for (const row of rows) {
        const tr = element("tr");
        for (const cell of row) tr.append(element("td", "", String(cell)));
        t.append(tr);
      }
      tables.append(t);
    };
    table("Each node's plan", ["node", "instructions", "computes", "loaded", "fetched", "served", "stored", "peak"],
      cluster.node_totals.map((t) => [t.node, t.instructions, t.computes, formatBytes(t.loaded), formatBytes(t.fetched),
        formatBytes(t.served), formatBytes(t.stored), formatBytes(t.peak_bytes)]));
    table("Bytes per link (fetches, holder to reader)", ["from", "to", "bytes"],
      cluster.links.map((l) => [l.from, l.to, formatBytes(l.bytes)]));
    if (cluster.summary) {
      const summary = cluster.summary;
      table("Measured (the scheduler's summary: " + summary.seconds.toFixed(3) + " s)",
        ["node", "state", "units", "computes", "busy (s)", "loaded", "fetched", "served", "stored"],
        summary.nodes.map((n) => [n.node, n.state || "", n.units ?? "", n.computes ?? "",
          typeof n.busy_seconds === "number" ? n.busy_seconds.toFixed(3) : "", formatBytes(n.loaded_bytes || 0),
          formatBytes(n.fetched_bytes || 0), formatBytes(n.served_bytes || 0), formatBytes(n.stored_bytes || 0)]));
    }
    return performance.now() - start;
  }

  // ---- Start ---------------------------------------------------------------

  function start() {
    showSummary();
    showSource();
    showPassList();
    wirePasses();
    for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.panel));
    selectPass(0);
    showLayoutList();
    wireLayouts();
    showShared();
    showTrafficList();
    wireTraffic();
    showWritesList();
    wireWrites();
    showTuning();
    // The cluster panel draws on first view: its lanes need the page laid out.
    let clusterShown = false;
    document.querySelector('.tab[data-panel="panel-cluster"]').addEventListener("click", () => {
      if (!clusterShown) showCluster();
      clusterShown = true;
    });
    if (!cluster.instructions) showCluster();
    // The layout panel draws on first view: the canvas needs its width.
    let layoutsShown = false;
    document.querySelector('.tab[data-panel="panel-layouts"]').addEventListener("click", () => {
      if (!layoutsShown && layoutValues.length) showLayout(shownLayout >= 0 ? shownLayout : 0);
      layoutsShown = true;
    });
    if (layoutValues.length) showLayout(0, false);
    let writesShown = false;
    document.querySelector('.tab[data-panel="panel-writes"]').addEventListener("click", () => {
      if (!writesShown && writesTensors.length) showWrites(shownWrites >= 0 ? shownWrites : 0);
      writesShown = true;
    });
    let trafficShown = false;
    document.querySelector('.tab[data-panel="panel-traffic"]').addEventListener("click", () => {
      if (!trafficShown && (traffic.accesses || []).length) showTraffic(shownTraffic >= 0 ? shownTraffic : 0);
      trafficShown = true;
    });
  }

  window.phobosViz = {
    data,
    selectPass,
    selectIrLine,
    selectSourceLine: (line) => selectSourceLine(line, true),
    showLayout,
    showTraffic,
    showWrites,
    selectRace,
    showTuning,
    showCluster,
    markInstruction,
    showTab,
    selectedSourceLine: () => selectedSource,
    lastRenderMs: () => lastRenderMs,
  };
  start();
})();
