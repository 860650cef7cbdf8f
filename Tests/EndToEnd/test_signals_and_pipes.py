"""Issue 44, item 6: a closed terminal (SIGHUP) finishes a recording like SIGTERM, and a
stream whose reader is gone (SIGPIPE, EPIPE) never kills segrec: writes to it are dropped
and the recording finishes. Each check reads the result back with ffprobe and `verify`;
on the build before, SIGHUP killed the process like kill -9 and the first write to a
closed stderr or stdout killed it with SIGPIPE (exit 141)."""
import signal
import subprocess
import time

import e2e_helpers as h


def tiny_y4m(tmp_path, frames=30):
    """A 64x48 YUV4MPEG2 clip of `frames` frames at 30 fps, made by ffmpeg."""
    clip = tmp_path / "tiny.y4m"
    r = subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=s=64x48:r=30:d={frames / 30}",
                        "-pix_fmt", "yuv420p", "-y", str(clip)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return clip


def wait_for_first_segment(out, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline and not list(out.glob("segment-000.mp4*")):
        time.sleep(0.01)
    time.sleep(0.3)


def finished_and_verified(binary, out, reason):
    m = h.load_manifest(out)
    frames = sum(len(h.ffprobe_frames(out / s["file"])) for s in m["segments"])
    v = h.run([binary, "verify", out])
    return m["stopReason"] == reason and frames == m["frames"]["written"] > 0 and v.returncode == 0, \
        f"stopReason {m['stopReason']}, {frames} frames in the files, {m['frames']['written']} written, verify {v.returncode}"


def test_sighup_mid_recording_finishes_like_sigterm(binary, tmp_path):
    out = tmp_path / "sighup"
    p = subprocess.Popen([binary, "record", "--output", str(out), "--preset", "ultrafast"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for_first_segment(out)
    p.send_signal(signal.SIGHUP)
    _, err = p.communicate(timeout=120)
    ok, detail = finished_and_verified(binary, out, "requested")
    assert p.returncode == 0 and ok, f"exit {p.returncode}: {detail} {err.decode()[-300:]}"


def test_ctrl_c_after_the_stderr_reader_is_gone_still_finishes_the_recording(binary, tmp_path):
    out = tmp_path / "stderr-gone"
    p = subprocess.Popen([binary, "record", "--output", str(out), "--preset", "ultrafast"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p.stderr.close()  # the reader is gone: the "stopping" line meets EPIPE
    wait_for_first_segment(out)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=120)
    ok, detail = finished_and_verified(binary, out, "requested")
    assert p.returncode == 0 and ok, f"exit {p.returncode}: {detail}"


def test_verbose_with_the_stderr_reader_gone_records_everything(binary, tmp_path):
    clip = tiny_y4m(tmp_path)
    out = tmp_path / "verbose-gone"
    p = subprocess.Popen([binary, "record", "--source", str(clip), "--output", str(out), "--verbose", "--preset", "ultrafast"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p.stderr.close()  # FFmpeg's log lines, printed with --verbose, meet EPIPE
    p.wait(timeout=120)
    ok, detail = finished_and_verified(binary, out, "endOfStream")
    assert p.returncode == 0 and ok, f"exit {p.returncode}: {detail}"
    assert h.load_manifest(out)["frames"]["written"] == 30


def test_a_complete_recording_whose_stdout_reader_is_gone_exits_0(binary, tmp_path):
    clip = tiny_y4m(tmp_path)
    out = tmp_path / "stdout-gone"
    p = subprocess.Popen([binary, "record", "--source", str(clip), "--output", str(out), "--preset", "ultrafast"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdout.close()  # the summary meets EPIPE
    p.wait(timeout=120)
    ok, detail = finished_and_verified(binary, out, "endOfStream")
    assert p.returncode == 0 and ok, f"exit {p.returncode}: {detail}"
