"""Command-line faults from issue 14: usage/data exit codes with file and key named, short
echoes, FFmpeg's reasons instead of its codes, no raw FFmpeg lines on stderr, signals at any
moment, `verify` on failed or damaged manifests (200 mutations)."""
import json
import os
import random
import shutil
import signal
import subprocess
import time
from fractions import Fraction

import pytest

import e2e_helpers as h


def only_segrec_lines(stderr):
    return all(line.startswith("segrec: ") for line in stderr.splitlines() if line.strip())


def test_empty_output_exits_64(binary):
    r = h.run([binary, "record", "--output", ""])
    assert r.returncode == 64 and "--output" in r.stderr, f"exit {r.returncode}: {r.stderr.strip()}"


BAD_SCENARIOS = {
    "dup.json": ('{"durationSeconds": 1,\n "device": {"format": 1280, "format": 1920}}',
                 "device.format: duplicate key (second occurrence on line 2)"),
    "fps32.json": ('{"durationSeconds": 1, "device": {"format": 1280, "fps": "4294967297/4294967296"}}', "device.fps:"),
    "long.json": ('{"durationSeconds": 1, "events": [{"atSeconds": 0.5, "setDynamicAspectRatio": "' + "x" * 1_000_000 + '"}]}',
                  "events[0].setDynamicAspectRatio: \"" + "x" * 60 + "…\""),
}


@pytest.mark.parametrize("name", list(BAD_SCENARIOS))
def test_bad_scenario_exits_65_naming_file_and_key_in_one_short_line(binary, tmp_path, name):
    text, expected = BAD_SCENARIOS[name]
    path = tmp_path / name
    path.write_text(text)
    r = h.run([binary, "record", "--scenario", path, "--output", tmp_path / ("out-" + name)])
    assert r.returncode == 65 and str(path) in r.stderr and expected in r.stderr and len(r.stderr) < 600 \
        and r.stderr.count("\n") == 1 and not (tmp_path / ("out-" + name)).exists(), f"exit {r.returncode}: {r.stderr[:300]!r}"


@pytest.fixture
def zero_y4m(tmp_path):
    bad = tmp_path / "zero.y4m"
    bad.write_bytes(b"YUV4MPEG2 W0 H10 F30:1 C420jpeg\nFRAME\nabc")
    return bad


def test_invalid_picture_size_says_so_only_segrec_lines_on_stderr(binary, tmp_path, zero_y4m):
    r = h.run([binary, "record", "--source", zero_y4m, "--output", tmp_path / "out-zero"])
    assert r.returncode == 65 and "Picture size 0x10 is invalid" in r.stderr and "busy" not in r.stderr \
        and only_segrec_lines(r.stderr), r.stderr[-400:]


def test_verbose_prints_ffmpeg_lines_prefixed(binary, tmp_path, zero_y4m):
    r = h.run([binary, "record", "--source", zero_y4m, "--output", tmp_path / "out-zero-v", "--verbose"])
    assert r.returncode == 65 and any(l.startswith("ffmpeg: ") and "Picture size 0x10" in l for l in r.stderr.splitlines()), \
        r.stderr[-400:]


@pytest.fixture(scope="module")
def good(binary, tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "good"
    return h.run([binary, "record", "--output", out, "--preset", "ultrafast"]), out


def test_a_normal_recording_writes_nothing_to_stderr(good):
    r, _ = good
    assert r.returncode == 0 and r.stderr == "", f"exit {r.returncode}: {r.stderr[-300:]!r}"


# Signals. The handler is installed on main's first line; before that only the dynamic
# loader runs (mapping FFmpeg's ~240 libraries), where the default action applies.
def caught(pid, sig):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("SigCgt:"):
                return int(line.split()[1], 16) >> (sig - 1) & 1 == 1
    except OSError:
        return False
    return False


def wait_for_exec(pid, binary, timeout=30):
    """Until the child runs `binary`: a SIGINT sent between Python's fork and exec finds
    Python's own handler (inherited until exec) and is lost, which is not segrec's doing."""
    target = os.path.realpath(binary)
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if os.path.realpath(f"/proc/{pid}/exe") == target:
                return
        except OSError:
            return
        time.sleep(0.0005)


def valid_if_any(binary, out):
    if not (out / "manifest.json").exists():
        return not out.exists() or not any(p.suffix == ".partial" for p in out.iterdir()), "no manifest"
    m = h.load_manifest(out)
    v = h.run([binary, "verify", out])
    return m["stopReason"] == "requested" and v.returncode == 0, f"{m['stopReason']} verify {v.returncode} {v.stdout[-300:]}"


def start_recording(binary, out):
    return subprocess.Popen([binary, "record", "--output", str(out), "--preset", "ultrafast"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


SIGNALS = [(signal.SIGINT, 130), (signal.SIGTERM, 143)]


@pytest.mark.parametrize("delay", [0.02, 0.2], ids=["20ms", "200ms"])
@pytest.mark.parametrize("sig,code", SIGNALS, ids=["SIGINT", "SIGTERM"])
def test_signal_after_delay_exits_cleanly_or_loader_default_manifest_valid_if_any(binary, tmp_path, sig, code, delay):
    out = tmp_path / f"sig-{sig.name}-{delay}"
    p = start_recording(binary, out)
    wait_for_exec(p.pid, binary)
    time.sleep(delay)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    ok, detail = valid_if_any(binary, out)
    assert p.returncode in (0, code, -sig) and ok, f"exit {p.returncode}: {detail} {err.decode()[-200:]}"


@pytest.mark.parametrize("sig,code", SIGNALS, ids=["SIGINT", "SIGTERM"])
def test_signal_the_moment_the_handler_exists_never_killed(binary, tmp_path, sig, code):
    out = tmp_path / f"sig-{sig.name}-handler"
    p = start_recording(binary, out)
    deadline = time.time() + 30
    while time.time() < deadline and not caught(p.pid, sig):
        time.sleep(0.0005)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    ok, detail = valid_if_any(binary, out)
    assert p.returncode in (0, code) and ok, f"exit {p.returncode}: {detail} {err.decode()[-200:]}"


def test_sigterm_mid_recording_exit_0_requested_ffprobe_counts_manifest_frames_verify_passes(binary, tmp_path):
    out = tmp_path / "sigterm-mid"
    p = start_recording(binary, out)
    deadline = time.time() + 30
    while time.time() < deadline and not list(out.glob("segment-000.mp4*")):
        time.sleep(0.01)
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=120)
    ok, detail = valid_if_any(binary, out)
    frames = 0
    if (out / "manifest.json").exists():
        m = h.load_manifest(out)
        frames = sum(len(h.ffprobe_frames(out / s["file"])) for s in m["segments"])
        ok = ok and frames == m["frames"]["written"] and 0 < frames < 301
    assert p.returncode == 0 and ok, f"exit {p.returncode}: {detail}, {frames} frames"


# Inputs for the stop tests, 25 fps, 150 frames (6 s): ffmpeg arguments after the lavfi source.
STOP_INPUTS = {
    "y4m": (["-pix_fmt", "yuv420p"], "y4m"),
    # B-frames: a stop lands between a reference picture and the B-frames shown before it.
    "bframes-mp4": (["-c:v", "libx264", "-bf", "3", "-pix_fmt", "yuv420p"], "mp4"),
    "bframes-mkv": (["-c:v", "libx264", "-bf", "3", "-pix_fmt", "yuv420p"], "mkv"),
    # Made from the Y4M clip, then retimed (see make_stop_input).
    "long-last-frame": (["-pix_fmt", "yuv420p"], "y4m"),
}


def make_stop_input(tmp_path, kind):
    args, ext = STOP_INPUTS[kind]
    clip = tmp_path / f"clip.{ext}"
    h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "150"]
          + args + [clip]).check_returncode()
    if kind != "long-last-frame":
        return clip
    # Every frame 1/25 s at 90 kHz but the last, which lasts 5 s: avg_frame_rate is far below
    # r_frame_rate (25), which is the rate a stopped recording's last frame must keep.
    timed = tmp_path / "timed.mp4"
    h.run(["ffmpeg", "-v", "error", "-y", "-i", clip, "-vf", "settb=1/90000,setpts=N*3600", "-fps_mode", "passthrough",
           "-c:v", "libx264", "-bf", "0", "-pix_fmt", "yuv420p", timed]).check_returncode()
    long_last = tmp_path / "long-last.mp4"
    h.run(["ffmpeg", "-v", "error", "-y", "-i", timed, "-c", "copy", "-bsf:v",
           "setts=duration='if(eq(N,149),450000,DURATION)'", long_last]).check_returncode()
    return long_last


# (input, signal, seconds after the segment's file appears): paced in real time, the stop
# lands at the same frame run after run, so the B-frame inputs are stopped at each of the
# four places of a group of a reference picture and its three B-frames (1/25 s apart).
STOP_CASES = [("y4m", signal.SIGINT, 1.0), ("y4m", signal.SIGTERM, 1.0), ("long-last-frame", signal.SIGINT, 1.0)] + [
    (kind, signal.SIGINT, 1.0 + k * 0.04) for kind in ("bframes-mp4", "bframes-mkv") for k in range(4)]


@pytest.mark.parametrize("kind,sig,delay", STOP_CASES, ids=[f"{k}-{s.name}-{d:.2f}s" for k, s, d in STOP_CASES])
def test_a_file_recording_stopped_early_ends_one_frame_period_after_its_last_frame(binary, tmp_path, kind, sig, delay):
    """Stopping a recording of a file before its end keeps every frame up to the last one
    kept, with no gap (a stop between a reference picture and the B-frames shown before it
    used to keep the reference picture and lose the B-frames), and that last frame lasts one
    period of the input's rate (r_frame_rate), not up to the end the container states for its
    own last frame (a 150-frame clip stopped after ~1 s used to end at 6.000 s)."""
    clip = make_stop_input(tmp_path, kind)
    out = tmp_path / f"stopped-{sig.name}"
    p = subprocess.Popen([binary, "record", "--source", str(clip), "--realtime", "--output", str(out), "--preset",
                          "ultrafast", "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 30
    while time.time() < deadline and not list(out.glob("segment-000.mp4*")):
        time.sleep(0.01)
    time.sleep(delay)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err.decode()[-500:]
    m = h.load_manifest(out)
    assert m["stopReason"] == "requested"
    (seg,) = m["segments"]
    frames = seg["frameCount"]
    assert 0 < frames < 150, f"{frames} frames: the stop came too late to test this"
    assert m["frames"] == {"received": frames, "written": frames, "dropped": 0, "droppedReasons": {}}
    # Exactly frames / 25 s on the session clock, and so in the file, read back by ffprobe:
    # every picture 1/25 s after the one before, none missing.
    assert h.exact_duration(seg) == Fraction(frames, 25), f"{frames} frames span {h.exact_duration(seg)} s"
    probe = json.loads(h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                              "stream=duration,nb_frames", "-of", "json", out / seg["file"]]).stdout)["streams"][0]
    assert int(probe["nb_frames"]) == frames
    assert abs(float(probe["duration"]) - frames / 25) < 0.001, f"{probe} for {frames} frames at 25 fps"
    times = sorted(float(t) for t in h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                            "packet=pts_time", "-of", "csv=p=0", out / seg["file"]]).stdout.split())
    gaps = [(a, b) for a, b in zip(times, times[1:]) if abs(b - a - 0.04) > 0.001]
    assert len(times) == frames and not gaps, f"{len(times)} pictures, steps other than 1/25 s: {gaps[:5]}"
    assert h.run([binary, "verify", out]).returncode == 0


def test_a_second_sigterm_exits_143_at_once(binary, tmp_path):
    out = tmp_path / "sigterm-twice"
    p = start_recording(binary, out)
    deadline = time.time() + 30
    while time.time() < deadline and not list(out.glob("segment-000.mp4*")):
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    p.send_signal(signal.SIGTERM)
    start = time.time()
    p.communicate(timeout=120)
    assert p.returncode in (143, 0) and time.time() - start < 5, f"exit {p.returncode} after {time.time() - start:.1f} s"


def test_verify_fails_on_a_recording_whose_manifest_says_it_failed(binary, good, tmp_path):
    _, good_dir = good
    failed = tmp_path / "failed"
    failed.mkdir()
    m = h.load_manifest(good_dir)
    m.update(stopReason="error", error="avcodec_send_frame failed: Invalid argument (-22)", segments=[],
             frames={"received": 0, "written": 0, "dropped": 0, "droppedReasons": {}})
    (failed / "manifest.json").write_text(json.dumps(m))
    r = h.run([binary, "verify", failed])
    assert r.returncode == 1 and "the manifest says the recording failed" in r.stdout, f"exit {r.returncode}: {r.stdout[-300:]}"


def leaves(o, path=()):
    if isinstance(o, dict):
        for k, v in o.items():
            yield from leaves(v, path + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from leaves(v, path + (i,))
    yield path


def test_verify_on_200_mutated_manifests_never_crashes(binary, good, tmp_path):
    """verify ends with 0, 1 or 65, never a signal, in short lines."""
    _, good_dir = good
    base = h.load_manifest(good_dir)
    weird = [0, -1, 1, 2**31 - 1, 2**31, 2**32 + 1, 2**53 + 1, 2**63 - 1, -2**63, 2**64, 10**30, 1e308, -1e308, 0.5,
             "x" * 100_000, None, True, [], {}, "segment-000.mp4", "../../etc/passwd", "error", "requested"]
    paths = [p for p in leaves(base) if p]
    rng = random.Random(14)
    codes, worst = {}, ""
    for n in range(200):
        mutated = json.loads(json.dumps(base))
        for _ in range(rng.randint(1, 3)):
            path = rng.choice(paths)
            node = mutated
            try:
                for k in path[:-1]:
                    node = node[k]
                node[path[-1]] = rng.choice(weird)
            except (KeyError, IndexError, TypeError):
                pass
        folder = tmp_path / f"fuzz-{n}"
        folder.mkdir()
        for f in good_dir.glob("*.mp4"):
            os.link(f, folder / f.name)
        (folder / "manifest.json").write_text(json.dumps(mutated))
        r = h.run([binary, "verify", folder], timeout=120)
        codes[r.returncode] = codes.get(r.returncode, 0) + 1
        if r.returncode not in (0, 1, 65) or len(r.stderr) > 1200:
            worst = f"mutation {n}: exit {r.returncode}: {r.stderr[-300:]}"
        shutil.rmtree(folder)
    assert worst == "", f"{worst} (exits {dict(sorted(codes.items()))})"


def test_a_scenario_of_10_5_events_records_its_10_frames(binary, tmp_path):
    """10^5 events: decoding, validation and scheduling are linear (timed by Scripts/bench)."""
    many = h.write_json(tmp_path / "many.json", {
        "device": {"format": 1280, "fps": 1}, "durationSeconds": 10,
        "events": [{"atSeconds": i / 10_000, "setDynamicAspectRatio": ["16x9", "9x16"][i % 2]} for i in range(100_000)]})
    r = h.run([binary, "record", "--scenario", many, "--output", tmp_path / "many", "--preset", "ultrafast", "--json"],
              timeout=120)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr[-300:]}"
    m = h.manifest_from_stdout(r.stdout)
    assert m["frames"]["written"] == 10 and m["stopReason"] == "endOfStream", m["frames"]
