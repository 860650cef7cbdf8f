"""Issue 42, item 2 (live faults): a live sender that goes away and comes back, at a new size,
is recorded across the outage. segrec reconnects to a pulled URL, or listens again for the next
sender (RTMP, SRT, RTSP pushed into `--listen`), for `--reconnect-for` seconds; the new
connection's pictures start a new segment at their first frame (a new size), placed on the
session clock after the outage (their own timestamps back at the start are a new timeline, not
a jump back), with a `liveSourceReconnected` event giving the outage's length. Every frame each
sender sent is in the files (`segrec verify` passes, ffprobe counts them), with sound in both.
A sender that goes silent neither hangs segrec nor ends it before the window; random bytes give
a clear error or counted damage, never a crash. Real senders (ffmpeg; python's http.server for
HLS) on 127.0.0.1 only; every test bounded in time. On the build before (e1d0ac1), the first
outage ended the recording (and `--reconnect-for` was an unknown option, exit 64)."""
import http.server
import os
import signal
import socket
import subprocess
import threading
import time

import pytest

import e2e_helpers as h
from test_live_sources import free_port, wait_for_port, segments_read_back


def send(url, size, seconds=2, fmt="mpegts", extra=()):
    """ffmpeg sends `seconds` of a testsrc2 picture of `size` at 30 fps with a 440 Hz tone
    (AAC) in real time to `url`; returns when it is done."""
    r = subprocess.run(["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", f"testsrc2=s={size}:r=30:d={seconds}",
                        "-f", "lavfi", "-i", f"sine=f=440:r=48000:d={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
                        "-g", "30", "-c:a", "aac", *extra, "-f", fmt, url], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def record(binary, out, *args):
    return subprocess.Popen([binary, "record", "--output", str(out), "--quiet", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def audio_of(path):
    """(codec, decoded samples) of the file's audio stream, read back by ffprobe."""
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,duration_ts",
                 "-of", "csv=p=0", str(path)]).stdout.strip()
    assert out, f"{path}: no audio stream"
    codec, samples = out.split(",")
    return codec, int(samples)


def check_restart(binary, out, proc, started, sent_frames=(60, 60)):
    """The recording of a sender at 320x240 then one at 640x360: two segments split at the new
    sender's first frame, every frame of each, sound in both, the outage as an event, verify ok."""
    stdout, stderr = proc.communicate(timeout=90)
    assert proc.returncode == 0, stderr
    m, got = segments_read_back(out)
    assert got == [(320, 240, sent_frames[0]), (640, 360, sent_frames[1])], (got, m["warnings"])
    assert m["segments"][1]["startReason"] == "dimensionsChanged"
    assert m["frames"]["received"] == m["frames"]["written"] == sum(sent_frames)
    assert not m["frames"].get("corruptPackets"), m["warnings"]
    events = [e for e in m.get("events", []) if e["kind"] == "liveSourceReconnected"]
    assert len(events) == 1, m.get("events")
    # The new connection's first frame, after the outage on the session clock.
    assert events[0]["frameIndex"] == sent_frames[0]
    assert events[0]["sessionTime"] == m["segments"][1]["sessionStart"]
    assert 0.5 < events[0]["durationSeconds"] < 30, events[0]
    assert m["segments"][1]["sessionStartSeconds"] > m["segments"][0]["sessionStartSeconds"] + sent_frames[0] / 30
    for s in m["segments"]:
        codec, samples = audio_of(out / s["file"])
        assert codec == "aac" and samples > 48000, (s["file"], samples)
    v = subprocess.run([binary, "verify", str(out)], capture_output=True, text=True, timeout=60)
    assert v.returncode == 0, v.stdout + v.stderr
    assert time.time() - started < 60


def test_udp_sender_gone_longer_than_the_timeout_comes_back_at_a_new_size(binary, tmp_path):
    port = free_port(socket.SOCK_DGRAM)
    out = tmp_path / "udp"
    started = time.time()
    proc = record(binary, out, "--source", f"udp://127.0.0.1:{port}", "--io-timeout", "1", "--reconnect-for", "4")
    wait_for_port(port, "udp")
    url = f"udp://127.0.0.1:{port}?pkt_size=1316"
    send(url, "320x240")
    time.sleep(2.5)  # longer than --io-timeout: the source is found gone and reopened
    send(url, "640x360")
    check_restart(binary, out, proc, started)


@pytest.mark.parametrize("scheme,fmt", [("rtmp", "flv"), ("rtsp", "rtsp"), ("srt", "mpegts")])
def test_a_pushed_stream_whose_sender_reconnects_at_a_new_size(binary, tmp_path, scheme, fmt):
    if scheme == "srt" and "srt" not in h.run(["ffmpeg", "-v", "error", "-protocols"]).stdout.split():
        pytest.skip("this ffmpeg has no SRT protocol (libsrt)")
    port = free_port(socket.SOCK_DGRAM if scheme == "srt" else socket.SOCK_STREAM)
    out = tmp_path / scheme
    url = f"{scheme}://127.0.0.1:{port}" + {"rtmp": "/live/cam", "rtsp": "/live"}.get(scheme, "")
    started = time.time()
    proc = record(binary, out, "--source", url, "--listen", "--io-timeout", "2", "--reconnect-for", "5")
    # SRT: the sender lingers until what it sent is delivered (libsrt's live mode drops it).
    sender_url = url + "?linger=3" if scheme == "srt" else url
    for size in ("320x240", "640x360"):
        wait_for_port(port, "udp" if scheme == "srt" else "tcp")  # listening again for the next sender
        send(sender_url, size, fmt=fmt)
        time.sleep(0.5)
    check_restart(binary, out, proc, started)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    requested = set()

    def log_message(self, *args):
        pass

    def do_GET(self):
        super().do_GET()
        QuietHandler.requested.add(self.path)


def wait_until_fetched(served, prefix, timeout=30):
    """Until the last segment `prefix`N.ts written in `served` was fetched (segrec read the
    whole playlist), then a moment for it to be read."""
    last = max(int(p.stem[len(prefix):]) for p in served.glob(f"{prefix}*.ts"))
    deadline = time.time() + timeout
    while f"/{prefix}{last}.ts" not in QuietHandler.requested:
        assert time.time() < deadline, f"{prefix}{last}.ts never fetched: {sorted(QuietHandler.requested)}"
        time.sleep(0.05)
    time.sleep(0.5)


def test_an_hls_stream_restarted_at_a_new_size(binary, tmp_path):
    served = tmp_path / "www"
    served.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: QuietHandler(*a, directory=str(served)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    playlist = served / "live.m3u8"
    url = f"http://127.0.0.1:{server.server_address[1]}/live.m3u8"

    def hls_sender(size, prefix):
        return subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", f"testsrc2=s={size}:r=30:d=2",
                                 "-f", "lavfi", "-i", "sine=f=440:r=48000:d=2", "-c:v", "libx264", "-preset", "ultrafast",
                                 "-g", "30", "-c:a", "aac", "-f", "hls", "-hls_time", "1", "-hls_list_size", "0",
                                 "-hls_flags", "omit_endlist", "-hls_segment_filename", str(served / f"{prefix}%d.ts"),
                                 str(playlist)], stderr=subprocess.PIPE, text=True)

    out = tmp_path / "hls"
    try:
        first = hls_sender("320x240", "a")
        deadline = time.time() + 20
        while not playlist.exists() and time.time() < deadline:
            time.sleep(0.05)
        started = time.time()
        # A live playlist (no #EXT-X-ENDLIST): its end is silence for --io-timeout, then reconnection.
        proc = record(binary, out, "--source", url, "--io-timeout", "4", "--reconnect-for", "8")
        assert first.wait(timeout=30) == 0
        wait_until_fetched(served, "a")  # segrec read it all; the first sender's stream goes away
        playlist.unlink()
        second = hls_sender("640x360", "b")
        assert second.wait(timeout=30) == 0
        wait_until_fetched(served, "b")
        playlist.unlink()  # gone for good: the window closes, the recording ends
        check_restart(binary, out, proc, started)
    finally:
        server.shutdown()


# Copied as sent (--copy) too: the same window, the same stop at any moment (SIGTERM as Ctrl-C).
@pytest.mark.parametrize("copy,stop", [((), signal.SIGINT), (("--copy",), signal.SIGINT), (("--copy",), signal.SIGTERM)])
def test_a_silent_sender_neither_hangs_nor_ends_before_the_window_and_ctrl_c_ends_it(binary, tmp_path, copy, stop):
    port = free_port(socket.SOCK_DGRAM)
    out = tmp_path / "silent"
    proc = record(binary, out, "--source", f"udp://127.0.0.1:{port}", "--io-timeout", "1", "--reconnect-for", "4", *copy)
    wait_for_port(port, "udp")
    send(f"udp://127.0.0.1:{port}?pkt_size=1316", "320x240", seconds=1)
    stopped = time.time()
    # Found gone after 1 s, then 4 s of reconnecting: still running 4 s after the sender stopped.
    time.sleep(4)
    assert proc.poll() is None, proc.stderr.read()
    stdout, stderr = proc.communicate(timeout=30)
    elapsed = time.time() - stopped
    assert proc.returncode == 0, stderr
    assert 1 + 4 - 0.5 < elapsed < 1 + 4 + 10, elapsed
    m, got = segments_read_back(out)
    assert got == [(320, 240, 30)]
    assert any("did not come back within 4 s (--reconnect-for" in w for w in m["warnings"]), m["warnings"]
    # Ctrl-C while reconnecting ends it at once, the segment closed and intact.
    out2 = tmp_path / "stopped"
    proc = record(binary, out2, "--source", f"udp://127.0.0.1:{port}", "--io-timeout", "1", "--reconnect-for", "600", *copy)
    wait_for_port(port, "udp")
    send(f"udp://127.0.0.1:{port}?pkt_size=1316", "320x240", seconds=1)
    time.sleep(3)
    asked = time.time()
    proc.send_signal(stop)
    stdout, stderr = proc.communicate(timeout=30)
    assert time.time() - asked < 10, time.time() - asked  # not the 600 s window
    assert proc.returncode == 0, stderr
    m, got = segments_read_back(out2)
    assert got == [(320, 240, 30)] and m["stopReason"] == "requested", m["stopReason"]
    assert all(s.get("copied") is (True if copy else None) for s in m["segments"]), m["segments"]
    assert subprocess.run([binary, "verify", str(out2)], capture_output=True, timeout=60).returncode == 0


def test_random_bytes_give_a_clear_error_or_counted_damage_never_a_crash(binary, tmp_path):
    port = free_port(socket.SOCK_DGRAM)
    noise = os.urandom(1316 * 400)

    def blast(seconds):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            end = time.time() + seconds
            i = 0
            while time.time() < end:
                s.sendto(noise[i:i + 1316], ("127.0.0.1", port))
                i = (i + 1316) % (len(noise) - 1316)
                time.sleep(0.002)

    # Only noise: segrec cannot read a stream from it; a clear error, nothing recorded.
    out = tmp_path / "noise"
    proc = record(binary, out, "--source", f"udp://127.0.0.1:{port}", "--io-timeout", "1")
    wait_for_port(port, "udp")
    blast(3)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode in (65, 69), (proc.returncode, stderr)
    assert f"udp://127.0.0.1:{port}" in stderr, stderr
    assert not (out / "manifest.json").exists()
    # Noise between two stretches of a real stream: counted as damage, the recording goes on.
    out = tmp_path / "between"
    proc = record(binary, out, "--source", f"udp://127.0.0.1:{port}", "--io-timeout", "2", "--reconnect-for", "0")
    wait_for_port(port, "udp")
    url = f"udp://127.0.0.1:{port}?pkt_size=1316"
    send(url, "320x240", seconds=1)
    blast(0.5)
    send(url, "320x240", seconds=1)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    m = h.load_manifest(out)
    assert m["frames"]["written"] >= 50, m["frames"]
    assert subprocess.run([binary, "verify", str(out)], capture_output=True, timeout=60).returncode == 0
