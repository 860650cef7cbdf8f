"""`segrec export DIR --mp4 FILE [--canvas WxH]` (issue 26 item 3): the one-file export of
every SampleStreams/ scenario (the longer ones shortened to 6 s, their events moved in
proportion), read back with ffprobe and ffmpeg:
- one H.264 stream on the expected canvas (default: the largest width and the largest
  height over the segments after their rotation), no display matrix left;
- the manifest's frame count, every frame at its session time (the file's own frame time
  plus its segment's sessionStart, less the first sessionStart) within half a tick;
- every frame upright and whole: its picture is cut out of the canvas where the fit-and-pad
  rule puts it, turned back by its segment's rotation, scaled to the coded size, and its
  frame-index stamp (rows 0-15 of the coded picture) read; a rotated segment read without
  the turn back gives other numbers (checked, so the check can fail);
- the padding bars black (luma 16, chroma 128) wherever the picture does not fill the canvas."""
import json
import subprocess
import time
from fractions import Fraction

import pytest

import e2e_helpers as h

SCENARIOS = sorted(h.SAMPLE_STREAMS.rglob("*.json"))
CAP = 6.0


def shortened(path, work):
    scenario = json.loads(path.read_text())
    duration = scenario.get("durationSeconds", 3.0)
    if duration > CAP:
        factor = CAP / duration
        scenario["durationSeconds"] = CAP
        for event in scenario.get("events", []):
            if "atSeconds" in event:
                event["atSeconds"] = round(event["atSeconds"] * factor, 3)
    return h.write_json(work / path.name, scenario)


def probe_frames(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time,width,height",
                 "-of", "json", path])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["frames"]


def turned(seg):
    """The segment's displayed size after its rotation (manifest rotationDegrees: clockwise)."""
    w, hh = seg["width"], seg["height"]
    return (hh, w) if (seg.get("rotationDegrees") or 0) % 180 == 90 else (w, hh)


def placement(size, canvas):
    """CanvasPlacement's rule: fit keeping the shape, nearest even side (half up), centred, even offsets."""
    (dw, dh), (cw, ch) = size, canvas
    if cw * dh <= ch * dw:
        w, hh = cw, max(2, min(ch, ((cw * dh + dw) // (2 * dw)) * 2))
    else:
        w, hh = max(2, min(cw, ((ch * dw + dh) // (2 * dh)) * 2)), ch
    return w, hh, ((cw - w) // 2) & ~1, ((ch - hh) // 2) & ~1


UNDO = {0: [], 90: ["transpose=cclock"], 180: ["hflip", "vflip"], 270: ["transpose=clock"]}


def stamps_of(mp4, first, count, seg, canvas, undo=True):
    """Frame-index stamps of frames [first, first+count) of `mp4`: the picture cut out of the
    canvas, turned back by the segment's rotation (unless `undo` is False), scaled to its coded size."""
    w, hh, x, y = placement(turned(seg), canvas)
    rotation = (seg.get("rotationDegrees") or 0) % 360
    coded = (seg["width"], seg["height"]) if undo else (w, hh)
    chain = [f"trim=start_frame={first}:end_frame={first + count}", f"crop={w}:{hh}:{x}:{y}",
             *(UNDO[rotation] if undo else []), f"scale={coded[0]}:{coded[1]}:flags=bicubic", f"crop={coded[0]}:16:0:0"]
    raw = h.run(["ffmpeg", "-v", "error", "-i", mp4, "-vf", ",".join(chain), "-fps_mode", "passthrough", "-f", "rawvideo",
                 "-pix_fmt", "gray", "-"], text=False).stdout
    codes, used = h.decode_stamps(raw, [coded] * count)
    return codes, used == len(raw)


@pytest.fixture(scope="module", params=SCENARIOS, ids=[str(p.relative_to(h.SAMPLE_STREAMS).with_suffix("")) for p in SCENARIOS])
def exported(request, binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("mp4")
    rec = work / "rec"
    r = h.run([binary, "record", "--source", "synthetic", "--scenario", shortened(request.param, work), "--output", rec,
               "--preset", "ultrafast", "--mirror", "auto", "--quiet"])
    assert r.returncode == 0, r.stderr[-600:]
    out = work / "one.mp4"
    e = h.run([binary, "export", rec, "--mp4", out])
    m = h.load_manifest(rec)
    return request.param.stem, m, rec, out, e


def expected_canvas(m):
    sizes = [turned(s) for s in m["segments"]]
    return max(w for w, _ in sizes), max(hh for _, hh in sizes)


def test_export_mp4_exits_0_and_says_what_it_wrote(exported):
    name, m, rec, out, e = exported
    assert e.returncode == 0, e.stderr[-600:]
    w, hh = expected_canvas(m)
    assert f"{m['frames']['written']} frames from {len(m['segments'])} segment(s) on a {w}x{hh} canvas" in e.stdout, e.stdout


def test_one_h264_stream_on_the_default_canvas_without_display_matrix(exported):
    name, m, rec, out, e = exported
    probe = json.loads(h.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type,codec_name,width,height",
                              "-of", "json", out]).stdout)["streams"]
    # With sound (every segment has an audio record) also one AAC track (test_export_audio.py).
    sound = [("audio", "aac")] if all(seg.get("audio") for seg in m["segments"]) else []
    assert [(s["codec_type"], s["codec_name"]) + ((s["width"], s["height"]) if s["codec_type"] == "video" else ()) for s in probe] == \
        [("video", "h264", *expected_canvas(m))] + sound + [("data", "bin_data")], probe  # the chapter track (test_chapters.py)
    assert h.rotation_of(out) is None


def test_every_frame_at_its_session_time(exported):
    name, m, rec, out, e = exported
    start = h.t(m["segments"][0]["sessionStart"])
    expected, tick = [], None
    for s in m["segments"]:
        offset = h.t(s["sessionStart"]) - start
        expected += [offset + Fraction(f["pts_time"]) for f in probe_frames(rec / s["file"])]
        tb = Fraction(h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base",
                             "-of", "csv=p=0", rec / s["file"]]).stdout.strip().split(",")[0])
        tick = tb if tick is None else min(tick, tb)
    got = [Fraction(f["pts_time"]) for f in probe_frames(out)]
    assert len(got) == len(expected) == m["frames"]["written"] == sum(s["frameCount"] for s in m["segments"]), \
        (len(got), len(expected), m["frames"]["written"])
    tolerance = tick / 2 + Fraction(1, 1_000_000)  # ffprobe prints 6 decimals
    off = [(i, float(g - x)) for i, (g, x) in enumerate(zip(got, expected)) if abs(g - x) > tolerance]
    assert not off, f"{name}: {len(off)} frames off their session time, first {off[:3]}"
    duration = Fraction(h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration",
                               "-of", "csv=p=0", out]).stdout.strip().split(",")[0])
    assert abs(duration - (h.t(m["segments"][-1]["sessionEnd"]) - start)) <= tolerance, duration


def test_every_frame_upright_with_its_stamp(exported):
    name, m, rec, out, e = exported
    canvas = expected_canvas(m)
    first = 0
    for s in m["segments"]:
        codes, whole = stamps_of(out, first, s["frameCount"], s, canvas)
        expected = [s["firstFrameIndex"] + i for i in range(s["frameCount"])]
        assert whole and codes == expected, f"{name} {s['file']} (rotation {s.get('rotationDegrees', 0)}): {codes[:5]} vs {expected[:5]}"
        if (s.get("rotationDegrees") or 0) % 360:
            # Without the turn back the stamp rows hold something else: the check can fail.
            wrong, _ = stamps_of(out, first, s["frameCount"], s, canvas, undo=False)
            assert wrong != expected, f"{name} {s['file']}: stamps read the same unturned"
        first += s["frameCount"]


def bars_checked(out, m, canvas, name):
    """Checks the bars of every segment's first frame are black; returns how many bars it checked."""
    first, checked = 0, 0
    for s in m["segments"]:
        w, hh, x, y = placement(turned(s), canvas)
        # Each bar less the 16 pixels next to the picture (one macroblock: lossy coding rings there).
        bars = []
        if hh < canvas[1]:
            bars += [(canvas[0], y - 16, 0, 0), (canvas[0], canvas[1] - y - hh - 16, 0, y + hh + 16)]
        if w < canvas[0]:
            bars += [(x - 16, canvas[1], 0, 0), (canvas[0] - x - w - 16, canvas[1], x + w + 16, 0)]
        for bw, bh, bx, by in bars:
            if bw < 2 or bh < 2:
                continue
            raw = h.run(["ffmpeg", "-v", "error", "-i", out, "-an", "-fps_mode", "passthrough", "-vf", f"trim=start_frame={first}:end_frame={first + 1},"
                         f"crop={bw}:{bh}:{bx}:{by}", "-f", "rawvideo", "-pix_fmt", "yuv444p", "-"], text=False).stdout
            n = bw * bh
            assert len(raw) == 3 * n, len(raw)
            luma, cb, cr = sorted(raw[:n]), raw[n:2 * n], raw[2 * n:]
            mean = lambda v: sum(v) / len(v)  # noqa: E731
            assert abs(mean(luma) - 16) <= 1.5 and luma[int(0.99 * n)] <= 20 and abs(mean(cb) - 128) <= 2 \
                and abs(mean(cr) - 128) <= 2, f"{name} {s['file']}: bar {bw}x{bh} at ({bx}, {by}): luma mean " \
                f"{mean(luma):.1f}, 99th percentile {luma[int(0.99 * n)]}, chroma {mean(cb):.1f} {mean(cr):.1f}"
            checked += 1
        first += s["frameCount"]
    return checked


def test_padding_bars_are_black(exported):
    name, m, rec, out, e = exported
    bars_checked(out, m, expected_canvas(m), name)


@pytest.fixture(scope="module")
def rotated_recording(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("mp4-canvas")
    rec = work / "rec"
    r = h.run([binary, "record", "--source", "synthetic", "--scenario", h.SAMPLE_STREAMS / "orientation" / "rotated-group-selfie.json",
               "--output", rec, "--preset", "ultrafast", "--quiet"])
    assert r.returncode == 0, r.stderr[-600:]
    m = h.load_manifest(rec)
    assert any((s.get("rotationDegrees") or 0) for s in m["segments"]), "the scenario no longer rotates"
    return work, rec, m


def test_explicit_canvas_pillarboxes_and_keeps_every_stamp(rotated_recording, binary):
    work, rec, m = rotated_recording
    out = work / "wide.mp4"
    e = h.run([binary, "export", rec, "--mp4", out, "--canvas", "640x360"])
    assert e.returncode == 0, e.stderr
    frames = probe_frames(out)
    assert {(f["width"], f["height"]) for f in frames} == {(640, 360)} and len(frames) == m["frames"]["written"]
    first = 0
    for s in m["segments"]:
        w, hh, x, y = placement(turned(s), (640, 360))
        assert (w, hh, x, y) == (270, 360, 184, 0), (w, hh, x, y)  # 3024x4032 upright: 270 wide, centred
        codes, whole = stamps_of(out, first, s["frameCount"], s, (640, 360))
        assert whole and codes == [s["firstFrameIndex"] + i for i in range(s["frameCount"])], (s["file"], codes[:4])
        first += s["frameCount"]
    assert bars_checked(out, m, (640, 360), "rotated-group-selfie at 640x360") == 2 * len(m["segments"])


@pytest.mark.parametrize("canvas", ["641x360", "0x360", "20000x360", "640x", "640"])
def test_bad_canvas_is_refused_naming_it(rotated_recording, binary, canvas):
    work, rec, m = rotated_recording
    out = work / "bad.mp4"
    e = h.run([binary, "export", rec, "--mp4", out, "--canvas", canvas])
    # A usage error (exit 64) naming what is allowed (the build before exited 65 for an odd
    # or too large side and named no range for a zero one).
    assert e.returncode == 64 and "--canvas" in e.stderr and "even and from 2 to 8192" in e.stderr and not out.exists(), (e.returncode, e.stderr)
    assert not list(work.glob("bad.mp4*")), list(work.glob("bad.mp4*"))


def test_existing_file_needs_force(rotated_recording, binary):
    work, rec, m = rotated_recording
    out = work / "exists.mp4"
    out.write_bytes(b"keep")
    e = h.run([binary, "export", rec, "--mp4", out])
    assert e.returncode == 73 and out.read_bytes() == b"keep", (e.returncode, e.stderr)
    f = h.run([binary, "export", rec, "--mp4", out, "--canvas", "320x240", "--force"])
    assert f.returncode == 0 and len(probe_frames(out)) == m["frames"]["written"], f.stderr


def test_a_segment_file_is_never_the_output(rotated_recording, binary):
    work, rec, m = rotated_recording
    target = rec / m["segments"][0]["file"]
    before = target.read_bytes()
    e = h.run([binary, "export", rec, "--mp4", target, "--force"])
    assert e.returncode != 0 and target.read_bytes() == before, (e.returncode, e.stderr)


@pytest.mark.parametrize("force", [False, True], ids=["rerun", "rerun-force"])
def test_an_export_killed_mid_way_blocks_no_rerun(rotated_recording, binary, force):
    """Issue 44 item 7 / issue 46 item 6: an export killed while writing leaves its
    `.partial` (and `.tmp`); the next export to that name removes them and writes the file,
    with or without --force (the build before exited 73 every time)."""
    work, rec, m = rotated_recording
    out = work / f"killed-{force}.mp4"
    p = subprocess.Popen([str(binary), "export", str(rec), "--mp4", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    partial = out.with_name(out.name + ".partial")
    deadline = time.time() + 60
    while time.time() < deadline and not partial.exists() and p.poll() is None:
        time.sleep(0.005)
    p.kill()
    p.wait(timeout=60)
    if not partial.exists():
        # The export finished before the kill: model the leftovers it would have left.
        partial.write_bytes(b"partial")
        out.with_name(out.name + ".tmp").write_bytes(b"reservation")
        out.unlink(missing_ok=True)
    e = h.run([binary, "export", rec, "--mp4", out] + (["--force"] if force else []))
    assert e.returncode == 0, (e.returncode, e.stderr)
    assert len(probe_frames(out)) == m["frames"]["written"]
    assert sorted(x.name for x in work.glob(out.name + "*")) == [out.name], list(work.glob(out.name + "*"))


def export_on_a_terminal(binary, rec, out):
    """`export --mp4` with its stderr on a pseudo-terminal: its exit code and what it drew."""
    import os
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen([binary, "export", str(rec), "--mp4", str(out), "--force"], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    drawn = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        drawn += chunk
    os.close(master)
    p.wait(timeout=300)
    return p.returncode, drawn.decode()


def test_export_mp4_shows_its_progress_on_a_terminal_and_nothing_in_a_pipe(rotated_recording, binary):
    """Issue 46 item 6: re-encoding a recording takes a while, so `export --mp4` draws a
    progress line on a terminal, as `record` does (frames done of the manifest's total,
    share, speed), and clears it before its summary; with stderr in a pipe it writes none.
    The build before printed nothing until it was done."""
    work, rec, m = rotated_recording
    total = sum(s["frameCount"] for s in m["segments"])
    code, drawn = export_on_a_terminal(binary, rec, work / "progress.mp4")
    assert code == 0, drawn
    import re
    counts = [(int(a), int(b)) for a, b in re.findall(r"\r  mp4: +(\d+) of (\d+) frames", drawn)]
    assert counts and all(t == total and 0 < d <= total for d, t in counts), drawn
    assert [d for d, _ in counts] == sorted(d for d, _ in counts)
    assert drawn.endswith("\r\x1b[2K"), repr(drawn[-40:])
    assert h.count_frames(work / "progress.mp4") == total
    piped = h.run([binary, "export", rec, "--mp4", work / "piped.mp4", "--force"])
    assert piped.returncode == 0 and "mp4:" not in piped.stderr, piped.stderr
