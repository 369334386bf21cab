"""Prints what a phobos-viz --json file holds, one fact a line, for FileCheck,
after checking its schema: every panel's fields, each pass's IR rebuilt from
its edits with as many lines (and source links) as it says, every layout
value's IR line defining that value, every element's owner inside the CTA.

Usage: python3 summarize.py DATA.json [--owner LAYOUT:I,J ...]
--owner prints the thread (warp.lane) and register of one element.
"""

from __future__ import annotations

import json
import sys


def fail(message: str) -> None:
    print(f"SCHEMA ERROR: {message}")
    sys.exit(1)


def need(obj: dict, keys: list[str], where: str) -> None:
    for key in keys:
        if key not in obj:
            fail(f"{where} has no '{key}'")


def summarize_masked(access: dict, tensor: dict) -> None:
    """The masked elements drawn apart: every one outside the tensor, inside
    the box, and the box the least that holds them and the tensor."""
    need(access, ["masked_elements", "box"], "a masked access")
    origin, extent = access["box"]["origin"], access["box"]["shape"]
    shape = tensor["shape"]
    box_elements = 1
    for size in extent:
        box_elements *= size
    runs = access["masked_runs"]
    if sum(length for _, length in runs) != access["masked_elements"]:
        fail(f"{access['op']}: masked runs do not add up to {access['masked_elements']}")
    if access["masked_elements"] > access["masked"]:
        fail(f"{access['op']}: more masked elements than masked accesses")
    lower, upper = [0] * len(shape), list(shape)
    for first, length in runs:
        if first < 0 or first + length > box_elements:
            fail(f"{access['op']}: a masked run outside the box")
        for position in range(first, first + length):
            index = []
            for size, at in zip(reversed(extent), reversed(origin)):
                index.insert(0, position % size + at)
                position //= size
            if all(0 <= i < n for i, n in zip(index, shape)):
                fail(f"{access['op']}: masked element {index} lies inside {tensor['name']}")
            lower = [min(a, b) for a, b in zip(lower, index)]
            upper = [max(a, b + 1) for a, b in zip(upper, index)]
    if lower != origin or [b - a for a, b in zip(lower, upper)] != extent:
        fail(f"{access['op']}: the box is not the least that holds the tensor and the masked elements")
    shown = ", ".join(f"{first}+{length}" for first, length in runs[:4]) + (", ..." if len(runs) > 4 else "")
    print(f"    masked apart: {access['masked_elements']} elements in the box from {origin} of "
          f"{'x'.join(map(str, extent))}, {len(runs)} runs ({shown})")


def rebuild(passes: list[dict]) -> list[list[str]]:
    """Each pass's IR, from the first text and the edits after it."""
    texts: list[list[str]] = []
    for index, stage in enumerate(passes):
        if stage.get("omitted"):
            texts.append(None)
            continue
        if "text" in stage:
            lines = list(stage["text"])
        elif texts[-1] is None:
            fail(f"pass {index}: edits of an omitted pass")
        elif not stage["changed"]:
            lines = texts[-1]
        else:
            before, lines, at = texts[-1], [], 0
            for kind, value in stage["edits"]:
                if kind == "=":
                    lines += before[at:at + value]
                    at += value
                elif kind == "-":
                    at += value
                elif kind == "+":
                    lines += value
                else:
                    fail(f"pass {index}: edit kind {kind!r}")
            if at != len(before):
                fail(f"pass {index}: the edits read {at} of {len(before)} lines")
        if len(lines) != stage["lines"]:
            fail(f"pass {index}: {len(lines)} lines rebuilt, {stage['lines']} said")
        texts.append(lines)
    return texts


def main() -> None:
    data = json.load(open(sys.argv[1]))
    owners = [arg.split(":") for arg in sys.argv[3::2]] if "--owner" in sys.argv else []
    need(data, ["format", "kernel", "chip", "variant", "dims", "grid", "warps", "source",
                "passes", "layouts", "shared", "traffic", "missing"], "the data")
    print(f"format {data['format']} kernel {data['kernel']} chip {data['chip']} warps {data['warps']}")
    print("variant " + ",".join(f"{name}={value}" for name, value in data["variant"]))
    print("grid " + (",".join(map(str, data["grid"])) if data["grid"] else "none: " + data["grid_note"]))

    source = data["source"]
    need(source, ["file", "language", "lines", "hidden"], "source")
    print(f"source {source['file']} {source['language']} lines {len(source['lines'])} "
          f"hidden {source['hidden']}")
    for line in source["hidden"]:
        print(f"hidden line {line}: {source['lines'][line - 1].strip()}")

    passes = data["passes"]
    texts = rebuild(passes)
    sources: list[list[int]] = []
    for index, stage in enumerate(passes):
        need(stage, ["pass", "anchor", "lines"], f"pass {index}")
        if stage.get("omitted"):
            sources.append(None)
            print(f"pass {index} {stage['pass']} on {stage['anchor']}: {stage['lines']} lines, omitted")
            continue
        src = stage.get("src", sources[-1] if sources else None)
        if src is None or len(src) != stage["lines"]:
            fail(f"pass {index}: no source line for each IR line")
        if any(line < 0 or line > len(source["lines"]) for line in src):
            fail(f"pass {index}: a source line outside the source")
        sources.append(src)
        change = ("text" if "text" in stage else
                  f"+{stage['added']} -{stage['removed']}" if stage["changed"] else "unchanged")
        print(f"pass {index} {stage['pass']} on {stage['anchor']}: {stage['lines']} lines, {change}")

    layouts = data["layouts"]
    need(layouts, ["stage", "values", "layouts"], "layouts")
    stage = layouts["stage"]
    print(f"layouts at pass {stage} ({passes[stage]['pass']})")
    for value in layouts["values"]:
        need(value, ["name", "op", "line", "src", "layout"], "a layout value")
        text = texts[stage][value["line"] - 1].strip()
        defined = value["name"].split("#")[0]  # %3#1: a result of %3:2 = ...
        if not (text.startswith(defined + " = " + value["op"]) or text.startswith(defined + ":")):
            fail(f"{value['name']}: IR line {value['line']} is '{text}'")
        if sources[stage][value["line"] - 1] != value["src"]:
            fail(f"{value['name']}: source line {value['src']} differs from the pass's")
        print(f"value {value['name']} = {value['op']} at source line {value['src']}, layout {value['layout']}")
    for index, layout in enumerate(layouts["layouts"]):
        need(layout, ["type", "shape", "element", "kind", "warps"], f"layout {index}")
        elements = 1
        for extent in layout["shape"]:
            elements *= extent
        print(f"layout {index}: {layout['kind']} {'x'.join(map(str, layout['shape']))}x{layout['element']}, "
              f"{layout.get('registers')} registers a thread"
              + (", copies" if "holders" in layout else "")
              + (f", {layout['omitted']}" if "omitted" in layout else ""))
        if "thread" not in layout:
            continue
        threads = 32 * layout["warps"]
        if len(layout["thread"]) != elements or len(layout["register"]) != elements:
            fail(f"layout {index}: not one owner an element")
        if any(not 0 <= t < threads for t in layout["thread"]):
            fail(f"layout {index}: an owner outside the CTA")
        if any(not 0 <= r < layout["registers"] for r in layout["register"]):
            fail(f"layout {index}: a register past the thread's")
        held = {(t, r) for t, r in zip(layout["thread"], layout["register"])}
        if len(held) != elements:
            fail(f"layout {index}: one register owns two elements")
        if "holders" in layout:
            print(f"  holders per element: {sorted(set(layout['holders']))}")
    for spec, coords in owners:
        layout = layouts["layouts"][int(spec)]
        flat = 0
        for extent, coord in zip(layout["shape"], map(int, coords.split(","))):
            flat = flat * extent + coord
        thread = layout["thread"][flat]
        print(f"owner {spec}:[{coords}] warp {thread // 32} lane {thread % 32} register {layout['register'][flat]}")

    shared = data["shared"]
    need(shared, ["buffers"], "shared")
    for buffer in shared["buffers"]:
        need(buffer, ["name", "op", "line", "src", "type", "shape", "slots", "slot_shape", "layout",
                      "bytes", "slot_bytes"], "a buffer")
        print(f"buffer {buffer['name']} = {buffer['op']} at source line {buffer['src']}: {buffer['slots']} x "
              f"{'x'.join(map(str, buffer['slot_shape']))}x{buffer['element']}, {buffer['layout']}, "
              f"{buffer['slot_bytes']} B a slot, {buffer['bytes']} B at {buffer.get('offset')}")
        if "banks" in buffer:
            rows, columns = buffer["slot_shape"]
            banks = buffer["banks"]
            print(f"  banks of rows 0-3, first 4 units: " + "; ".join(
                " ".join(str(banks[r * columns + c]) for c in range(0, min(columns, 32), 8))
                for r in range(min(rows, 4))))
        conflicts = buffer.get("conflicts")
        if conflicts:
            for candidate in conflicts["layouts"]:
                print(f"  conflicts {candidate['layout']}{' (chosen)' if candidate['chosen'] else ''}: "
                      f"{candidate['excess_wavefronts']} excess of {candidate['wavefronts']} wavefronts")
    traffic = data["traffic"]
    if "note" in traffic:
        print("traffic note: " + traffic["note"])
    if "accesses" in traffic:
        need(traffic, ["cta", "stage", "tensors"], "traffic")
        print(f"traffic of CTA {traffic['cta']} at pass {traffic['stage']}")
        for access in traffic["accesses"]:
            need(access, ["op", "line", "src", "tensor", "kind", "count", "runs", "masked", "executions"],
                 "a traced access")
            tensor = traffic["tensors"][access["tensor"]]
            elements = 1
            for extent in tensor["shape"]:
                elements *= extent
            if sum(length for _, length in access["runs"]) != access["count"]:
                fail(f"{access['op']}: runs of {access['count']} elements do not add up")
            if any(first < 0 or first + length > elements for first, length in access["runs"]):
                fail(f"{access['op']}: a run outside {tensor['name']}")
            text = texts[traffic["stage"]][access["line"] - 1].strip()
            if access["op"] not in text:
                fail(f"{access['op']}: IR line {access['line']} is '{text}'")
            runs = access["runs"]
            shown = ", ".join(f"{first}+{length}" for first, length in runs[:3]) + (", ..." if len(runs) > 3 else "")
            print(f"  line {access['src']} {access['op']} {access['kind']} {tensor['name']} "
                  f"{'x'.join(map(str, tensor['shape']))}: {access['count']} elements in {len(runs)} runs "
                  f"({shown}), {access['masked']} masked, {access['executions']} executions")
            if "masked_runs" in access:
                summarize_masked(access, tensor)
    writes = data["writes"]
    if "note" in writes:
        print("writes note: " + writes["note"])
    if "tensors" in writes:
        need(writes, ["grid", "stage", "races"], "writes")
        grid = writes["grid"]
        ctas = grid[0] * grid[1] * grid[2]
        print(f"writes of the grid {grid} at pass {writes['stage']}: {len(writes['races'])} races")
        for tensor in writes["tensors"]:
            need(tensor, ["name", "param", "shape", "element", "written", "ctas"], "a written tensor")
            elements = 1
            for extent in tensor["shape"]:
                elements *= extent
            if "omitted" in tensor:
                print(f"  {tensor['name']}: {tensor['written']} elements by {tensor['ctas']} CTAs, "
                      f"{tensor['omitted']}")
                continue
            runs = tensor["runs"]
            if sum(length for _, length, _ in runs) != tensor["written"]:
                fail(f"{tensor['name']}: runs of {tensor['written']} elements do not add up")
            if len({cta for _, _, cta in runs}) != tensor["ctas"]:
                fail(f"{tensor['name']}: {tensor['ctas']} CTAs said")
            ends = [0]
            for first, length, cta in runs:
                if first < ends[-1] or first + length > elements or not 0 <= cta < ctas:
                    fail(f"{tensor['name']}: run {first}+{length} by {cta} out of order or place")
                ends.append(first + length)
            shown = ", ".join(f"{first}+{length} by {cta}" for first, length, cta in runs[:4])
            print(f"  {tensor['name']} {'x'.join(map(str, tensor['shape']))}: {tensor['written']} elements "
                  f"by {tensor['ctas']} CTAs in {len(runs)} runs ({shown}{', ...' if len(runs) > 4 else ''})")
            for key in ("several", "raced"):
                if tensor[key]:
                    print(f"    {key}: " + ", ".join(f"{first}+{length}" for first, length in tensor[key][:6])
                          + (", ..." if len(tensor[key]) > 6 else ""))
        for race in writes["races"]:
            need(race, ["tensor", "element", "count", "first", "second"], "a race")
            sides = [f"{side['access']} by CTA {side['cta']} at line {side['src']}"
                     for side in (race["first"], race["second"])]
            print(f"  race on {writes['tensors'][race['tensor']]['name']}{race['element']} "
                  f"({race['count']} pairs): " + " | ".join(sides))
    tuning = data["tuning"]
    if "note" in tuning:
        print("tuning note: " + tuning["note"])
    if "report" in tuning:
        need(tuning, ["from"], "tuning")
        report = tuning["report"]
        need(report, ["kernel", "chip", "device", "backend", "dims", "variants", "best", "variant_order"],
             "the tuning report")
        where = (f"the cache ({tuning['record']['chip']}"
                 f"{', general' if tuning['record']['general'] else ''})"
                 if tuning["from"] == "cache" else "a report")
        statuses = {}
        for variant in report["variants"]:
            need(variant, ["variant", "status", "time_ms", "compile_ms"], "a tuned variant")
            statuses[variant["status"]] = statuses.get(variant["status"], 0) + 1
        best = report["variants"][report["best"]] if report["best"] >= 0 else None
        if best is not None and (best["status"] != "ok" or any(
                v["status"] == "ok" and v["time_ms"] < best["time_ms"] for v in report["variants"])):
            fail("the best variant is not the fastest timed one")
        labels = sorted(",".join(f"{n}={v['variant'][n]}" for n in report["variant_order"])
                        for v in report["variants"])
        print(f"tuning of {report['kernel']} from {where} on {report['device']}, "
              + ",".join(f"{n}={v}" for n, v in sorted(report["dims"].items())) + ": "
              f"{' '.join(labels)}; " + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
              + (", a best" if best is not None else ", no best"))
    cluster = data["cluster"]
    if "note" in cluster:
        print("cluster note: " + cluster["note"])
    program = cluster.get("program_ir")
    if program is not None:
        if "lines" in program:
            print(f"cluster program: {len(program['lines'])} lines, "
                  + ", ".join(line.strip().split(" ")[0] for line in program["lines"]
                              if line.startswith("  phobos_cluster.")))
        else:
            print("cluster program note: " + program["note"])
    if "instructions" in cluster:
        need(cluster, ["program", "nodes", "dims", "bindings", "tensors", "leaves", "levels", "links",
                       "node_totals"], "cluster")
        instructions = {i["id"]: i for i in cluster["instructions"]}
        kinds = {}
        for i in cluster["instructions"]:
            need(i, ["id", "node", "kind", "bytes", "deps", "label", "level"], "an instruction")
            kinds[i["kind"]] = kinds.get(i["kind"], 0) + 1
            before = i["deps"] + ([i["source"]] if "source" in i else [])
            if any(instructions[d]["level"] >= i["level"] for d in before):
                fail(f"instruction {i['id']} is not after what it depends on")
            if i["kind"] == "fetch" and "source" in i and instructions[i["source"]]["node"] != i["from"]:
                fail(f"fetch {i['id']}: its source is not on its holder")
        if max(i["level"] for i in cluster["instructions"]) + 1 != cluster["levels"]:
            fail("the levels do not match the instructions'")
        fetched = sum(i["bytes"] for i in cluster["instructions"] if i["kind"] == "fetch")
        if sum(link["bytes"] for link in cluster["links"]) != fetched:
            fail("the links do not carry the fetched bytes")
        print(f"cluster {cluster['program']} on {cluster['nodes']} nodes, "
              + ",".join(f"{n}={v}" for n, v in sorted(cluster["bindings"].items()))
              + f": {len(instructions)} instructions in {cluster['levels']} levels ("
              + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ")")
        for total in cluster["node_totals"]:
            print(f"  node {total['node']}: {total['instructions']} instructions, {total['computes']} computes, "
                  f"loaded {total['loaded']}, fetched {total['fetched']}, served {total['served']}, "
                  f"stored {total['stored']}")
        print("  links: " + ", ".join(f"{l['from']}->{l['to']} {l['bytes']}" for l in cluster["links"]))
        if "summary" in cluster:
            summary = cluster["summary"]
            print(f"  measured: {len(summary['nodes'])} nodes, {summary['timed_instructions']} instructions timed, "
                  f"{summary['measured_instructions']} of the plan's {len(cluster['instructions'])}")
    print("missing: " + (" | ".join(item.split(":")[0] for item in data["missing"]) or "(nothing)"))


if __name__ == "__main__":
    main()
