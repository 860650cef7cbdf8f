"""The room reserved for closing grows with the partial file (issue 44 item 5): a disk with
more free space never keeps fewer frames.

A 150-frame 320x240 Y4M (testsrc2 with noise: ~23 KB a frame at the default CRF) is
recorded from standard input onto a tmpfs of 0.9, 1.0, … 2.8 MB (needs root to mount; skipped
otherwise). Each run fills the disk (exit 74) and keeps what it finished in its reserved
room; the frames kept (the manifest's, each file decoded by ffprobe to as many) must never
fall as the free space grows. The build before reserved 1 MiB at the first write whatever
the partial's size: 19 frames kept on 1.0 MB, 50 on 1.1 MB, 5 on 1.2 MB."""
import json
import subprocess

import pytest

import e2e_helpers as h
from test_full_disk_recover import can_mount_tmpfs

SIZES = [tenth * 100_000 for tenth in range(9, 29)]  # 0.9 ... 2.8 MB


@pytest.fixture(scope="module")
def sweep(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("reservation-sweep")
    mount = work / "mnt"
    mount.mkdir()
    if not can_mount_tmpfs(mount):
        pytest.skip("reservation sweep: cannot mount a small tmpfs here (needs root)")
    y4m = work / "noise.y4m"
    r = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150",
               "-vf", "noise=alls=30:allf=t", "-pix_fmt", "yuv420p", y4m])
    assert r.returncode == 0, r.stderr
    results = []
    for size in SIZES:
        assert h.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mount]).returncode == 0
        try:
            with open(y4m, "rb") as stdin:
                run = subprocess.run([binary, "record", "--source", "-", "--output", str(mount / "rec"), "--quiet"],
                                     stdin=stdin, capture_output=True, text=True, timeout=120)
            m = h.load_manifest(mount / "rec")
            decoded = [h.count_frames(mount / "rec" / s["file"]) for s in m["segments"]]
            results.append((size, run.returncode, m, decoded, run.stderr.strip()))
        finally:
            h.run(["umount", mount])
    return results


def test_kept_frames_never_fall_as_free_space_grows(sweep):
    kept = [sum(s["frameCount"] for s in m["segments"]) for _, _, m, _, _ in sweep]
    table = ", ".join(f"{size / 1e6:.1f} MB: {k}" for (size, *_), k in zip(sweep, kept))
    assert all(a <= b for a, b in zip(kept, kept[1:])), f"kept frames by free space: {table}"
    assert kept[0] > 0 and kept[-1] > kept[0], table


def test_each_run_ends_on_the_full_disk_with_what_it_kept_playable(sweep):
    for size, code, m, decoded, stderr in sweep:
        assert code in (0, 74), f"{size / 1e6:.1f} MB: exit {code}: {stderr[-300:]}"
        if code == 74:
            assert "No space left on device" in stderr and m["stopReason"] == "error", (size, stderr, m["stopReason"])
        assert decoded == [s["frameCount"] for s in m["segments"]], (size, decoded, m["segments"])
