"""Issue 44, item 4: the folder's lock is held on the folder's descriptor, so deleting
`recording.lock` during a recording does not release it. A second `record --force` into the
folder is refused (exit 73, naming the folder as being recorded) and the first recording
finishes intact: every segment it wrote is there, read back by ffprobe, and `verify`
passes. On the build before, the second run took the folder: it deleted the live
recording's segments, its open `.partial` and its manifest."""
import os
import subprocess
import time

import e2e_helpers as h


def test_deleting_the_lock_file_does_not_release_the_folder(binary, tmp_path):
    clip = tmp_path / "clip.y4m"
    r = subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=64x48:r=30:d=3",
                        "-pix_fmt", "yuv420p", "-y", str(clip)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "rec"
    first = subprocess.Popen([binary, "record", "--source", str(clip), "--realtime", "--output", str(out), "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not (out / "recording.lock").exists():
            time.sleep(0.01)
        assert (out / "recording.lock").exists(), "the first recording never took its folder"
        os.unlink(out / "recording.lock")
        second = subprocess.run([binary, "record", "--source", str(clip), "--output", str(out), "--force"],
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 73, second.stderr
        assert "is being recorded by process" in second.stderr and str(out) in second.stderr, second.stderr
        assert first.poll() is None, "the second run must not end the first"
    finally:
        stdout, stderr = first.communicate(timeout=60)
    assert first.returncode == 0, stderr
    m = h.load_manifest(out)
    assert m["frames"]["written"] == m["frames"]["received"] == 90
    assert sum(s["frameCount"] for s in m["segments"]) == m["frames"]["written"]
    for s in m["segments"]:
        assert h.count_frames(out / s["file"]) == s["frameCount"], s["file"]
    v = subprocess.run([binary, "verify", str(out)], capture_output=True, text=True)
    assert v.returncode == 0, v.stdout + v.stderr
    assert not list(out.glob("*.partial"))
