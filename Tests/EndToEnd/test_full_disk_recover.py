"""Recover never makes things worse (issue 25 item 3), on real full disks (small tmpfs mounts,
so root; skipped with a message otherwise).

- A recording that fills a 300 KB, 1 MB, 4 MB or 14 MB disk: exit 74; `recover` run on the
  still-full disk either succeeds or exits 74 and changes nothing; after space is freed (a
  filler file placed before recording is removed) `recover` in place succeeds, and so does
  `recover` on a copy taken before anything ran; both keep at least every frame that was in a
  finished file or a complete fragment on the disk, and every file verifies.
- A recording killed while recording whose reserved room (`.tmp`) is gone, on a disk filled to
  the last byte: `recover` exits 74 and the folder is byte for byte as it was (before: the
  partial was renamed `.unrecoverable` and the manifest emptied); with room, a second run keeps
  the frames."""
import hashlib
import os
import shutil
import signal
import subprocess
import time

import pytest

import e2e_helpers as h


def can_mount_tmpfs(path):
    if os.geteuid() != 0:
        return False
    if h.run(["mount", "-t", "tmpfs", "-o", "size=1M", "tmpfs", path]).returncode != 0:
        return False
    h.run(["umount", path])
    return True


def frames_on_disk(folder):
    """Frames of finished files plus packets ffprobe reads from partial files, less the 3 that
    may be incomplete at a partial's end (as test_crash_safety.py counts them)."""
    total = 0
    for f in sorted(folder.iterdir()):
        if f.name.startswith("segment-") and (f.name.endswith(".mp4") or f.name.endswith(".mp4.partial")):
            probe = h.run(["ffprobe", "-v", "quiet", "-select_streams", "v:0", "-count_packets",
                           "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", f])
            n = int((probe.stdout.strip() or "0").splitlines()[0])
            total += max(0, n - 3) if f.name.endswith(".partial") else n
    return total


def snapshot(folder):
    """Every name with its size and content hash: what "changed nothing" compares (but
    recording.lock, which holds the pid of whoever last took the folder)."""
    return {f.name: (f.stat().st_size, hashlib.sha256(f.read_bytes()).hexdigest())
            for f in sorted(folder.iterdir()) if f.is_file() and not f.is_symlink() and f.name != "recording.lock"}


def kept_frames(folder):
    m = h.load_manifest(folder)
    return sum(s["frameCount"] for s in m["segments"]), m


def file_frames_match(folder, manifest):
    for s in manifest["segments"]:
        probe = h.run(["ffprobe", "-v", "quiet", "-select_streams", "v:0", "-count_packets",
                       "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", folder / s["file"]])
        if int((probe.stdout.strip() or "0").splitlines()[0]) != s["frameCount"]:
            return False
    return True


SIZES = {"300-KB": ("300k", 60 * 1024, "stdin"), "1-MB": ("1M", 200 * 1024, "stdin"),
         "4-MB": ("4M", 512 * 1024, "synthetic"), "14-MB": ("14M", 1024 * 1024, "synthetic")}


@pytest.fixture(scope="module")
def full_disks(binary, tmp_path_factory, notes):
    work = tmp_path_factory.mktemp("full-disk-recover")
    tiny = work / "tiny"
    tiny.mkdir()
    if not can_mount_tmpfs(tiny):
        pytest.skip("full-disk recover: cannot mount a small tmpfs here (needs root)")
    y4m = work / "full.y4m"
    h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-frames:v", "300",
           "-pix_fmt", "yuv420p", y4m])
    done = {}

    def get(label):
        if label in done:
            return done[label]
        size, filler_bytes, kind = SIZES[label]
        h.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", tiny])
        try:
            filler = tiny / "filler"
            filler.write_bytes(b"\0" * filler_bytes)
            args = ["--source", "-", "--stamp-frame-index"] if kind == "stdin" else ["--source", "synthetic"]
            with open(y4m, "rb") if kind == "stdin" else open(os.devnull, "rb") as stdin:
                full = subprocess.run([binary, "record", *args, "--output", str(tiny / "rec"), "--preset", "ultrafast",
                                       "--quiet"], capture_output=True, stdin=stdin)
            rec = tiny / "rec"
            copy = work / f"copy-{label}"
            shutil.copytree(rec, copy, symlinks=True)
            on_disk = frames_on_disk(rec)
            before = snapshot(rec)
            still_full = h.run([binary, "recover", rec])
            untouched = snapshot(rec) == before
            filler.unlink()
            in_place = h.run([binary, "recover", rec])
            verify_in_place = h.run([binary, "verify", rec])
            kept_in_place, m_in_place = kept_frames(rec)
            match_in_place = file_frames_match(rec, m_in_place)
        finally:
            h.run(["umount", tiny])
        on_copy = h.run([binary, "recover", copy])
        verify_copy = h.run([binary, "verify", copy])
        kept_copy, m_copy = kept_frames(copy)
        notes.append(f"full disk {label}: {on_disk} frames on disk, kept {kept_in_place} in place (recover on the full disk: "
                     f"exit {still_full.returncode}), {kept_copy} on a copy")
        done[label] = dict(full=full, on_disk=on_disk, still_full=still_full, untouched=untouched, in_place=in_place,
                           verify_in_place=verify_in_place, kept_in_place=kept_in_place, match_in_place=match_in_place,
                           m_in_place=m_in_place, on_copy=on_copy, verify_copy=verify_copy, kept_copy=kept_copy,
                           match_copy=file_frames_match(copy, m_copy), m_copy=m_copy)
        return done[label]
    return get


sizes = pytest.mark.parametrize("label", list(SIZES))


def verifies(result, manifest):
    """verify passes, or (a recording that failed on the full disk) every file verifies and the
    only FAIL is the manifest's record of the failure."""
    if manifest["stopReason"] == "error":
        return result.returncode == 1 and result.stdout.count("FAIL") == 1 and "the manifest says the recording failed" in result.stdout
    return result.returncode == 0


@sizes
def test_full_disk_recording_exits_74(full_disks, label):
    full = full_disks(label)["full"]
    assert full.returncode == 74, full.stderr.decode()[-300:]


@sizes
def test_full_disk_recover_on_the_full_disk_succeeds_or_changes_nothing(full_disks, label):
    r = full_disks(label)
    assert r["still_full"].returncode == 0 or (r["still_full"].returncode == 74 and r["untouched"]), \
        f"exit {r['still_full'].returncode}, untouched {r['untouched']}: {(r['still_full'].stdout + r['still_full'].stderr)[-300:]}"


@sizes
def test_full_disk_recover_in_place_after_freeing_space_keeps_the_frames_on_disk(full_disks, label):
    r = full_disks(label)
    assert r["in_place"].returncode == 0, (r["in_place"].stdout + r["in_place"].stderr)[-400:]
    assert r["kept_in_place"] > 0 and r["kept_in_place"] >= r["on_disk"] and r["match_in_place"], \
        f"kept {r['kept_in_place']}, on disk {r['on_disk']}, files match manifest {r['match_in_place']}"
    assert verifies(r["verify_in_place"], r["m_in_place"]), r["verify_in_place"].stdout[-500:]


@sizes
def test_full_disk_recover_on_a_copy_keeps_the_frames_on_disk(full_disks, label):
    r = full_disks(label)
    assert r["on_copy"].returncode == 0, (r["on_copy"].stdout + r["on_copy"].stderr)[-400:]
    assert r["kept_copy"] == r["kept_in_place"] and r["kept_copy"] >= r["on_disk"] and r["match_copy"], \
        f"kept {r['kept_copy']} on the copy, {r['kept_in_place']} in place, on disk {r['on_disk']}"
    assert verifies(r["verify_copy"], r["m_copy"]), r["verify_copy"].stdout[-500:]


@pytest.fixture(scope="module")
def no_room(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("no-room")
    tiny = work / "tiny"
    tiny.mkdir()
    if not can_mount_tmpfs(tiny):
        pytest.skip("recover without room: cannot mount a small tmpfs here (needs root)")
    scenario = h.write_json(work / "switching.json", {
        "device": {"format": 1280, "fps": 30, "initialAspectRatio": "16x9"},
        "sessionStartSeconds": 1.0, "durationSeconds": 30.0,
        "events": [{"atSeconds": float(s), "setDynamicAspectRatio": ["9x16", "1x1"][s % 2]} for s in range(1, 30)]})
    h.run(["mount", "-t", "tmpfs", "-o", "size=64M", "tmpfs", tiny])
    try:
        rec = tiny / "rec"
        proc = subprocess.Popen([binary, "record", "--source", "synthetic", "--scenario", str(scenario), "--output",
                                 str(rec), "--realtime", "--preset", "ultrafast", "--quiet"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2.6)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for f in rec.iterdir():
            if f.name.endswith(".tmp"):
                f.unlink()  # no reserved room left
        on_disk = frames_on_disk(rec)
        partials = sorted(f.name for f in rec.iterdir() if f.name.endswith(".partial"))
        # Fill the disk to the last byte.
        try:
            with open(tiny / "filler", "wb") as f:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
        except OSError:
            pass
        for n in range(64):  # and the odd bytes
            try:
                (tiny / f"odd-{n}").write_bytes(b"\0" * 512)
            except OSError:
                break
        before = snapshot(rec)
        full = h.run([binary, "recover", rec])
        after_full = snapshot(rec)
        for f in tiny.iterdir():
            if f.name != "rec":
                f.unlink()
        later = h.run([binary, "recover", rec])
        verify = h.run([binary, "verify", rec])
        kept, manifest = kept_frames(rec)
        match = file_frames_match(rec, manifest)
    finally:
        h.run(["umount", tiny])
    changed = sorted(k for k in set(before) | set(after_full) if before.get(k) != after_full.get(k))
    return dict(partials=partials, on_disk=on_disk, full=full, untouched=before == after_full, changed=changed, later=later,
                verify=verify, kept=kept, match=match)


def test_recover_without_room_exits_74_and_changes_nothing(no_room):
    r = no_room
    assert r["partials"], "the kill left no .partial file: nothing to test"
    assert r["full"].returncode == 74 and r["untouched"], \
        f"exit {r['full'].returncode}, changed {r['changed']}: {(r['full'].stdout + r['full'].stderr)[-300:]}"
    assert "changed nothing" in r["full"].stderr, r["full"].stderr[-300:]


def test_recover_with_room_later_keeps_the_frames(no_room):
    r = no_room
    assert r["later"].returncode == 0 and r["verify"].returncode == 0, (r["later"].stdout + r["verify"].stdout)[-500:]
    assert r["kept"] >= r["on_disk"] and r["kept"] > 0 and r["match"], f"kept {r['kept']}, on disk {r['on_disk']}"
