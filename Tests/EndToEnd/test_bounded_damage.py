"""Damage accounting is bounded: a time base or header that claims an absurd rate, and a
timestamp that jumps far ahead inside a run of damage, never make segrec count pictures at
that rate (at most 240 a second, at most 10 s per gap), the recording ends at once with a
manifest that `verify` passes, and a SIGINT ends it whatever it is doing.

The kind is built here from a clean VP8 IVF (ffmpeg's muxer) by editing the IVF headers the
way a fuzzer did for ../shared/cases/fuzz_hang_ivf_2bytes.ivf: the header's rate/scale and
one frame's timestamp, and that frame's size (past the end of the file, so the demuxer
delivers a short packet flagged corrupt and the stream's timestamps gap inside a run of
damage)."""
import os
import signal
import struct
import subprocess
import time

import pytest

import e2e_helpers as h

MOST_COUNTED = 240 * 10  # pictures one gap may count: 10 s at 240 fps


@pytest.fixture(scope="module")
def clean_ivf(tmp_path_factory):
    path = tmp_path_factory.mktemp("bounded-damage") / "clean.ivf"
    r = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "60",
               "-c:v", "libvpx", "-g", "30", "-b:v", "300k", path])
    assert r.returncode == 0, r.stderr
    return path.read_bytes()


def ivf_frames(data):
    """(offset of the 12-byte frame header, size) of every frame."""
    frames, at = [], struct.unpack_from("<H", data, 6)[0]
    while at + 12 <= len(data):
        size = struct.unpack_from("<I", data, at)[0]
        frames.append((at, size))
        at += 12 + size
    return frames


def mutate(data, rate, scale, jump_frame, jump_to, corrupt):
    b = bytearray(data)
    struct.pack_into("<II", b, 16, rate, scale)  # time base scale/rate as the header says
    frames = ivf_frames(data)
    at, size = frames[jump_frame]
    pts = struct.unpack_from("<Q", b, at + 4)[0]
    struct.pack_into("<Q", b, at + 4, pts + jump_to)
    if corrupt:
        struct.pack_into("<I", b, at, len(data) - at + 1000)
    return bytes(b)


VARIANTS = {  # rate, scale, frame whose timestamp jumps and whose size runs past the end, jump (ticks), size past the end
    "rate-90000-jump-at-frame-1": (90000, 1, 1, 2100000, True),
    "rate-2097182-jump-2^40-at-frame-1": (2097182, 1, 1, 2**40, True),
    "rate-2^31-1-jump-2^20-at-frame-2": (2**31 - 1, 1, 2, 2**20, True),
    "rate-1000000-jump-1e7-at-frame-3": (1000000, 1, 3, 10**7, True),
    "rate-30-jump-1e9-at-frame-12": (30, 1, 12, 10**9, True),
    "rate-90000-no-short-packet": (90000, 1, 1, 2100000, False),
}


def record(binary, source, out, timeout=60):
    start = time.monotonic()
    try:
        r = h.run([binary, "record", "--source", source, "--output", out, "--preset", "ultrafast", "--quiet"], timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"segrec record {source} still running after {timeout} s")
    return r, time.monotonic() - start


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_absurd_rate_and_jump_end_with_a_bounded_count(binary, clean_ivf, tmp_path, variant):
    source = tmp_path / f"{variant}.ivf"
    source.write_bytes(mutate(clean_ivf, *VARIANTS[variant]))
    r, seconds = record(binary, source, tmp_path / "rec")
    assert r.returncode >= 0, f"died of signal {-r.returncode}: {r.stderr}"
    assert seconds < 30, f"took {seconds:.1f} s"
    if r.returncode != 0:
        assert r.returncode == 65 and str(source) in r.stderr, r.stderr
        return
    m = h.load_manifest(tmp_path / "rec")
    assert m["frames"]["droppedReasons"].get("corrupt", 0) <= MOST_COUNTED * max(1, m["frames"].get("corruptPackets", 1))
    assert m["frames"]["received"] == m["frames"]["written"] + m["frames"]["dropped"]
    v = h.run([binary, "verify", tmp_path / "rec"])
    assert v.returncode == 0, v.stdout + v.stderr


@pytest.mark.skipif(not (h.CASES / "fuzz_hang_ivf_2bytes.ivf").exists(), reason="../shared/cases/fuzz_hang_ivf_2bytes.ivf absent")
def test_the_fuzzed_ivf_ends_and_verifies(binary, tmp_path):
    r, seconds = record(binary, h.CASES / "fuzz_hang_ivf_2bytes.ivf", tmp_path / "rec")
    assert r.returncode == 0 and seconds < 30, (r.returncode, seconds, r.stderr)
    m = h.load_manifest(tmp_path / "rec")
    assert m["frames"]["written"] == 2 and m["frames"]["corruptPackets"] == 1
    assert 0 < m["frames"]["droppedReasons"]["corrupt"] <= MOST_COUNTED
    assert h.run([binary, "verify", tmp_path / "rec"]).returncode == 0


def test_one_sigint_ends_a_recording_of_endless_input(binary, tmp_path):
    """A never-ending Y4M on stdin: the first SIGINT finishes the open segment and exits 0."""
    feeder = subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                               "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"], stdout=subprocess.PIPE)
    rec = subprocess.Popen([binary, "record", "--source", "-", "--output", str(tmp_path / "rec"), "--preset", "ultrafast",
                            "--quiet"], stdin=feeder.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    feeder.stdout.close()
    time.sleep(3)
    sent = time.monotonic()
    rec.send_signal(signal.SIGINT)
    try:
        _, err = rec.communicate(timeout=10)
    finally:
        feeder.kill()
        feeder.wait()
    assert rec.returncode == 0, err
    assert time.monotonic() - sent < 5
    m = h.load_manifest(tmp_path / "rec")
    assert m["stopReason"] == "requested", m["stopReason"]
    assert m["frames"]["written"] > 30
    assert h.run([binary, "verify", tmp_path / "rec"]).returncode == 0
