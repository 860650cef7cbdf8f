"""Out of inodes (issue 44 item 9): the one-line error says what the folder holds. On a tmpfs
with 3 inodes (the mount, the folder, nothing more) `record` cannot create its journal or
its first segment: exit 74, "0 finished segments kept; no manifest could be written", and
the folder is empty. The build before said "1 finished segment kept" (the journal's count
of a segment whose file was never created). Needs root to mount; skipped otherwise."""
import subprocess

import pytest

import e2e_helpers as h
from test_full_disk_recover import can_mount_tmpfs


def test_out_of_inodes_names_what_is_kept(binary, tmp_path):
    mount = tmp_path / "mnt"
    mount.mkdir()
    if not can_mount_tmpfs(mount):
        pytest.skip("inode exhaustion: cannot mount a small tmpfs here (needs root)")
    clip = tmp_path / "clip.y4m"
    r = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30", "-frames:v", "30",
               "-pix_fmt", "yuv420p", clip])
    assert r.returncode == 0, r.stderr
    assert h.run(["mount", "-t", "tmpfs", "-o", "size=10M,nr_inodes=3", "tmpfs", mount]).returncode == 0
    try:
        r = subprocess.run([binary, "record", "--source", str(clip), "--output", str(mount / "rec")], capture_output=True,
                           text=True, timeout=60)
        names = sorted(p.name for p in (mount / "rec").iterdir())
    finally:
        h.run(["umount", mount])
    assert r.returncode == 74, r.stderr
    assert names == [], names
    line = r.stderr.strip().splitlines()[-1]
    assert "No space left on device" in line and line.endswith("(recording stopped; 0 finished segments kept; no manifest could be written)"), line
