"""Something planted at `manifest.json.tmp` never blocks `recover` (issue 44 item 9): a
symbolic link, a FIFO or a folder at the journal's temporary name is set aside as
`manifest.json.tmp.unlisted` (renamed: never followed, opened or emptied), named in a
warning, and the recording is recovered; `verify` passes and ffprobe decodes the recovered
file to the manifest's frame count. The build before exited 74 naming it until it was
removed by hand."""
import os
import signal
import subprocess
import time

import pytest

import e2e_helpers as h


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder"])
def test_a_planted_temporary_does_not_block_recover(binary, tmp_path, kind):
    rec = tmp_path / "rec"
    p = subprocess.Popen([binary, "record", "--source", "synthetic", "--realtime", "--output", str(rec), "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline and not list(rec.glob("segment-001.mp4*")):
        time.sleep(0.05)
    time.sleep(0.5)
    p.send_signal(signal.SIGKILL)
    p.wait()
    planted = rec / "manifest.json.tmp"
    bait = tmp_path / "bait.txt"
    bait.write_text("not segrec's")
    if kind == "symlink":
        os.symlink(bait, planted)
    elif kind == "fifo":
        os.mkfifo(planted)
    else:
        planted.mkdir()
        (planted / "keep.txt").write_text("mine")
    r = h.run([binary, "recover", rec], timeout=60)
    assert r.returncode == 0, r.stderr
    aside = rec / "manifest.json.tmp.unlisted"
    assert not os.path.lexists(planted) and os.path.lexists(aside)
    assert bait.read_text() == "not segrec's"
    if kind == "folder":
        assert (aside / "keep.txt").read_text() == "mine"
    m = h.load_manifest(rec)
    assert m["stopReason"] == "interrupted" and m["segments"], m["stopReason"]
    assert any("manifest.json.tmp was not a regular file" in w for w in m["warnings"]), m["warnings"]
    for seg in m["segments"]:
        assert h.count_frames(rec / seg["file"]) == seg["frameCount"]
    assert h.run([binary, "verify", rec]).returncode == 0
