#!/usr/bin/env python3
"""Runs the cluster matmul on interpreter pods on loopback and checks the
measured timeline its summary carries and the page draws from it
(cluster-timeline.test): the pods time each instruction they retire, the
scheduler's --summary-json has every node's [segment, instruction, start,
end] rows, and phobos-viz --cluster-job with --cluster-summary matches each
to the plan's instruction.

The plan has the shape of browser.test's (5 x 5 output super-tiles over 4
nodes, one chunk of K, C written), on super-tiles of 64. Starts pods and a
scheduler through the cluster-runtime tests' harness
(test/Tools/cluster-runtime/Inputs/cluster.py), without TLS (loopback).

Usage: cluster_timeline.py --bin DIR --src DIR --tmp DIR [--page PAGE.html]
"""

import argparse
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "cluster-runtime", "Inputs"))
import cluster as harness  # noqa: E402

INSECURE = ["--insecure"]


def run(cluster: "harness.Cluster", page: str) -> None:
    job = harness.matmul_job(cluster, 320, 320, 64, (64, 64, 64), c_mode="write")
    pods = [cluster.start_pod(f"pod{i}", credentials=INSECURE) for i in range(4)]
    addresses = cluster.wait_addresses(pods)
    summary_path = os.path.join(cluster.tmp, "summary.json")
    # No pod is lost here: a silence of a minute is allowed (a loaded
    # machine may hold a pod's heartbeats past the default 5 s, and a
    # re-planned job would not match the plan of 4 nodes).
    code, _ = cluster.follow(cluster.scheduler(job["job"], addresses, "--cluster", job["cluster"],
                                               "--summary-json", summary_path,
                                               "--heartbeat-timeout-ms", "60000",
                                               credentials=INSECURE))
    harness.check(code == 0, "the job finished")
    with open(summary_path) as f:
        summary = json.load(f)

    # The scheduler's plan of the same job, to match the rows against.
    plan = json.loads(cluster.run(cluster.tool("phobos-sched"), "--plan", job["job"], "--nodes", "4",
                                  "--cluster", job["cluster"], "--json").stdout)
    planned = {(i["node"], i["id"]): i["kind"] for program in plan["node_programs"]
               for i in program["instructions"]}
    rows = 0
    for node in summary["nodes"]:
        timeline = node["timeline"]
        harness.check(all(0 <= start <= end <= summary["seconds"] + 1 for _, _, start, end in timeline),
                      f"node {node['node']}: {len(timeline)} instructions timed, each ending after it starts")
        harness.check(all((node["node"], id) in planned for segment, id, _, _ in timeline if segment == 0),
                      f"node {node['node']}: each is one of its planned instructions")
        starts = [start for _, _, start, _ in timeline]
        harness.check(starts == sorted(starts), f"node {node['node']}: in order of start")
        rows += len(timeline)
    harness.check(rows == len(planned), f"{rows} of the plan's {len(planned)} instructions timed")
    # A compute starts after the loads or fetches of its tiles end: the
    # dependencies hold in the measured times.
    ends = {(node["node"], id): end for node in summary["nodes"] for _, id, _, end in node["timeline"]}
    starts = {(node["node"], id): start for node in summary["nodes"] for _, id, start, _ in node["timeline"]}
    after = all(starts[(i["node"], i["id"])] >= ends[(i["node"], d)] - 1e-6
                for program in plan["node_programs"] for i in program["instructions"] for d in i["deps"])
    harness.check(after, "every instruction starts after those it depends on end")

    # The page plans the job itself and draws the run beside the plan.
    data_path = os.path.join(cluster.tmp, "page.json")
    viz = [cluster.tool("phobos-viz"), harness.sources(cluster)["matmul"], "--cluster-job", job["job"],
           "--nodes", "4", "--cluster", job["cluster"], "--cluster-summary", summary_path,
           "--max-grid-steps", "1"]
    cluster.run(*viz, "--json", "-o", data_path)
    with open(data_path) as f:
        panel = json.load(f)["cluster"]
    harness.check(panel["summary"]["measured_instructions"] == len(panel["instructions"]) == len(planned),
                  f"the page matches {panel['summary']['measured_instructions']} measured instructions "
                  f"to its plan of {len(panel['instructions'])}")
    if page:
        cluster.run(*viz, "-o", page)
        shutil.copy(summary_path, page + ".summary.json")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--src", required=True)
    parser.add_argument("--tmp", required=True)
    parser.add_argument("--page", default="")
    args = parser.parse_args()
    return harness.run_on_cluster(args, "cluster_timeline",
                                  lambda cluster: run(cluster, args.page))

if __name__ == "__main__":
    sys.exit(main())
