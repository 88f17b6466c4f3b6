"""A real dask cluster: a scheduler and workers as processes of their own, as on a farm of machines.

A run on it gives the rows of a local run; a worker killed mid-run is replaced by the others; a
scheduler killed mid-run ends the run in one line, exit 1, with a directory the same command resumes.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hadara_sim.results import load_results
from hadara_sim.runner import run
from hadara_sim.scenario.read import load_scenario

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups")

CLI = [sys.executable, "-c", "from hadara_sim.cli import main; main()"]
SCENARIO = """
name = "cluster"
players = 3
policies = ["greedy", "random", "balanced"]
games = {games}
chunk = {chunk}
seed = 11
"""


def scenario(tmp_path, games, chunk):
    path = tmp_path / f"cluster-{games}.toml"
    path.write_text(textwrap.dedent(SCENARIO.format(games=games, chunk=chunk)))
    return path


def start(args, log: Path):
    """A process in a session of its own (the test kills it with everything it started)."""
    return subprocess.Popen(args, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)


def stop(proc, sig=signal.SIGKILL):
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


def scheduler_address(file: Path, deadline: float) -> str:
    """The address the scheduler writes to its file, read once the file is whole: it is created
    before its contents are written (a fresh-clone CI read it empty)."""
    while True:
        try:
            return json.loads(file.read_text())["address"]
        except (OSError, ValueError, KeyError):
            if time.time() > deadline:
                raise
            time.sleep(0.1)


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two single-threaded workers; yields (address, scheduler, workers)."""
    file = tmp_path / "scheduler.json"
    scheduler = start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                       "--no-dashboard", "--scheduler-file", str(file)], tmp_path / "scheduler.log")
    procs = [scheduler]
    try:
        address = scheduler_address(file, deadline=time.time() + 60)
        workers = [start([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                          "--nworkers", "1", "--no-dashboard", "--no-nanny"], tmp_path / f"worker{i}.log")
                   for i in range(2)]
        procs += workers
        with distributed.Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, scheduler, workers
    finally:
        for proc in procs:
            stop(proc)


def test_a_run_on_a_cluster_equals_a_local_run(cluster, tmp_path):
    address, _, _ = cluster
    path = scenario(tmp_path, games=30, chunk=10)
    run(load_scenario(path), tmp_path / "local", jobs=1)
    summary = run(load_scenario(path), tmp_path / "dask", backend="dask", scheduler=address)
    assert summary.played == 3
    local, remote = (load_results(tmp_path / d) for d in ("local", "dask"))
    assert remote.equals(local)


def _start_long_run(tmp_path, address):
    out = tmp_path / "out"
    proc = subprocess.Popen([*CLI, "simulate", str(scenario(tmp_path, games=400_000, chunk=2_000)), "--quiet",
                             "--out", str(out), "--backend", "dask", "--scheduler", address],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while len(list(out.glob("part-*.parquet"))) < 2 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    return proc, out


def test_a_killed_worker_is_replaced_by_the_others(cluster, tmp_path):
    address, _, workers = cluster
    proc, out = _start_long_run(tmp_path, address)
    stop(workers[0])
    time.sleep(3)
    assert proc.poll() is None, proc.communicate()  # still playing, on the other worker
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in stdout + stderr, stdout + stderr


def test_a_killed_scheduler_ends_the_run_in_one_line_and_it_resumes(cluster, tmp_path):
    address, scheduler, _ = cluster
    proc, out = _start_long_run(tmp_path, address)
    stop(scheduler)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stdout + stderr
    assert "Traceback" not in stdout + stderr
    said = " ".join(stderr.split())
    assert said.count("error:") == 1 and "the connection to the dask scheduler was lost" in said, said
    assert "run the same command again" in said and "chunks are complete" in said, said
    assert json.loads((out / "metadata.json").read_text())["status"] == "failed"
    played = len(list(out.glob("part-*.parquet")))
    assert played >= 2
    before = {f.name: f.read_bytes() for f in out.glob("part-*.parquet")}

    def one_more(chunk, played):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # the same run, resumed locally for one more chunk
        run(load_scenario(scenario(tmp_path, games=400_000, chunk=2_000)), out, jobs=1, after_chunk=one_more)
    after = {f.name: f.read_bytes() for f in out.glob("part-*.parquet")}
    assert len(after) == len(before) + 1 and all(after[name] == data for name, data in before.items())
