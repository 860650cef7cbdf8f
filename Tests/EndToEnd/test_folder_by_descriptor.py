"""Issue 44, item 3: the recorder holds its folder by descriptor. The output folder is
renamed mid-recording and a symbolic link to another recording is put at its name: every
later segment, the manifest and the lock file's removal go to the folder segrec opened (now
under its new name), the other recording is untouched byte for byte, and the manifest says
where the files went. On the build before, segrec followed the name: it wrote its next
segment and its manifest into the other recording."""
import os
import subprocess
import time

import e2e_helpers as h


def test_a_renamed_folder_swapped_for_a_link_never_redirects_a_write(binary, tmp_path):
    clip = tmp_path / "clip.y4m"
    r = subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=64x48:r=30:d=4", "-pix_fmt", "yuv420p", "-y", str(clip)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    victim = tmp_path / "victim"
    r = subprocess.run([binary, "record", "--source", str(clip), "--output", str(victim), "--quiet"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    before = h.tree_digest(victim)
    out = tmp_path / "rec"
    proc = subprocess.Popen([binary, "record", "--source", str(clip), "--realtime", "--max-segment-duration", "1", "--output", str(out), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and not (out / "segment-000.mp4.partial").exists():
        time.sleep(0.01)
    assert (out / "segment-000.mp4.partial").exists(), "the recording never opened its first segment"
    moved = tmp_path / "rec-moved"
    os.rename(out, moved)
    os.symlink(victim, out)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert h.tree_digest(victim) == before, "the other recording was written to"
    m = h.load_manifest(moved)
    assert m["frames"]["received"] == m["frames"]["written"] == 120
    assert [s["frameCount"] for s in m["segments"]] == [30, 30, 30, 30]
    for s in m["segments"]:
        assert h.count_frames(moved / s["file"]) == s["frameCount"], s["file"]
    assert any(f"the output folder {out} was renamed or replaced" in w and str(moved) in w for w in m["warnings"]), m["warnings"]
    assert not (moved / "recording.lock").exists() and not list(moved.glob("*.partial"))
    v = subprocess.run([binary, "verify", str(moved)], capture_output=True, text=True)
    assert v.returncode == 0, v.stdout + v.stderr
