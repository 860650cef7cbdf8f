"""Fixtures of the end-to-end tests: the release binary (built once per session), the
session's temporary folders (removed at the end unless --keep-tmp), and the shared
recordings (each made once, when the first test that needs it runs).

  python3 -m pytest Tests/EndToEnd -rs -q                 # everything
  python3 -m pytest Tests/EndToEnd -k "test_one_size and rapid-flips/segment"
  python3 -m pytest Tests/EndToEnd --collect-only -q      # list the checks

Checks on recordings with several segments are parametrized per segment from
segment_layout.json (the startReason of every segment of every such recording); when a
change to segrec changes a layout on purpose, `--update-layout -k test_segment_layout`
rewrites the file from the recordings it makes.
"""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

import e2e_helpers as h
import recordings as catalog

LAYOUT_PATH = pathlib.Path(__file__).with_name("segment_layout.json")


def pytest_addoption(parser):
    group = parser.getgroup("segrec")
    group.addoption("--keep-tmp", action="store_true",
                    help="keep the session's temporary folder (recordings, exports) instead of removing it")
    group.addoption("--update-layout", action="store_true",
                    help="rewrite segment_layout.json from the recordings test_segment_layout makes")


def pytest_configure(config):
    config._segrec_notes = []
    config._segrec_layout_updates = {}


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    notes = getattr(config, "_segrec_notes", [])
    if notes:
        terminalreporter.section("segrec measurements")
        for line in notes:
            terminalreporter.write_line(line)


def pytest_sessionfinish(session, exitstatus):
    updates = getattr(session.config, "_segrec_layout_updates", {})
    if updates:
        layout = load_layout()
        layout.update(updates)
        write_layout(layout)


def write_layout(layout):
    """One recording a line: KEY: [startReason of every segment]."""
    lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(layout.items())]
    LAYOUT_PATH.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def load_layout():
    return json.loads(LAYOUT_PATH.read_text()) if LAYOUT_PATH.exists() else {}


@pytest.fixture(scope="session", autouse=True)
def _remove_tmp(request, tmp_path_factory):
    """pytest 7.2 has no tmp_path_retention_policy: remove this session's folders at the end."""
    yield
    if not request.config.getoption("--keep-tmp"):
        shutil.rmtree(tmp_path_factory.getbasetemp(), ignore_errors=True)


@pytest.fixture(scope="session")
def binary():
    """The release binary, built (incrementally: a no-op when nothing changed) once per session;
    SEGREC_BINARY=PATH runs the checks against another build instead (e.g. an older one, to see
    which checks a change makes pass)."""
    if os.environ.get("SEGREC_BINARY"):
        return os.environ["SEGREC_BINARY"]
    swift = shutil.which("swift") or "/opt/swift/usr/bin/swift"
    build = subprocess.run([swift, "build", "-c", "release", "--product", "segrec"], cwd=h.ROOT,
                           capture_output=True, text=True)
    if build.returncode != 0:
        pytest.exit(f"swift build -c release --product segrec failed:\n{build.stdout[-3000:]}\n{build.stderr[-3000:]}",
                    returncode=1)
    path = h.ROOT / ".build" / "release" / "segrec"
    assert path.exists(), f"{path} missing after the build"
    return str(path)


@pytest.fixture(scope="session")
def recordings(binary, tmp_path_factory):
    """The shared recordings of recordings.py, each made once per session on first use."""
    return catalog.Recordings(binary, tmp_path_factory.mktemp("recordings"))


@pytest.fixture(scope="session")
def notes(pytestconfig):
    """Lines printed in the run's summary (measurements such as seconds lost to kill -9)."""
    return pytestconfig._segrec_notes


@pytest.fixture(scope="session")
def layout_updates(pytestconfig):
    return pytestconfig._segrec_layout_updates if pytestconfig.getoption("--update-layout") else None


# ---- parametrizing over the segments of shared recordings ----

def segment_params(keys, select=None, pairs=False):
    """pytest params (key, index) for every segment of each recording in `keys` that
    segment_layout.json lists, with ids KEY/segment-NNN.mp4; `select(index, reason)`
    keeps some; `pairs` gives one param per pair of neighbours (KEY/segment-NNN.mp4+segment-MMM.mp4)."""
    layout = load_layout()
    params = []
    for key in keys:
        reasons = layout.get(key, [])
        if pairs:
            params += [pytest.param(key, i, id=f"{key}/segment-{i:03d}.mp4+segment-{i + 1:03d}.mp4")
                       for i in range(len(reasons) - 1)]
        else:
            params += [pytest.param(key, i, id=f"{key}/segment-{i:03d}.mp4")
                       for i, r in enumerate(reasons) if select is None or select(i, r)]
    return params
