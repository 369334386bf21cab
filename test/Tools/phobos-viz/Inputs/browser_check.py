"""Opens phobos-viz pages in headless Chromium (through chromedriver and
Selenium) and checks what a user sees: every panel drawn, no error in the
browser's console, a click on an op's IR line highlighting its source line
(and a click on a source line its IR lines), the changes of a pass, a tile's
layout drawn in under a second, the shared buffers with their conflict
tables and bank grids, one CTA's memory traffic (masked elements drawn
apart, a cell each), the whole grid's writes with
the race check's races, the autotuner's search, a cluster job's plan and a
run's measured timeline.
Prints one fact a line for FileCheck and saves a
screenshot of each panel.

Usage: python3 browser_check.py --screenshots DIR PAGE:SOURCE_LINE:OP ...
  SOURCE_LINE:OP  an op (its name as printed, "phobos.dot") whose first IR
                  line in the pass tile-assign-layouts must link to SOURCE_LINE.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def browser(profile: str) -> webdriver.Chrome:
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,900", "--user-data-dir=" + profile):
        options.add_argument(argument)
    options.binary_location = os.environ.get("PHOBOS_CHROMIUM", "/usr/bin/chromium")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver_path = os.environ.get("PHOBOS_CHROMEDRIVER", "/usr/bin/chromedriver")
    return webdriver.Chrome(service=Service(driver_path), options=options)


def console_errors(driver: webdriver.Chrome) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def check(condition: bool, message: str) -> None:
    if not condition:
        print("FAILED: " + message)
        sys.exit(1)


def count(driver: webdriver.Chrome, selector: str) -> int:
    return len(driver.find_elements(By.CSS_SELECTOR, selector))


def drawn(driver: webdriver.Chrome, canvas: str) -> bool:
    """Whether the canvas has a size and a painted pixel at its centre."""
    return driver.execute_script(
        "const c = arguments[0]; if (!c.width || !c.height) return false;"
        "const p = c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data;"
        "return p[3] > 0;", driver.find_element(By.CSS_SELECTOR, canvas))


def check_page(driver: webdriver.Chrome, page: str, line: int, op: str, shots: str) -> None:
    name = os.path.basename(page).rsplit(".", 1)[0]
    start = time.monotonic()
    driver.get("file://" + os.path.abspath(page))
    data = driver.execute_script("return window.phobosViz && window.phobosViz.data")
    check(data is not None, f"{name}: the page's script did not start")
    print(f"{name}: loaded in {time.monotonic() - start:.1f} s, kernel {data['kernel']}")
    check(not console_errors(driver), f"{name}: console errors on load: {console_errors(driver)}")

    # Every panel is there and drawn from the data.
    for panel in ("panel-code", "panel-passes", "panel-layouts", "panel-shared"):
        check(count(driver, "#" + panel) == 1, f"{name}: no #{panel}")
    source = data["source"]
    shown = len(source["lines"]) - len(source["hidden"])
    check(count(driver, "#code .src-line") == shown, f"{name}: source lines drawn")
    check(count(driver, "#pass-list .pass-item") == len(data["passes"]), f"{name}: passes listed")
    check(count(driver, "#ir .ir-line") == data["passes"][0]["lines"], f"{name}: first IR drawn")
    print(f"{name}: panels code ({shown} lines), passes ({len(data['passes'])}), layouts, shared")

    # A click on the op's IR line highlights its source line.
    pass_index = next(i for i, p in enumerate(data["passes"]) if p["pass"] == "tile-assign-layouts")
    driver.find_element(By.CSS_SELECTOR, f'.pass-item[data-index="{pass_index}"]').click()
    rows = [row for row in driver.find_elements(By.CSS_SELECTOR, "#ir .ir-line")
            if f" {op} " in row.text or row.text.split("=", 1)[-1].strip().startswith(op)]
    check(bool(rows), f"{name}: no IR line of {op}")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", rows[0])
    rows[0].click()
    selected = driver.find_elements(By.CSS_SELECTOR, "#code .src-line.selected")
    check(len(selected) == 1, f"{name}: {len(selected)} source lines highlighted")
    check("selected" in rows[0].get_attribute("class"), f"{name}: the IR line is not selected")
    highlighted = int(selected[0].get_attribute("data-line"))
    print(f"{name}: clicked {op} (IR line {rows[0].get_attribute('data-line')}): "
          f"source line {highlighted} highlighted")
    check(highlighted == line, f"{name}: expected source line {line}")
    # And a click on the source line marks its IR lines.
    selected[0].click()
    linked = count(driver, "#ir .ir-line.linked")
    check(linked > 0, f"{name}: no IR line linked to source line {line}")
    print(f"{name}: clicked source line {line}: {linked} IR lines marked")
    driver.save_screenshot(os.path.join(shots, f"{name}-passes.png"))

    # A pass's changes: tile-allocate-shared rewrites a line in every kernel.
    changed = next(i for i, p in enumerate(data["passes"]) if p["pass"] == "tile-allocate-shared")
    driver.find_element(By.ID, "diff-toggle").click()
    driver.find_element(By.CSS_SELECTOR, f'.pass-item[data-index="{changed}"]').click()
    added, removed = count(driver, "#ir .ir-line.added"), count(driver, "#ir .ir-line.removed")
    check(added == data["passes"][changed]["added"] and removed == data["passes"][changed]["removed"],
          f"{name}: diff of tile-allocate-shared drawn as +{added} -{removed}")
    print(f"{name}: changes of tile-allocate-shared: +{added} -{removed}")
    driver.find_element(By.ID, "diff-toggle").click()
    # A pass past --max-ir-lines is shown by its counts.
    omitted = [i for i, p in enumerate(data["passes"]) if p.get("omitted")]
    if omitted:
        driver.find_element(By.CSS_SELECTOR, f'.pass-item[data-index="{omitted[0]}"]').click()
        check(count(driver, "#ir .ir-line.skip") == 1 and count(driver, "#ir .ir-line") == 1,
              f"{name}: an omitted pass is not shown by its counts")
        print(f"{name}: {len(omitted)} passes omitted (--max-ir-lines), one shown by its counts")

    # The layouts: the largest tile the page draws, timed.
    driver.find_element(By.CSS_SELECTOR, '.tab[data-panel="panel-layouts"]').click()
    layouts = data["layouts"]
    sizes = [len(layouts["layouts"][v["layout"]].get("thread", [])) for v in layouts["values"]]
    check(bool(sizes), f"{name}: no tile value")
    biggest = max(range(len(sizes)), key=lambda i: sizes[i])
    milliseconds = driver.execute_script(
        "const t = performance.now(); phobosViz.showLayout(arguments[0]);"
        "return performance.now() - t;", biggest)
    check(drawn(driver, "#layout-canvas"), f"{name}: the layout is not drawn")
    check(milliseconds < 1000, f"{name}: the layout took {milliseconds:.0f} ms")
    print(f"{name}: layout of {sizes[biggest]} elements drawn in {milliseconds:.0f} ms, under a second")
    driver.save_screenshot(os.path.join(shots, f"{name}-layouts.png"))

    # Shared memory: a card per buffer, its conflict table and bank grid.
    driver.find_element(By.CSS_SELECTOR, '.tab[data-panel="panel-shared"]').click()
    buffers = data["shared"]["buffers"]
    check(count(driver, "#shared-list .buffer") == len(buffers), f"{name}: buffers drawn")
    if buffers:
        time.sleep(0.2)  # the grids are drawn on the next animation frame
        check(count(driver, "#shared-list table.conflicts tr.chosen") ==
              sum(1 for b in buffers if b.get("conflicts", {}).get("layouts")),
              f"{name}: conflict tables")
        check(drawn(driver, "#shared-list .bank-canvas"), f"{name}: no bank grid drawn")
    print(f"{name}: {len(buffers)} shared buffers drawn")
    driver.save_screenshot(os.path.join(shots, f"{name}-shared.png"))

    # Memory traffic: the first access drawn over its tensor.
    driver.find_element(By.CSS_SELECTOR, '.tab[data-panel="panel-traffic"]').click()
    accesses = data["traffic"].get("accesses", [])
    check(bool(accesses), f"{name}: no traced access ({data['traffic'].get('note')})")
    check(count(driver, "#traffic-select option") == len(accesses), f"{name}: accesses listed")
    check(drawn(driver, "#traffic-canvas"), f"{name}: the traffic is not drawn")
    tensor = data["traffic"]["tensors"][accesses[0]["tensor"]]
    print(f"{name}: traffic of CTA {data['traffic']['cta']}: {len(accesses)} accesses, "
          f"{accesses[0]['op']} {accesses[0]['kind']} {tensor['name']} drawn")
    # An access with masked elements: they are drawn apart, a cell each in
    # their own colour (the legend's), around the tensor.
    masked = next((i for i, a in enumerate(accesses) if a.get("masked_runs")), None)
    if masked is not None:
        access = accesses[masked]
        milliseconds = driver.execute_script("return phobosViz.showTraffic(arguments[0]);", masked)
        check(milliseconds < 1000, f"{name}: the traffic took {milliseconds:.0f} ms")
        legend = driver.find_element(By.ID, "traffic-legend").text
        check("masked (outside" in legend, f"{name}: no legend entry for the masked elements: {legend}")
        swatches = driver.execute_script(
            "return [...document.querySelectorAll('#traffic-legend .swatch')].map(s => s.style.background);")
        cells = driver.execute_script(
            "const c = arguments[0], d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            "const rgb = arguments[1].match(/\\d+/g).map(Number); let n = 0;"
            "for (let p = 0; p < d.length; p += 4) if (d[p] === rgb[0] && d[p + 1] === rgb[1] && d[p + 2] === rgb[2]) ++n;"
            "return [n, c.width * c.height];", driver.find_element(By.ID, "traffic-canvas"), swatches[1])
        box = access["box"]["shape"]
        check(cells[0] == access["masked_elements"],
              f"{name}: {cells[0]} masked cells drawn, {access['masked_elements']} expected")
        tensor = data["traffic"]["tensors"][access["tensor"]]
        print(f"{name}: {access['op']} {access['kind']} {tensor['name']}: {cells[0]} masked cells drawn apart "
              f"in a box of {'x'.join(map(str, box))} ({cells[1]} cells)")
    driver.save_screenshot(os.path.join(shots, f"{name}-traffic.png"))

    # Grid writes: the first written tensor drawn, the races listed; a click
    # on a race highlights the source line of its later access.
    driver.find_element(By.CSS_SELECTOR, '.tab[data-panel="panel-writes"]').click()
    writes = data["writes"]
    tensors, races = writes.get("tensors", []), writes.get("races", [])
    check(bool(tensors), f"{name}: no written tensor in the grid view ({writes.get('note')})")
    check(count(driver, "#writes-select option") == len(tensors), f"{name}: written tensors listed")
    check(drawn(driver, "#writes-canvas"), f"{name}: the grid writes are not drawn")
    check(count(driver, "#writes-races .race") == len(races), f"{name}: races listed")
    milliseconds = driver.execute_script(
        "return phobosViz.showWrites(arguments[0]);", max(range(len(tensors)),
                                                          key=lambda i: tensors[i]["written"]))
    check(milliseconds < 1000, f"{name}: the grid writes took {milliseconds:.0f} ms")
    print(f"{name}: grid writes of {tensors[0]['name']} by {tensors[0]['ctas']} CTAs of "
          f"{writes['grid']} drawn, {len(races)} races listed")
    if races:
        driver.find_element(By.CSS_SELECTOR, "#writes-races .race").click()
        selected = driver.find_elements(By.CSS_SELECTOR, "#code .src-line.selected")
        check(len(selected) == 1 and int(selected[0].get_attribute("data-line")) == races[0]["second"]["src"],
              f"{name}: the race's source line is not highlighted")
        print(f"{name}: clicked the first race: source line {races[0]['second']['src']} highlighted")
    driver.save_screenshot(os.path.join(shots, f"{name}-writes.png"))

    # Autotuning: a bar per timed variant, a row per variant; or the note.
    driver.find_element(By.CSS_SELECTOR, '.tab[data-panel="panel-tuning"]').click()
    report = data["tuning"].get("report")
    if report:
        timed = sum(1 for v in report["variants"] if v["status"] == "ok")
        check(count(driver, "#tuning-plot rect.tuning-bar") == timed, f"{name}: tuning bars")
        check(count(driver, "#tuning-table tr") == len(report["variants"]) + 1, f"{name}: tuning rows")
        check(count(driver, "#tuning-table tr.best") == (1 if report["best"] >= 0 else 0),
              f"{name}: the best row")
        shown = count(driver, "#tuning-table tr.shown")
        print(f"{name}: autotuning: {timed} bars, {len(report['variants'])} rows, "
              f"{shown} of them this page's variant")
        driver.save_screenshot(os.path.join(shots, f"{name}-tuning.png"))
    else:
        info = driver.find_element(By.ID, "tuning-info").text
        check(info.startswith(data["tuning"]["note"]), f"{name}: the tuning note is not shown")
        print(f"{name}: autotuning: the note is shown")
    # Cluster: the plan's DAG and per-node order drawn (in under a second),
    # a click on a fetch marking it and what it waits for; or the note.
    driver.find_element(By.CSS_SELECTOR, '.tab[data-panel="panel-cluster"]').click()
    cluster = data["cluster"]
    if "instructions" in cluster:
        milliseconds = driver.execute_script("return phobosViz.showCluster();")
        check(milliseconds < 1000, f"{name}: the cluster plan took {milliseconds:.0f} ms")
        drawn_boxes = count(driver, "#cluster-dag g.instr") + count(driver, "#cluster-timeline g.instr")
        check(drawn_boxes == 2 * len(cluster["instructions"]), f"{name}: {drawn_boxes} instruction boxes")
        fetch = next((i for i in cluster["instructions"] if i["kind"] == "fetch"), cluster["instructions"][-1])
        box = driver.find_element(By.CSS_SELECTOR, f'#cluster-dag g.instr[data-id="{fetch["id"]}"]')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
        box.click()
        marked = count(driver, "#cluster-dag g.instr.marked")
        expected = 1 + len(fetch["deps"]) + (1 if "source" in fetch else 0)
        check(marked == expected, f"{name}: {marked} instructions marked, {expected} expected")
        tables = count(driver, "#cluster-tables table")
        program = cluster.get("program_ir", {})
        check(count(driver, "#cluster-program .cluster-line") == len(program.get("lines", [])),
              f"{name}: the cluster program's lines")
        print(f"{name}: cluster plan of {len(cluster['instructions'])} instructions on {cluster['nodes']} nodes "
              f"drawn in under a second; a {fetch['kind']} clicked: {marked} marked; {tables} tables; "
              f"the cluster program in {len(program.get('lines', []))} lines")
        if "summary" in cluster:
            measured = count(driver, "#cluster-measured g.instr")
            check(measured == cluster["summary"]["measured_instructions"],
                  f"{name}: {measured} measured instructions drawn")
            marked_measured = count(driver, "#cluster-measured g.instr.marked")
            print(f"{name}: measured timeline: {measured} instructions of {len(cluster['summary']['nodes'])} nodes "
                  f"drawn; {marked_measured} of them marked by the click")
        driver.save_screenshot(os.path.join(shots, f"{name}-cluster.png"))
        if "summary" in cluster:
            driver.execute_script("document.getElementById('cluster-timeline').scrollIntoView({block: 'start'})")
            driver.save_screenshot(os.path.join(shots, f"{name}-measured.png"))
    else:
        info = driver.find_element(By.ID, "cluster-info").text
        check(info.startswith(cluster["note"]), f"{name}: the cluster note is not shown")
        print(f"{name}: cluster: the note is shown")
    errors = console_errors(driver)
    check(not errors, f"{name}: console errors: {errors}")
    print(f"{name}: no console errors")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.screenshots, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            for spec in args.pages:
                page, line, op = spec.rsplit(":", 2)
                check_page(driver, page, int(line), op, args.screenshots)
            # The console check sees errors: one thrown on purpose.
            driver.execute_script("setTimeout(function () { throw new Error('on purpose'); }, 0)")
            time.sleep(0.2)
            print(f"console check: {len(console_errors(driver))} error seen after one thrown")
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
