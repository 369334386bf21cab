#!/usr/bin/env python3
"""Runs a Phobos cluster on this machine for the lit tests: interpreter pods
on loopback ports chosen at run time, a scheduler, and the cases of
docs/cluster.md ("Tests"): results equal to the single-process run bit for
bit, pods killed mid-job, refused credentials, broken files and a pod that
dies while serving a tile.

Usage: cluster.py CASE --bin DIR --src DIR --tmp DIR

Prints what it checks ("ok: ..."), the scheduler's output prefixed with
"sched| ", and exits non-zero at the first check that fails. Every process
it starts is killed before it exits; every wait is bounded.

Why this file is long: it is one harness, a function per case that the
.test files of this folder name, over the one Cluster class they share
(ports claimed, credentials, processes started and always stopped); split
by case, each module would import the same helpers and the lit tests would
lose their one entry point. The Slurm case (class Slurm, case_slurm) is the
part that can move to a module of its own if the file grows.
"""

import argparse
import fcntl
import json
import os
import pwd
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

# Generous bounds for a loaded 2-core machine; a healthy case takes seconds.
START_SECONDS = 60
JOB_SECONDS = 240


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)
    print(f"ok: {what}", flush=True)


# Ports this process holds a claim on (open, locked files): released at exit.
_claims = []


def free_port():
    """A loopback port for a process started later (the scheduler, a pod
    that must not move, an address nobody listens on). Not from the kernel's
    ephemeral range: there, any pod listening on port 0 or any outgoing
    connection of a test running beside this one may take the port between
    this choice and the bind (a scheduler started a second time on it
    failed with "the address is taken"). Tests running at once claim their
    ports with a lock file, so they never choose the same one."""
    low = 32768
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    first, last = (10000, low - 1) if low > 11000 else (low - 1000, low - 1)
    directory = os.path.join(tempfile.gettempdir(), "phobos-test-ports")
    os.makedirs(directory, exist_ok=True)
    candidates = list(range(first, last + 1))
    random.shuffle(candidates)
    for port in candidates[:2000]:
        claim = open(os.path.join(directory, str(port)), "a")
        try:
            fcntl.flock(claim, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            claim.close()
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                claim.close()
                continue
        _claims.append(claim)
        return port
    raise Failure(f"no free loopback port in {first}-{last}")


class Cluster:
    def __init__(self, args):
        self.bin = args.bin
        self.src = args.src
        self.tmp = args.tmp
        self.processes = []
        self.pods = []
        self.scheduler_port = free_port()
        self.credentials = os.path.join(self.tmp, "creds")

    def tool(self, name):
        return os.path.join(self.bin, name)

    def run(self, *argv, ok=True):
        result = subprocess.run(argv, capture_output=True, text=True,
                                timeout=JOB_SECONDS)
        if ok and result.returncode != 0:
            raise Failure(f"{' '.join(argv)} failed ({result.returncode}):\n"
                          f"{result.stdout}{result.stderr}")
        return result

    def make_credentials(self, directory=None):
        directory = directory or self.credentials
        self.run(os.path.join(self.src, "scripts", "cluster-credentials.sh"),
                 directory)
        return directory

    def start_pod(self, name, *extra, credentials=True, port=0):
        address_file = os.path.join(self.tmp, f"{name}.address")
        log = open(os.path.join(self.tmp, f"{name}.log"), "w")
        argv = [self.tool("phobos-pod"), "--listen", f"127.0.0.1:{port}",
                "--address-file", address_file, "--interpret", "--threads", "1",
                "--scheduler", f"127.0.0.1:{self.scheduler_port}"]
        if credentials is True:
            argv += ["--credentials", self.credentials]
        elif credentials:
            argv += list(credentials)
        argv += list(extra)
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        self.processes.append(process)
        pod = {"name": name, "process": process, "address_file": address_file,
               "log": log.name}
        self.pods.append(pod)
        return pod

    def wait_addresses(self, pods):
        deadline = time.time() + START_SECONDS
        for pod in pods:
            while not os.path.exists(pod["address_file"]):
                if pod["process"].poll() is not None:
                    raise Failure(f"{pod['name']} exited: {self.log(pod)}")
                if time.time() > deadline:
                    raise Failure(f"{pod['name']} did not start")
                time.sleep(0.05)
            with open(pod["address_file"]) as f:
                pod["address"] = f.read().strip()
        return ",".join(pod["address"] for pod in pods)

    def log(self, pod):
        with open(pod["log"]) as f:
            return f.read()

    def scheduler(self, job, pods, *extra, credentials=True, heartbeat_ms=100):
        argv = [self.tool("phobos-sched"), job] + (["--pods", pods] if pods else []) + [
                "--listen", f"127.0.0.1:{self.scheduler_port}", "--progress-ms", "100",
                "--heartbeat-ms", str(heartbeat_ms), "--join-timeout", str(START_SECONDS)]
        if credentials is True:
            argv += ["--credentials", self.credentials]
        elif credentials:
            argv += list(credentials)
        argv += list(extra)
        process = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        self.processes.append(process)
        return process

    def follow(self, process, on_line=None):
        """Echoes the scheduler's output; `on_line` sees every line."""
        deadline = time.time() + JOB_SECONDS
        lines = []
        for line in process.stdout:
            line = line.rstrip("\n")
            lines.append(line)
            print(f"sched| {line}", flush=True)
            if on_line:
                on_line(line)
            if time.time() > deadline:
                process.kill()
                raise Failure("the job did not finish in time")
        code = process.wait(timeout=JOB_SECONDS)
        return code, lines

    def stop(self):
        for process in self.processes:
            if process.poll() is None:
                process.kill()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


def sources(cluster):
    """The examples' kernels with @cluster spaces that fit small problems:
    the kernel bodies are the examples' own."""
    examples = os.path.join(cluster.src, "examples")
    with open(os.path.join(examples, "cluster_matmul.ph")) as f:
        matmul = f.read().replace("[4096, 16384]", "[64, 256]")
    with open(os.path.join(examples, "cluster_flash_attention.ph")) as f:
        flash = f.read()
    paths = {}
    for name, text in (("matmul", matmul), ("flash", flash)):
        paths[name] = os.path.join(cluster.tmp, f"cluster_{name}.ph")
        with open(paths[name], "w") as f:
            f.write(text)
    return paths


def random_tensors(cluster, data, tensors):
    """For each (name, shape, seed): data/name.tensor filled at random by
    phobos-tensor with that seed, and its copy data/name.npy (the
    interpreter's reference reads it)."""
    t = cluster.tool("phobos-tensor")
    for tensor, shape, seed in tensors:
        cluster.run(t, "create", f"file://{data}/{tensor}.tensor", "--shape",
                    shape, "--fill", "random", "--seed", str(seed))
        cluster.run(t, "convert", f"{data}/{tensor}.tensor",
                    f"{data}/{tensor}.npy", "--shape", shape)


def job_with_reference(cluster, source, data, job_name, tensors, dims, scalars,
                       output, *run_args):
    """A job of f32 `tensors`, each (name, access, shape, seed): those with a
    seed random in storage under `data` (random_tensors); the job file
    `job_name` there, its `dims` lines before the tensors and its `scalars`
    lines after; and the reference: the same kernel run in one process by
    phobos-run --interpret on the inputs' .npy copies (`run_args`: its dims
    and scalars), its `output` written to data/reference.npy. Returns (job,
    reference)."""
    inputs = [(name, shape, seed) for name, _, shape, seed in tensors if seed is not None]
    os.makedirs(data, exist_ok=True)
    random_tensors(cluster, data, inputs)
    job = os.path.join(data, job_name)
    with open(job, "w") as f:
        f.write(f"source = {source}\n" + dims
                + "".join(f"tensor {name.upper()} = {access} f32 {shape} "
                          f"file://{data}/{name}.tensor\n"
                          for name, access, shape, _ in tensors)
                + scalars)
    reference = os.path.join(data, "reference.npy")
    argv = [cluster.tool("phobos-run"), "--interpret", source]
    for name, _, _ in inputs:
        argv += ["--input", f"{name.upper()}={data}/{name}.npy"]
    cluster.run(*argv, *run_args, "--output", f"{output}={reference}", "--cpu-threads", "2")
    return job, reference


def matmul_job(cluster, m, n, k, tiles, name="matmul", c_mode="rmw"):
    """Inputs in storage, a job file and the reference (job_with_reference)."""
    data = os.path.join(cluster.tmp, name)
    tensors = (("a", "read", f"{m}x{k}", 1), ("b", "read", f"{k}x{n}", 2),
               ("c", c_mode, f"{m}x{n}", 3))
    job, reference = job_with_reference(
        cluster, sources(cluster)["matmul"], data, "matmul.job", tensors, "",
        "scalar alpha = f32 1.5\nscalar beta = f32 0.5\n",
        "C", "--scalar", "alpha=1.5", "--scalar", "beta=0.5")
    cluster_flag = f"TILE_M={tiles[0]},TILE_N={tiles[1]},TILE_K={tiles[2]}"
    return {"job": job, "data": data, "output": f"{data}/c.tensor",
            "reference": reference, "cluster": cluster_flag,
            "original": f"{data}/c.npy"}


def flash_job(cluster, nq, nk):
    data = os.path.join(cluster.tmp, "flash")
    tensors = (("q", "read", f"{nq}x64", 4), ("k", "read", f"{nk}x64", 5),
               ("v", "read", f"{nk}x64", 6), ("o", "write", f"{nq}x64", None))
    job, reference = job_with_reference(
        cluster, sources(cluster)["flash"], data, "flash.job", tensors,
        f"dim Nq = {nq}\n", "scalar scale = f32 0.125\n",
        "O", "--dim", f"Nq={nq}", "--scalar", "scale=0.125")
    return {"job": job, "data": data, "output": f"{data}/o.tensor",
            "reference": reference}


def compare(cluster, output, reference, *extra):
    result = cluster.run(cluster.tool("phobos-tensor"), "compare", output,
                         reference, *extra, ok=False)
    print(result.stdout.strip(), flush=True)
    return result.returncode == 0 and (extra or "identical" in result.stdout)


def no_partials(directory):
    return not [f for f in os.listdir(directory) if f.endswith(".partial")]


def start_pods(cluster, count, *extra):
    pods = [cluster.start_pod(f"pod{i}", *extra) for i in range(count)]
    return pods, cluster.wait_addresses(pods)


#===-----------------------------------------------------------------------===#
# Cases
#===-----------------------------------------------------------------------===#


def case_matmul(cluster):
    cluster.make_credentials()
    # One chunk of K per unit: the sum runs in the order of the
    # single-process run, so the result is the same bit for bit.
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    pods, addresses = start_pods(cluster, 3)
    code, lines = cluster.follow(cluster.scheduler(job["job"], addresses,
                                                   "--cluster", job["cluster"]))
    check(code == 0, "the job finished")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")
    check(no_partials(job["data"]), "no partial file is left")
    # Several chunks of K: each unit sums chunk by chunk, so the result is
    # the same on any number of pods, and close to the single-process run.
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 128), name="chunks")
    code, _ = cluster.follow(cluster.scheduler(job["job"], addresses,
                                               "--cluster", job["cluster"]))
    check(code == 0, "the job with two chunks of K finished")
    three = job["output"] + ".3pods"
    shutil.copy(job["output"], three)
    check(compare(cluster, job["output"], job["reference"], "--tolerance",
                  "1e-5", "--atol", "1e-4"),
          "C is within 1e-5 (+ 1e-4) of the single-process run")
    # C is read and written (rmw): start again from its original content.
    cluster.run(cluster.tool("phobos-tensor"), "convert", job["original"],
                job["output"])
    code, _ = cluster.follow(cluster.scheduler(job["job"], pods[0]["address"],
                                               "--cluster", job["cluster"]))
    check(code == 0, "the same job on one pod finished")
    check(compare(cluster, job["output"], three, "--shape", "384x256"),
          "one pod and three pods agree bit for bit")


def case_settle(cluster):
    """A pod reports the end of its share at once, not at its next
    heartbeat: with heartbeats 5 s apart, a job of a tenth of a second ends
    well before the first one."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    pods, addresses = start_pods(cluster, 3)
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], addresses, "--cluster", job["cluster"],
        "--heartbeat-timeout-ms", "60000", heartbeat_ms=5000))
    check(code == 0, "the job finished")
    done = [float(m.group(1)) for l in lines
            for m in [re.search(r"done in ([0-9.]+) s", l)] if m]
    check(done and done[0] < 2.5,
          f"the job ended before the first heartbeat ({done[0] if done else '?'} s)")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")
    # Both ways of storing (through a mapping, by pwrite) write the same
    # bits, whatever the file system's default.
    for how in ("write", "map"):
        pods = [cluster.start_pod(f"{how}-pod{i}", "--store-writes", how) for i in range(3)]
        addresses = cluster.wait_addresses(pods)
        # C is read and written (rmw): start again from its original content.
        cluster.run(cluster.tool("phobos-tensor"), "convert", job["original"], job["output"])
        code, _ = cluster.follow(cluster.scheduler(job["job"], addresses,
                                                   "--cluster", job["cluster"]))
        check(code == 0 and compare(cluster, job["output"], job["reference"]),
              f"pods storing with --store-writes {how} write the same C")


def case_flash(cluster):
    cluster.make_credentials()
    job = flash_job(cluster, 3072, 192)
    pods, addresses = start_pods(cluster, 3)
    # --autotune: the cost model picks the @cluster size for these pods.
    code, lines = cluster.follow(cluster.scheduler(job["job"], addresses,
                                                   "--autotune"))
    check(code == 0, "the job finished")
    check(compare(cluster, job["output"], job["reference"]),
          "O equals the single-process run bit for bit")
    check(any("fetched" in l and "node 1" in l for l in lines),
          "progress is shown per node")


def case_kill(cluster):
    """kill -9 of one pod mid-job, then of a second: the last one finishes."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 384, 256, (128, 128, 256))
    # Node 1 takes a second per compute: killed after its first one, it
    # always leaves two of its three outputs, one for each pod left,
    # however late the kill lands. Node 2 takes half a second, so it is
    # still at work on what it takes over when the test looks.
    delays = {0: "250", 1: "1000", 2: "500"}
    pods = [cluster.start_pod(f"pod{i}", "--test-compute-delay-ms", delays[i])
            for i in range(3)]
    addresses = cluster.wait_addresses(pods)
    killed = []
    replans = []

    def on_line(line):
        if "re-planned" in line:
            replans.append(line)
        # The first victim: node 1, once it has computed something.
        match = re.search(r"progress: node 1: (\d+)/(\d+) units.*, (\d+) computes?,", line)
        if not killed and match and int(match.group(3)) >= 1:
            pods[1]["process"].send_signal(signal.SIGKILL)
            killed.append(1)
            print("test| killed node 1 (kill -9)", flush=True)
        # The second: node 2, once it works on node 1's outputs.
        match = re.search(r"progress: node 2: (\d+)/(\d+) units", line)
        if killed == [1] and replans and match and int(match.group(2)) > 3 \
                and int(match.group(1)) < int(match.group(2)):
            pods[2]["process"].send_signal(signal.SIGKILL)
            killed.append(2)
            print("test| killed node 2 (kill -9)", flush=True)

    code, lines = cluster.follow(
        cluster.scheduler(job["job"], addresses, "--cluster", job["cluster"]),
        on_line)
    check(killed == [1, 2], "two pods were killed mid-job")
    check(code == 0, "the job finished on the pod left")
    check(sum("lost: its connection closed" in l for l in lines) == 2,
          "both lost nodes were noticed")
    check(len(replans) == 2, "their outputs were re-planned twice")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")
    check(no_partials(job["data"]), "no partial file is left")


def case_stall(cluster):
    """A pod that stops (SIGSTOP) misses its heartbeats: it is lost, its
    work re-planned, and when it wakes (while the others still work) its
    late messages are ignored and it drops the job."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    # The others compute slowly, so that the work re-planned from node 2 is
    # still running well after it wakes: its late heartbeat must reach the
    # scheduler before the job ends, even on a loaded machine. Node 2 takes
    # a second per compute: stopped after its first one, it always leaves
    # outputs unstored, however late the stop lands.
    pods = [cluster.start_pod(f"pod{i}", "--test-compute-delay-ms",
                              "1000" if i == 2 else "1500") for i in range(3)]
    addresses = cluster.wait_addresses(pods)
    stopped = []
    woken = []

    def on_line(line):
        match = re.search(r"progress: node 2: .*, (\d+) computes?,", line)
        if not stopped and match and int(match.group(1)) >= 1:
            pods[2]["process"].send_signal(signal.SIGSTOP)
            stopped.append(2)
            print("test| stopped node 2 (SIGSTOP)", flush=True)
        # Once its work is given to the others, it wakes up while they
        # still work on it: what it says now must change nothing.
        if stopped and not woken and "re-planned" in line:
            pods[2]["process"].send_signal(signal.SIGCONT)
            woken.append(2)
            print("test| woke node 2 (SIGCONT)", flush=True)

    code, lines = cluster.follow(
        cluster.scheduler(job["job"], addresses, "--cluster", job["cluster"],
                          "--heartbeat-timeout-ms", "2500"), on_line)
    pods[2]["process"].send_signal(signal.SIGCONT)
    check(stopped == [2], "a pod was stopped mid-job")
    check(woken == [2], "it was woken after its work was re-planned")
    check(code == 0, "the job finished without it")
    check(any("node 2" in l and "lost: no heartbeat" in l for l in lines),
          "the stopped pod was lost for its missed heartbeats")
    # Woken, it either speaks first on its old stream (ignored) or reads
    # that it is lost first, drops the job and tries to join again
    # (refused): which comes first is a race of its two threads.
    check(any(("node 2" in l and "its messages are ignored" in l) or
              ("refused" in l and "node 2 was lost" in l) for l in lines),
          "its late messages are ignored")
    check(any(re.match(r"2 +\S+ +lost ", l) for l in lines),
          "the summary counts it lost")
    check(any(re.search(r"done in .*, 1 lost", l) for l in lines),
          "the job is done with one node lost")
    # The woken pod was told that it is lost and dropped the job.
    deadline = time.time() + START_SECONDS
    while "declared lost" not in cluster.log(pods[2]) and time.time() < deadline:
        time.sleep(0.1)
    told = [l for l in cluster.log(pods[2]).splitlines() if "declared lost" in l]
    for line in told:
        print(f"pod| {line}")
    check(told and "aborted: this node was declared lost: no heartbeat" in told[0],
          "the woken pod stops its share of the job")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")
    check(no_partials(job["data"]), "no partial file is left")


def case_sched_pause(cluster):
    """The scheduler itself stopped (SIGSTOP) for three heartbeat timeouts:
    woken, it does not count its own silence against the pods, which kept
    working; no node is lost and the output is the single-process run's."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    pods, addresses = start_pods(cluster, 3, "--test-compute-delay-ms", "400")
    sched = cluster.scheduler(job["job"], addresses, "--cluster", job["cluster"],
                              "--heartbeat-timeout-ms", "1000")
    paused = []

    def on_line(line):
        if not paused and re.search(r"progress: node \d: .*, 1 compute,", line):
            sched.send_signal(signal.SIGSTOP)
            paused.append(True)
            time.sleep(3)
            sched.send_signal(signal.SIGCONT)
            print("test| stopped the scheduler for 3 s (SIGSTOP, SIGCONT)",
                  flush=True)

    code, lines = cluster.follow(sched, on_line)
    check(paused == [True], "the scheduler was stopped mid-job")
    check(code == 0, "the job finished")
    check(not any("lost" in l for l in lines), "no node was lost")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")


def case_late_start(cluster):
    """Node 0 takes up its job 1.5 s after the others: their first fetches
    from it find no job there yet. They ask again until it serves, rather
    than load the tiles from storage."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    pods = [cluster.start_pod(f"pod{i}", *(["--test-start-delay-ms", "1500"]
                                           if i == 0 else []))
            for i in range(3)]
    addresses = cluster.wait_addresses(pods)
    summary = os.path.join(cluster.tmp, "late-start.json")
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], addresses, "--cluster", job["cluster"],
        "--summary-json", summary))
    check(code == 0, "the job finished")
    check(not any("lost" in l for l in lines), "no node was lost")
    with open(summary) as f:
        fetched = {n["node"]: n["fetched_bytes"] + n["peer_bytes"]
                   for n in json.load(f)["nodes"]}
    print(f"test| bytes fetched from peers: {fetched}")
    check(fetched.get(1, 0) > 0 and fetched.get(2, 0) > 0,
          "nodes 1 and 2 fetched tiles from their peers")
    logs = "".join(cluster.log(pod) for pod in pods)
    check("loading it from storage instead" not in logs,
          "no fetch fell back to storage")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")


def case_all_lost(cluster):
    """Every pod killed: a clear error, and the output is not touched."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    before = cluster.run(cluster.tool("phobos-tensor"), "inspect",
                         job["output"], "--shape", "384x256").stdout
    pods, addresses = start_pods(cluster, 2, "--test-compute-delay-ms", "300")
    killed = []

    def on_line(line):
        if not killed and ", 1 compute," in line:
            for pod in pods:
                pod["process"].send_signal(signal.SIGKILL)
            killed.append(True)
            print("test| killed every pod (kill -9)", flush=True)

    code, lines = cluster.follow(
        cluster.scheduler(job["job"], addresses, "--cluster", job["cluster"]),
        on_line)
    check(code == 1, "the scheduler failed")
    check(any("every node is lost" in l for l in lines),
          "it says that every node is lost")
    after = cluster.run(cluster.tool("phobos-tensor"), "inspect",
                        job["output"], "--shape", "384x256").stdout
    check(before == after, "the output file is as it was")
    check(no_partials(job["data"]), "no partial file is left")


def case_auth(cluster):
    cluster.make_credentials()
    other = cluster.make_credentials(os.path.join(cluster.tmp, "other"))
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    # A scheduler waits for a pod that cannot join (its certificate is of
    # another CA), while others knock.
    stranger_port = free_port()
    summary = os.path.join(cluster.tmp, "waiting-summary.json")
    waiting = cluster.scheduler(job["job"], f"127.0.0.1:{stranger_port}",
                                "--cluster", job["cluster"],
                                "--join-timeout", "10", "--summary-json", summary)
    time.sleep(0.5)
    # A pod with the cluster's certificate but without the shared secret.
    without_secret = [
        "--ca", os.path.join(cluster.credentials, "ca.pem"),
        "--cert", os.path.join(cluster.credentials, "node.pem"),
        "--key", os.path.join(cluster.credentials, "node.key")]
    intruder = cluster.start_pod("intruder", credentials=without_secret)
    code = intruder["process"].wait(timeout=START_SECONDS)
    log = cluster.log(intruder)
    print(log.strip())
    check(code == 1 and "refused this pod: UNAUTHENTICATED" in log,
          "a pod without the secret is refused with UNAUTHENTICATED")
    # A pod whose certificate another CA signed never gets through TLS.
    stranger = cluster.start_pod("stranger", credentials=["--credentials", other],
                                 port=stranger_port)
    deadline = time.time() + START_SECONDS
    while "certificate verify failed" not in cluster.log(stranger) and \
            time.time() < deadline:
        time.sleep(0.1)
    # The scheduler names that pod and the cause, and gives up after
    # --join-timeout.
    output, _ = waiting.communicate(timeout=START_SECONDS)
    stranger["process"].kill()
    log = cluster.log(stranger)
    check("certificate verify failed" in log and "attached" not in log,
          "a pod of another CA fails the TLS handshake and never joins")
    # It says which side and why, not only gRPC's raw line.
    for line in log.splitlines():
        if "failed the TLS handshake" in line:
            print(f"stranger| {line}", flush=True)
    check(not any(line.startswith("E") and "ssl_transport_security" in line
                  for line in log.splitlines()),
          "no raw gRPC line reaches the pod's log")
    for line in output.splitlines():
        print(f"sched| {line}", flush=True)
    check(any(f"node 0 = 127.0.0.1:{stranger_port} cannot join: the TLS "
              "handshake" in l for l in output.splitlines()),
          "the scheduler names the pod whose TLS handshake fails, with the cause")
    check("ssl_transport_security" not in output and
          "Handshake failed with fatal error" not in output,
          "no raw gRPC line reaches the scheduler's log")
    with open(summary) as f:
        result = json.load(f)
    check(result["outcome"] == "failed" and "TLS handshake" in result["error"]
          and result["nodes"][0]["state"] == "waiting",
          "the summary JSON of a job whose pods did not join says why")
    # The cluster's own pods run the job.
    pods, addresses = start_pods(cluster, 3)
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], addresses, "--cluster", job["cluster"]))
    check(code == 0, "the job ran on the cluster's own pods")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")
    check(not any("refused" in l for l in lines), "no pod of the job was refused")
    # A client with the wrong secret asks a pod for its status.
    wrong = os.path.join(cluster.tmp, "wrong-secret")
    with open(wrong, "w") as f:
        f.write("not-the-cluster-secret-at-all\n")
    result = cluster.run(cluster.tool("phobos-sched"), "--status",
                         pods[0]["address"], "--credentials", cluster.credentials,
                         "--secret-file", wrong, ok=False)
    print(result.stderr.strip())
    check(result.returncode == 1 and "answered UNAUTHENTICATED" in result.stderr,
          "a client with the wrong secret is refused with UNAUTHENTICATED")
    # The right credentials get a status.
    result = cluster.run(cluster.tool("phobos-sched"), "--status",
                         pods[0]["address"], "--credentials", cluster.credentials)
    print(result.stdout.strip())
    check("interpreter" in result.stdout, "the cluster's client gets a status")


def case_broken_input(cluster):
    """An input cut short after the scheduler checked it: the pod's load
    fails, the job ends naming the file and the cause, and the output that
    was there stays as it was."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    before = cluster.run(cluster.tool("phobos-tensor"), "inspect",
                         job["output"], "--shape", "384x256").stdout
    ports = [free_port(), free_port()]
    pods = []

    def on_line(line):
        # The scheduler checked the files and waits for the pods: cut A now.
        if "waiting for" in line and not pods:
            with open(os.path.join(job["data"], "a.tensor"), "r+b") as f:
                f.truncate(1000)
            print("test| truncated a.tensor", flush=True)
            for i, port in enumerate(ports):
                pods.append(cluster.start_pod(f"pod{i}", port=port))

    summary = os.path.join(cluster.tmp, "failed-summary.json")
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], ",".join(f"127.0.0.1:{p}" for p in ports), "--cluster",
        job["cluster"], "--summary-json", summary), on_line)
    check(code == 1, "the job failed")
    check(any("failed" in l and "a.tensor" in l and "cut short" in l
              for l in lines), "the error names the file and says it was cut short")
    # A failed job has its summary too: the outcome, the error, the nodes.
    with open(summary) as f:
        result = json.load(f)
    print(f"test| summary: outcome {result['outcome']}, error: {result['error']}",
          flush=True)
    check(result["outcome"] == "failed" and "cut short" in result["error"] and
          len(result["nodes"]) == 2 and result["units_total"] == 6 and
          result["outputs"] == [],
          "the failed job's summary JSON says why, with its nodes")
    after = cluster.run(cluster.tool("phobos-tensor"), "inspect",
                        job["output"], "--shape", "384x256").stdout
    check(before == after, "the output file is as it was")
    check(no_partials(job["data"]), "no partial file is left")
    # Checked before any pod is asked: the truncated file, a missing one.
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], f"127.0.0.1:{free_port()}"))
    check(code == 1 and any(l.endswith("matmul.job:2:29: error: tensor 'A': "
                                       f"{job['data']}/a.tensor holds 1000 "
                                       "bytes, but f32 [384x256] (raw) needs "
                                       "393216: the file is truncated or the "
                                       "shape is wrong") for l in lines),
          "a truncated input is reported at its line of the job")
    cluster.run(cluster.tool("phobos-tensor"), "create",
                f"{job['data']}/a.tensor", "--shape", "384x256", "--fill",
                "random", "--seed", "1")
    os.unlink(os.path.join(job["data"], "b.tensor"))
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], f"127.0.0.1:{free_port()}"))
    check(code == 1 and any(l.endswith(f"tensor 'B': {job['data']}/b.tensor: "
                                       "no such file") for l in lines),
          "a missing input is reported at its line of the job")
    # A pod that never joins is an error too, after --join-timeout.
    cluster.run(cluster.tool("phobos-tensor"), "create",
                f"{job['data']}/b.tensor", "--shape", "256x256", "--fill",
                "random", "--seed", "2")
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], f"127.0.0.1:{free_port()}", "--join-timeout", "2"))
    check(code == 1 and any("did not join within 2 s" in l for l in lines),
          "a pod that never joins is a clear error")
    check(before == cluster.run(cluster.tool("phobos-tensor"), "inspect",
                                job["output"], "--shape", "384x256").stdout,
          "the output file is still as it was")


def case_die_serving(cluster):
    """The holder of tiles dies in the middle of sending one: the fetcher
    says so and loads the tile from storage, the holder's work is re-planned,
    and the result is unchanged."""
    cluster.make_credentials()
    job = flash_job(cluster, 3072, 192)
    pods = [cluster.start_pod("pod0", "--test-die-while-serving",
                              "--chunk-bytes", "4096")]
    pods += [cluster.start_pod(f"pod{i}", "--chunk-bytes", "4096")
             for i in (1, 2)]
    addresses = cluster.wait_addresses(pods)
    code, lines = cluster.follow(cluster.scheduler(job["job"], addresses))
    check(code == 0, "the job finished")
    logs = cluster.log(pods[1]) + cluster.log(pods[2])
    broken = [l for l in logs.splitlines() if "from node 0 failed after" in l]
    for line in broken:
        print(f"pod| {line}")
    check(broken and "loading it from storage instead" in broken[0],
          "the fetcher reports the broken transfer and loads from storage")
    check(any("node 0" in l and "lost" in l for l in lines),
          "the holder is lost")
    check(compare(cluster, job["output"], job["reference"]),
          "O equals the single-process run bit for bit")


def case_sched_gone(cluster):
    """The scheduler stops answering without closing its connections
    (SIGSTOP for good): each pod's keepalive pings go unanswered, and after
    --scheduler-timeout-ms it leaves the job and waits for the next
    scheduler, instead of staying attached forever."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    pods, addresses = start_pods(cluster, 2, "--test-compute-delay-ms", "400",
                                 "--scheduler-timeout-ms", "2000")
    sched = cluster.scheduler(job["job"], addresses, "--cluster", job["cluster"])
    stopped = []

    def on_line(line):
        if not stopped and re.search(r"progress: node \d: .*, 1 compute,", line):
            sched.send_signal(signal.SIGSTOP)
            stopped.append(time.time())
            print("test| stopped the scheduler (SIGSTOP)", flush=True)

    for line in sched.stdout:
        line = line.rstrip("\n")
        print(f"sched| {line}", flush=True)
        on_line(line)
        if stopped:
            break
    deadline = time.time() + 20
    while time.time() < deadline and not all(
            "detached; waiting for the next scheduler" in cluster.log(p) for p in pods):
        time.sleep(0.1)
    left = time.time() - stopped[0]
    sched.send_signal(signal.SIGKILL)
    sched.send_signal(signal.SIGCONT)
    for pod in pods:
        for line in cluster.log(pod).splitlines():
            if "abandoned" in line or "detached" in line:
                print(f"{pod['name']}| {line}", flush=True)
    check(all("detached; waiting for the next scheduler" in cluster.log(p) for p in pods),
          "every pod left the silent scheduler")
    check(left < 10, f"they left within 10 s ({'%.0f' % left} s < 10 s)")
    check(all(p["process"].poll() is None for p in pods), "the pods keep running")


def case_sched_interrupted(cluster):
    """SIGTERM of the scheduler mid-job (Slurm's time limit; Ctrl-C is
    SIGINT, the same): it keeps the partial output and the journal, says how
    many super-tiles they hold and how to resume, and ends by the signal;
    the same command resumes and the output is the single-process run's bit
    for bit. Interrupted before any super-tile is stored, there is nothing
    to resume: it removes its partial output."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    with open(job["output"], "rb") as f:
        before = f.read()
    pods, addresses = start_pods(cluster, 2, "--test-compute-delay-ms", "400")
    summary = os.path.join(cluster.tmp, "summary.json")

    def scheduler():
        return cluster.scheduler(job["job"], addresses, "--cluster",
                                 job["cluster"], "--summary-json", summary)

    # Before any store: SIGINT as the job is planned.
    sched = scheduler()
    sent = []

    def on_planned(line):
        if not sent and "planned 'matmul'" in line:
            sched.send_signal(signal.SIGINT)
            sent.append(True)
            print("test| sent SIGINT to the scheduler", flush=True)

    code, lines = cluster.follow(sched, on_planned)
    check(code == -signal.SIGINT, f"the scheduler ended by SIGINT ({code})")
    check(no_partials(job["data"]) and not os.path.exists(journal_of(job)),
          "with no super-tile stored, no partial file or journal is left")
    # Mid-job: SIGTERM once 2 of the 6 units are stored.
    sched = scheduler()
    sent = []

    def on_line(line):
        m = re.search(r"progress: job: (\d+) of (\d+) units stored", line)
        if not sent and m and 2 <= int(m.group(1)) < int(m.group(2)):
            check(not no_partials(job["data"]), "the job has its partial output")
            sched.send_signal(signal.SIGTERM)
            sent.append(True)
            print("test| sent SIGTERM to the scheduler", flush=True)

    code, lines = cluster.follow(sched, on_line)
    check(code == -signal.SIGTERM, f"the scheduler ended by SIGTERM ({code})")
    said = [l for l in lines if "interrupted by SIGTERM" in l]
    check(len(said) == 1 and "run the same command again to resume" in said[0],
          "it said, in one line, how many super-tiles are kept and how to resume")
    check(not no_partials(job["data"]) and os.path.exists(journal_of(job)),
          "the partial output and the journal are kept")
    kept = int(re.search(r"stopped; (\d+) of 6 output super-tiles", said[0]).group(1))
    check(len(stored_lines(job)) == kept, "the line counts the journal's super-tiles")
    with open(job["output"], "rb") as f:
        check(f.read() == before, "the output is as it was")
    # The same command resumes.
    code, lines = cluster.follow(scheduler())
    check(code == 0, "the same command finished the job")
    check(any("resuming from the journal" in l for l in lines),
          "it resumed from the journal")
    with open(summary) as f:
        result = json.load(f)
    check(result["outcome"] == "done" and result["resumed_units"] >= 2,
          f"it skipped the units stored before SIGTERM ({result['resumed_units']})")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")
    check(no_partials(job["data"]) and not os.path.exists(journal_of(job)),
          "no partial file or journal is left")


def case_skip_compute(cluster):
    """Pods with --test-skip-compute (for measuring a job's loads and stores,
    bench/storage_roofline.py) run no leaf: the job stores every unit, no
    node is busy computing, and C is not the kernel's."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    pods, addresses = start_pods(cluster, 2, "--test-skip-compute",
                                 "--test-compute-delay-ms", "0")
    summary = os.path.join(cluster.tmp, "summary.json")
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], addresses, "--cluster", job["cluster"], "--summary-json",
        summary))
    check(code == 0, "the job finished")
    with open(summary) as f:
        result = json.load(f)
    busy = sum(n["busy_seconds"] for n in result["nodes"])
    stored = sum(n["stored_bytes"] for n in result["nodes"])
    print(f"test| busy {busy:.4f} s, stored {stored} bytes", flush=True)
    check(result["units_stored"] == 6 and stored == 384 * 256 * 4,
          "every unit was stored")
    check(busy < 0.05, "no node was busy computing")
    check(not compare(cluster, job["output"], job["reference"]),
          "C is not the kernel's (no leaf ran)")


def journal_of(job):
    return os.path.join(job["data"], ".c.tensor.phobos.journal")


def stored_lines(job):
    with open(journal_of(job)) as f:
        return [l.split() for l in f if l.startswith("stored ")]


def kill_after_stores(cluster, job, sched, at_least):
    """Follows the scheduler until its progress line says `at_least` units
    are stored (of a job not yet done), then kills it with SIGKILL."""
    killed = []

    def on_line(line):
        m = re.search(r"progress: job: (\d+) of (\d+) units stored", line)
        if not killed and m and at_least <= int(m.group(1)) < int(m.group(2)):
            sched.send_signal(signal.SIGKILL)
            killed.append(int(m.group(1)))
            print(f"test| killed the scheduler (kill -9) with {m.group(1)} of "
                  f"{m.group(2)} units stored", flush=True)

    code, lines = cluster.follow(sched, on_line)
    check(killed and code == -signal.SIGKILL, "the scheduler was killed mid-job")
    return lines


def case_resume(cluster):
    """The scheduler killed mid-job (kill -9, no chance to clean up) and
    started again on the same job: it reads the journal beside the output,
    reads back and verifies the super-tiles it lists, plans only the rest,
    and the output is the single-process run's bit for bit. A tile whose
    bytes in the partial output differ from the journal is computed again; a
    journal that does not parse is an error at its line."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    with open(job["output"], "rb") as f:
        before = f.read()
    pods, addresses = start_pods(cluster, 2, "--test-compute-delay-ms", "300")
    summary = os.path.join(cluster.tmp, "resume.json")

    def scheduler(*extra):
        return cluster.scheduler(job["job"], addresses, "--cluster",
                                 job["cluster"], "--summary-json", summary,
                                 *extra)

    kill_after_stores(cluster, job, scheduler(), 2)
    stored = stored_lines(job)
    print(f"test| the journal lists {len(stored)} stored super-tiles", flush=True)
    check(len(stored) >= 2, "the journal lists the stored super-tiles")
    check(not no_partials(job["data"]), "the partial output is left for a resume")
    with open(job["output"], "rb") as f:
        check(f.read() == before, "the output is as it was")
    code, lines = cluster.follow(scheduler())
    check(code == 0, "the restarted scheduler finished the job")
    check(any("resuming from the journal" in l and "read back and verified" in l
              for l in lines), "it resumed from the journal")
    with open(summary) as f:
        result = json.load(f)
    computed = sum(n["units"] for n in result["nodes"])
    print(f"test| resumed {result['resumed_units']} units, computed {computed}",
          flush=True)
    check(result["resumed_units"] >= len(stored) - 1 and
          result["resumed_units"] + computed == 6,
          "it computed only the units the first run had not stored")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")
    check(no_partials(job["data"]) and not os.path.exists(journal_of(job)),
          "no partial file and no journal are left")

    # A stored super-tile whose bytes did not reach the partial output.
    cluster.run(cluster.tool("phobos-tensor"), "convert", job["original"],
                job["output"])
    kill_after_stores(cluster, job, scheduler(), 1)
    tile = stored_lines(job)[0]
    row, col = (int(x) for x in tile[3].split(","))
    partial = [f for f in os.listdir(job["data"]) if f.endswith(".partial")][0]
    with open(os.path.join(job["data"], partial), "r+b") as f:
        f.seek((row * 256 + col) * 4)
        f.write(b"\xff\xff\xff\x7f")
    print(f"test| overwrote the first element of tile {tile[1]} in {partial}",
          flush=True)
    code, lines = cluster.follow(scheduler())
    check(code == 0, "the job finished")
    check(any(f"computing again tile {tile[1]} of C (the partial output holds "
              "other bytes than the journal recorded)" in l for l in lines),
          "the damaged tile is computed again")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")

    # A journal that does not parse: an error at its line, and --no-resume.
    cluster.run(cluster.tool("phobos-tensor"), "convert", job["original"],
                job["output"])
    kill_after_stores(cluster, job, scheduler(), 1)
    # A journal line whose tile id and place disagree (its bytes checked at
    # one place, another unit skipped): an error, not a wrong output.
    with open(journal_of(job)) as f:
        good = f.read()
    first = [l for l in good.splitlines() if l.startswith("stored ")][0].split()
    other = "5" if first[1] != "5" else "6"
    with open(journal_of(job), "w") as f:
        f.write(good.replace(" ".join(first), " ".join([first[0], other] + first[2:])))
    code, lines = cluster.follow(scheduler())
    check(code == 1 and any(f"lists tile {other} as C at {first[3]} (shape "
                            f"{first[4]}), which is not where this job's plan "
                            "puts it" in l for l in lines),
          "a journal line at the wrong place for its tile is an error")
    with open(journal_of(job), "w") as f:
        f.write(good)
    with open(journal_of(job), "a") as f:
        f.write("stored seven C 0,0 128,128 0\n")
    count = len(open(journal_of(job)).read().splitlines())
    code, lines = cluster.follow(scheduler())
    check(code == 1 and any(l.endswith(
        f".c.tensor.phobos.journal:{count}: expected 'stored ID TENSOR OFFSETS "
        "SHAPE CHECKSUM' (offsets and shape of one rank, 16 hex digits), got "
        "'stored seven C 0,0 128,128 0'; remove the journal, or run with "
        "--no-resume to start the job afresh") for l in lines),
          "a damaged journal is an error at its line")
    code, lines = cluster.follow(scheduler("--no-resume"))
    check(code == 0 and not any("resuming" in l for l in lines),
          "--no-resume starts afresh")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")
    check(no_partials(job["data"]) and not os.path.exists(journal_of(job)),
          "no partial file and no journal are left")


def case_status_cancel(cluster):
    """phobos-sched --status ADDR of a running job: its nodes, units stored
    and left, bytes moved and an ETA; --cancel ADDR stops it, and the
    scheduler removes its partial output."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    with open(job["output"], "rb") as f:
        before = f.read()
    sched_address = f"127.0.0.1:{cluster.scheduler_port}"

    def client(*argv):
        result = cluster.run(cluster.tool("phobos-sched"), *argv,
                             "--credentials", cluster.credentials, ok=False)
        for line in (result.stdout + result.stderr).splitlines():
            print(f"client| {line}", flush=True)
        return result

    # Waiting for a pod that never comes.
    waiting = cluster.scheduler(job["job"], f"127.0.0.1:{free_port()}",
                                "--cluster", job["cluster"])
    deadline = time.time() + START_SECONDS
    while time.time() < deadline:
        result = client("--status", sched_address)
        if result.returncode == 0:
            break
        time.sleep(0.2)
    check("waiting for pods, 0 of 1 joined" in result.stdout,
          "--status of a scheduler waiting for its pods")
    # Only the cluster's clients may look or stop: a wrong secret is refused.
    wrong = os.path.join(cluster.tmp, "wrong-secret")
    with open(wrong, "w") as f:
        f.write("not-the-cluster-secret-at-all\n")
    result = client("--cancel", sched_address, "--secret-file", wrong)
    check(result.returncode == 1 and
          f"the scheduler at {sched_address} answered UNAUTHENTICATED" in result.stderr,
          "--cancel with a wrong secret is refused with UNAUTHENTICATED")
    result = client("--status", sched_address, "--secret-file", wrong)
    check(result.returncode == 1 and "answered UNAUTHENTICATED" in result.stderr,
          "--status with a wrong secret is refused with UNAUTHENTICATED")
    check(waiting.poll() is None, "the scheduler still waits")
    result = client("--cancel", sched_address)
    check(result.returncode == 0 and "is cancelled" in result.stdout,
          "--cancel answers")
    code, lines = cluster.follow(waiting)
    check(code == 1 and any("cancelled by a client at" in l and
                            "no output was written" in l for l in lines),
          "the waiting scheduler stops, saying who cancelled it")

    # Slow enough units that the --cancel, a second phobos-sched started
    # after the --status on a loaded machine (each takes up to a second to
    # start there), still finds the job running: at 300 ms a unit, the job
    # once ended between the two.
    pods, addresses = start_pods(cluster, 2, "--test-compute-delay-ms", "800")
    sched = cluster.scheduler(job["job"], addresses, "--cluster", job["cluster"])
    asked = []

    def on_line(line):
        m = re.search(r"progress: job: (\d+) of 6 units stored", line)
        if not asked and m and 1 <= int(m.group(1)) < 6:
            asked.append(client("--status", sched_address))
            asked.append(client("--cancel", sched_address))

    code, lines = cluster.follow(sched, on_line)
    status = asked[0].stdout
    check(asked and asked[0].returncode == 0 and
          re.search(r"job [0-9a-f]{16} 'matmul' \(.*matmul.job\): running for", status),
          "--status names the job and how long it runs")
    check(re.search(r"units: [1-5] of 6 stored, [1-5] left; ETA [0-9.]+ s", status),
          "--status says the units stored and left and an ETA")
    check(re.search(r"moved [0-9.]+ (KiB|MiB): loaded", status) and
          re.search(r"\n  0 +127\.0\.0\.1:\d+ +(running|done) +\d/3", status),
          "--status says the bytes moved and each node's state")
    check(asked[1].returncode == 0, "--cancel of the running job answers")
    check(code == 1 and any("cancelled by a client at" in l and
                            "its partial outputs were removed" in l for l in lines),
          "the scheduler stops the job, saying who cancelled it")
    check(no_partials(job["data"]) and not os.path.exists(journal_of(job)),
          "no partial file and no journal are left")
    with open(job["output"], "rb") as f:
        check(f.read() == before, "the output is as it was")
    # The pods are free for the next job.
    code, _ = cluster.follow(cluster.scheduler(job["job"], addresses,
                                               "--cluster", job["cluster"]))
    check(code == 0 and compare(cluster, job["output"], job["reference"]),
          "the pods run the next job, and C equals the single-process run")
    result = client("--cancel", pods[0]["address"])
    check(result.returncode == 1 and "is a pod, not a scheduler" in result.stderr,
          "--cancel of a pod's address says it is a pod")


def case_min_pods(cluster):
    """--hostfile lists three pods of which one never comes: with
    --min-pods 2 the job starts with the two after --join-timeout (and a
    latecomer is refused); with --min-pods 3 it is an error."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    pods, _ = start_pods(cluster, 2)
    absent = f"127.0.0.1:{free_port()}"
    hostfile = os.path.join(cluster.tmp, "pods.txt")
    with open(hostfile, "w") as f:
        f.write(f"# the job's pods\n{pods[0]['address']}\n\n{absent}   # never starts\n"
                f"{pods[1]['address']}\n")
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], "", "--hostfile", hostfile, "--cluster", job["cluster"],
        "--join-timeout", "2", "--min-pods", "2"))
    check(code == 0, "the job finished")
    check(any(f"2 of 3 pods joined within 2 s, at least 2 wanted (--min-pods): "
              f"starting without {absent}; nodes 0 = {pods[0]['address']}, "
              f"1 = {pods[1]['address']}" in l for l in lines),
          "it started with the two pods that came")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], "", "--hostfile", hostfile, "--cluster", job["cluster"],
        "--join-timeout", "2", "--min-pods", "3"))
    check(code == 1 and any(f"1 of 3 pods did not join within 2 s: {absent}" in l
                            and "--min-pods 3 would start with 3 or more, and 2 "
                            "joined" in l for l in lines),
          "with --min-pods 3 the missing pod is an error")
    # Pods taken by rank from wherever they listen (--ranks, as under Slurm
    # or a Kubernetes indexed Job), in rank order whatever the join order.
    ranked = [cluster.start_pod(f"rank{r}", "--rank", str(r)) for r in (1, 0)]
    cluster.wait_addresses(ranked)
    # C is read and written (rmw): start again from its original content.
    cluster.run(cluster.tool("phobos-tensor"), "convert", job["original"],
                job["output"])
    code, lines = cluster.follow(cluster.scheduler(
        job["job"], "", "--ranks", "2", "--cluster", job["cluster"]))
    check(code == 0 and any(f"node 0 = {ranked[1]['address']} (rank 0) joined" in l
                            for l in lines),
          "with --ranks 2 the pods are nodes by their --rank")
    check(compare(cluster, job["output"], job["reference"]),
          "C equals the single-process run bit for bit")


class Slurm:
    """A one-node Slurm cluster on loopback for one test: slurmctld and
    slurmd in the foreground, their state and logs under the test's
    directory (the spool in a short one of /tmp), ports chosen as the
    scheduler's are. auth/none: nothing leaves the machine, and no munge
    daemon is needed."""

    def __init__(self, cluster, cpus=4):
        self.cluster = cluster
        self.dir = os.path.join(cluster.tmp, "slurm")
        os.makedirs(os.path.join(self.dir, "state"), exist_ok=True)
        # slurmstepd listens on a Unix socket named
        # <spool>/<node>_<job>.<step>, and a socket's path has at most 107
        # bytes: under a deep build directory (the CI's) the batch step's
        # "phobos-test_1.4294967291" no longer fits and every launch fails
        # (launch_failed_requeued_held). The spool is a short directory of
        # its own, removed by stop().
        self.spool = tempfile.mkdtemp(prefix="phobos-slurmd-",
                                      dir="/tmp" if os.path.isdir("/tmp") else None)
        longest = os.path.join(self.spool, "phobos-test_4294967295.4294967295")
        if len(longest.encode()) > 107:
            shutil.rmtree(self.spool, ignore_errors=True)
            raise Failure(f"the Slurm spool {self.spool} is too deep for "
                          f"slurmstepd's sockets (at most 107 bytes)")
        host = socket.gethostname().split(".")[0]
        # The daemons run as whoever runs the test (root is not needed:
        # jobs of the daemons' own user need no privileges).
        self.user = pwd.getpwuid(os.getuid()).pw_name
        conf = os.path.join(self.dir, "slurm.conf")
        d = self.dir
        with open(conf, "w") as f:
            f.write(f"""ClusterName=phobostest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/none
CredType=cred/none
SlurmUser={self.user}
SlurmdUser={self.user}
StateSaveLocation={d}/state
SlurmdSpoolDir={self.spool}
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=phobos-test NodeHostname={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes=phobos-test Default=YES MaxTime=INFINITE State=UP
""")
        self.env = dict(os.environ, SLURM_CONF=conf)
        self.daemons = []
        for argv in (["slurmctld", "-D", "-i", "-f", conf],
                     ["slurmd", "-D", "-N", "phobos-test", "-f", conf]):
            log = open(os.path.join(d, argv[0] + ".out"), "w")
            self.daemons.append(subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, env=self.env))
            time.sleep(0.5)
        try:
            self.wait_idle()
        except Failure:
            self.stop()
            raise

    def wait_idle(self):
        deadline = time.time() + START_SECONDS
        while time.time() < deadline:
            state = self.run("sinfo", "-h", "-o", "%t", ok=False).stdout.strip()
            if state == "idle":
                return
            for daemon in self.daemons:
                if daemon.poll() is not None:
                    raise Failure(f"{daemon.args[0]} exited: {self.logs()}")
            time.sleep(0.2)
        raise Failure(f"the Slurm node did not come up: {self.logs()}")

    def run(self, *argv, ok=True):
        result = subprocess.run(argv, capture_output=True, text=True,
                                env=self.env, timeout=60)
        if ok and result.returncode != 0:
            raise Failure(f"{' '.join(argv)} failed ({result.returncode}):\n"
                          f"{result.stdout}{result.stderr}")
        return result

    def logs(self):
        text = ""
        for name in ("slurmctld.out", "slurmd.out", "slurmctld.log", "slurmd.log"):
            path = os.path.join(self.dir, name)
            if os.path.exists(path):
                with open(path) as f:
                    text += f"--- {name} ---\n{f.read()[-3000:]}"
        return text

    def stop(self):
        """Cancels what is left, then stops both daemons and waits for them."""
        self.run("scancel", "--user", self.user, ok=False)
        time.sleep(0.5)
        for daemon in reversed(self.daemons):
            if daemon.poll() is None:
                daemon.terminate()
                try:
                    daemon.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    daemon.kill()
                    daemon.wait(timeout=10)
        shutil.rmtree(self.spool, ignore_errors=True)


def case_slurm(cluster):
    """phobos-sched as the batch step of a Slurm allocation of 3 tasks: it
    starts 3 interpreter pods, each a job step of its own (srun), and runs
    the matmul job; one pod's step is killed with scancel --signal=KILL
    mid-job, and the job ends with the exact output."""
    cluster.make_credentials()
    job = matmul_job(cluster, 384, 256, 256, (128, 128, 256))
    slurm = Slurm(cluster)
    try:
        script = os.path.join(cluster.tmp, "matmul.sbatch")
        output = os.path.join(cluster.tmp, "slurm-job.out")
        with open(script, "w") as f:
            f.write(f"""#!/bin/bash
#SBATCH --ntasks=3
#SBATCH --job-name=phobos-matmul
set -euo pipefail
exec {cluster.tool('phobos-sched')} {job['job']} --slurm \
    --listen 127.0.0.1:0 --credentials {cluster.credentials} \
    --cluster {job['cluster']} --heartbeat-ms 100 --progress-ms 100 \
    --pod-args '--interpret --threads 1 --test-compute-delay-ms 1000'
""")
        submitted = slurm.run("sbatch", "--parsable", f"--output={output}", script)
        job_id = submitted.stdout.strip().split(";")[0]
        print(f"test| submitted Slurm job {job_id}", flush=True)

        def text():
            if not os.path.exists(output):
                return ""
            with open(output) as f:
                return f.read()

        # The pod is killed once the job is planned and before its last
        # units are stored: any "progress: job" line up to 4 of 6 (the first
        # comes 100 ms after planning, the units take a second each on one
        # thread, two a pod), a window of about two seconds: with 400 ms a
        # unit it was under one, and a loaded machine (each poll below
        # starts squeue) could miss it.
        killed = None
        states = []
        deadline = time.time() + JOB_SECONDS
        while time.time() < deadline:
            if killed is None and re.search(r"progress: job: [0-4] of 6 units", text()):
                steps = slurm.run("squeue", "-h", "-s", "-j", job_id, "-o",
                                  "%i %j").stdout.split("\n")
                step = [l.split()[0] for l in steps if l.endswith(" phobos-pod-1")]
                if step:
                    slurm.run("scancel", "--signal=KILL", step[0])
                    killed = step[0]
                    print(f"test| scancel --signal=KILL {step[0]} (the pod of "
                          "rank 1)", flush=True)
            state = slurm.run("squeue", "-h", "-j", job_id, "-o", "%T",
                              ok=False).stdout.strip()
            if not state:
                break
            if not states or states[-1] != state:
                states.append(state)
            time.sleep(0.1)
        for line in text().splitlines():
            if "progress: node" not in line:
                print(f"slurm| {line}", flush=True)
        if not killed:
            # What the job did, where lit shows it (standard error comes
            # before FileCheck's complaint about standard output).
            accounting = slurm.run("scontrol", "show", "job", job_id, ok=False)
            shown = "\n".join(l for l in text().splitlines()
                              if "progress: node" not in l)
            print(f"slurm.test: no pod step was killed; the job went through "
                  f"{' -> '.join(states) or 'no state squeue saw'}\n"
                  f"{accounting.stdout}{accounting.stderr}\n"
                  f"--- job output ---\n{shown[-4000:]}\n{slurm.logs()}",
                  file=sys.stderr, flush=True)
        check(killed, "one pod's step was killed mid-job")
        accounting = slurm.run("scontrol", "show", "job", job_id, ok=False).stdout
        check(re.search(r"JobState=COMPLETED", accounting) or
              "'matmul' done in" in text(), "the Slurm job completed")
        check(re.search(r"sched: node \d \(127\.0\.0\.1:\d+\) lost: its "
                        r"connection closed", text()), "the scheduler lost that pod")
        check("wrote C to" in text(), "the scheduler wrote C")
        check(compare(cluster, job["output"], job["reference"]),
              "C equals the single-process run bit for bit")
        check(no_partials(job["data"]), "no partial file is left")

        # The attention job through sbatch too, every pod left alone.
        flash = flash_job(cluster, 3072, 192)
        with open(script, "w") as f:
            f.write(f"""#!/bin/bash
#SBATCH --ntasks=3
set -euo pipefail
exec {cluster.tool('phobos-sched')} {flash['job']} --slurm \\
    --listen 127.0.0.1:0 --credentials {cluster.credentials} \\
    --pod-args '--interpret --threads 1'
""")
        output = os.path.join(cluster.tmp, "slurm-flash.out")
        job_id = slurm.run("sbatch", "--parsable", f"--output={output}",
                           script).stdout.strip().split(";")[0]
        deadline = time.time() + JOB_SECONDS
        while time.time() < deadline and slurm.run(
                "squeue", "-h", "-j", job_id, "-o", "%T", ok=False).stdout.strip():
            time.sleep(0.1)
        for line in text().splitlines():
            if "progress: " not in line and "pod: " not in line:
                print(f"slurm| {line}", flush=True)
        check(compare(cluster, flash["output"], flash["reference"]),
              "O of the attention job equals the single-process run bit for bit")
    finally:
        slurm.stop()
    check(all(d.poll() is not None for d in slurm.daemons),
          "slurmctld and slurmd are stopped")


def run_on_cluster(args, name, body):
    """Runs `body(cluster)` on a fresh Cluster in an emptied args.tmp and
    returns the exit status: on a failure the message on both streams (lit
    shows standard error before FileCheck's error) and every pod's log."""
    shutil.rmtree(args.tmp, ignore_errors=True)
    os.makedirs(args.tmp)
    cluster = Cluster(args)
    try:
        body(cluster)
    except (Failure, subprocess.TimeoutExpired) as error:
        print(f"FAILED: {error}", flush=True)
        print(f"{name}: FAILED: {str(error)[-6000:]}", file=sys.stderr, flush=True)
        for pod in cluster.pods:
            print(f"--- {pod['name']} log ---\n{cluster.log(pod)}")
        return 1
    finally:
        cluster.stop()
    print("PASSED", flush=True)
    return 0


CASES = {name[len("case_"):]: f for name, f in globals().items()
         if name.startswith("case_")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--bin", required=True)
    parser.add_argument("--src", required=True)
    parser.add_argument("--tmp", required=True)
    args = parser.parse_args()
    return run_on_cluster(args, args.case, CASES[args.case])


if __name__ == "__main__":
    sys.exit(main())
