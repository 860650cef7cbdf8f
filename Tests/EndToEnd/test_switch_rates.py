"""A camera switch does not bend the frame rate (issue 46 item 1): every file of each
SampleStreams/duo recording reads its camera's rate in ffprobe (avg_frame_rate), MediaInfo,
GStreamer (gst-discoverer-1.0) and mpv (container-fps). The switch's gap is not folded into
the old file's last sample: its video track ends at the manifest's `framesEnd` (last frame +
the camera's period) while the segment, and its sound, last until the new camera's first
frame (`sessionEnd`). `segrec report` lists each switch's gap with its real length.

Before: a 120 fps file read 980/13 in ffprobe and mpv and 299/4 in GStreamer, and the report
said every gap was 0.000000 s."""
import html
import re
import shutil
import subprocess
from fractions import Fraction

import pytest

import e2e_helpers as h
import recordings as catalog
from conftest import segment_params
from test_duo import rates_of, scenario_of

KEYS = catalog.DUO_KEYS
# A rate read back within 0.1 % of the camera's (the cameras' clocks drift by tens of ppm);
# a folded-in 0.25 s gap moved them by 14-40 %.
CLOSE = Fraction(1, 1000)
needs_gst = pytest.mark.skipif(shutil.which("gst-discoverer-1.0") is None,
                               reason="gst-discoverer-1.0 is not installed (Scripts/install-deps --test)")
needs_mediainfo = pytest.mark.skipif(shutil.which("mediainfo") is None, reason="mediainfo is not installed")
needs_mpv = pytest.mark.skipif(shutil.which("mpv") is None, reason="mpv is not installed (Scripts/install-deps --test)")


def close(read, expected):
    return read is not None and abs(Fraction(read) / expected - 1) <= CLOSE


def segment_and_rate(recordings, key, index):
    rec = recordings.ok(key)
    seg = rec.segment(index)
    return rec, seg, rates_of(key)[seg.get("camera")]


def ffprobe_avg_rate(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=avg_frame_rate",
                 "-of", "json", path]).stdout
    found = re.search(r'"avg_frame_rate": "(\d+)/([1-9]\d*)"', out)
    return Fraction(int(found[1]), int(found[2])) if found else None


@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_ffprobe_average_rate_is_the_cameras(recordings, key, index):
    rec, seg, rate = segment_and_rate(recordings, key, index)
    read = ffprobe_avg_rate(rec.out / seg["file"])
    assert close(read, rate), f"{seg['file']}: ffprobe avg_frame_rate {read}, camera {seg.get('camera')} at {rate}"


@needs_mediainfo
@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_mediainfo_rate_is_the_cameras(recordings, key, index):
    rec, seg, rate = segment_and_rate(recordings, key, index)
    out = h.run(["mediainfo", "--Inform=Video;%FrameRate%", rec.out / seg["file"]]).stdout.strip()
    read = Fraction(out) if re.fullmatch(r"\d+(\.\d+)?", out) else None
    assert close(read, rate), f"{seg['file']}: MediaInfo {out!r}, camera at {rate}"


@needs_gst
@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_gstreamer_rate_is_the_cameras(recordings, key, index):
    rec, seg, rate = segment_and_rate(recordings, key, index)
    out = h.run(["gst-discoverer-1.0", rec.out / seg["file"]]).stdout
    found = re.search(r"Frame rate: (\d+)/(\d+)", out)
    read = Fraction(int(found[1]), int(found[2])) if found and int(found[2]) else None
    assert close(read, rate), f"{seg['file']}: GStreamer {found and found[0]}, camera at {rate}"


@needs_mpv
@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_mpv_rate_is_the_cameras(recordings, key, index):
    rec, seg, rate = segment_and_rate(recordings, key, index)
    out = subprocess.run(["mpv", "--no-config", "--vo=null", "--ao=null", "--frames=1",
                          "--term-playing-msg=FPS=${container-fps}", str(rec.out / seg["file"])],
                         capture_output=True, text=True, timeout=60).stdout
    found = re.search(r"FPS=(\d+(\.\d+)?)", out)
    read = Fraction(found[1]) if found else None
    assert close(read, rate), f"{seg['file']}: mpv container-fps {found and found[1]}, camera at {rate}"


@pytest.mark.parametrize("key,index", segment_params(KEYS, select=lambda i, r: i > 0 and r == "cameraSwitched"))
def test_old_files_pictures_end_one_period_after_its_last_frame_its_sound_at_the_switch(recordings, key, index):
    """ffprobe: the video track lasts framesEnd − sessionStart (within a tick), framesEnd is within
    one period of (frames / rate) after sessionStart and before the next first frame by most of
    switchGapSeconds; the audio track, when the scenario has a microphone, lasts the whole
    sessionEnd − sessionStart."""
    rec = recordings.ok(key)
    a, b = rec.segment(index - 1), rec.segment(index)
    rate = rates_of(key)[a.get("camera")]
    gap_seconds = Fraction(str(scenario_of(key).get("switchGapSeconds", 0.25)))
    assert "framesEnd" in a, f"{a['file']} has no framesEnd before the switch to {b['file']}"
    frames_end = h.t(a["framesEnd"])
    start, end = h.t(a["sessionStart"]), h.t(a["sessionEnd"])

    def duration(kind):
        out = h.run(["ffprobe", "-v", "error", "-select_streams", f"{kind}:0", "-show_entries", "stream=duration",
                     "-of", "json", rec.out / a["file"]]).stdout
        found = re.search(r'"duration": "([0-9.]+)"', out)
        return Fraction(found[1]) if found else None
    video, audio = duration("v"), duration("a")
    assert video is not None and abs(video - (frames_end - start)) <= Fraction(1, 10000), \
        f"{a['file']}: video lasts {video and float(video)} s, framesEnd − sessionStart {float(frames_end - start)} s"
    assert abs((frames_end - start) - a["frameCount"] / rate) <= Fraction(1, 1000), \
        f"{a['file']}: {a['frameCount']} frames at {rate} end at {float(frames_end - start)} s"
    assert end == h.t(b["sessionStart"]) and end - frames_end >= gap_seconds - 1 / rate, \
        f"gap {float(end - frames_end)} s, switchGapSeconds {gap_seconds}"
    if a.get("audio") is None:  # a scenario without a microphone (two-displays): no sound track
        assert audio is None, f"{a['file']} has a sound track its manifest does not list"
        return
    assert audio is not None and abs(audio - (end - start)) <= Fraction(1, 1000), \
        f"{a['file']}: audio lasts {audio and float(audio)} s, segment {float(end - start)} s"


@pytest.fixture(scope="module")
def reports(recordings, binary, tmp_path_factory):
    done = {}

    def get(key):
        if key not in done:
            rec = recordings.ok(key)
            folder = tmp_path_factory.mktemp("switch-report") / "rec"
            shutil.copytree(rec.out, folder)
            run = h.run([binary, "report", folder])
            assert run.returncode == 0, run.stderr[-400:]
            done[key] = (rec.manifest, (folder / "report.html").read_text())
        return done[key]
    return get


@pytest.mark.parametrize("key", KEYS)
def test_report_lists_each_switch_gap_with_its_length(reports, key):
    m, page = reports(key)
    segments = m["segments"]
    switched = [(a, b) for a, b in zip(segments, segments[1:]) if b["startReason"] == "cameraSwitched"]
    notes = [html.unescape(n) for n in re.findall(r'<li class="gap"[^>]*>(.*?)</li>', page)]
    lengths = [Fraction(x) for n in notes for x in re.findall(r"a gap of ([0-9.]+) s", n)]
    expected = [h.t(b["sessionStart"]) - h.t(a.get("framesEnd", a["sessionEnd"])) for a, b in switched]
    if not switched:
        pytest.skip(f"{key} has no camera switch")
    assert len(lengths) == len(switched), notes
    assert all(abs(got - want) <= Fraction(1, 10 ** 6) and got >= Fraction(1, 10) for got, want in zip(lengths, expected)), \
        f"report {[str(x) for x in lengths]}, manifest {[float(x) for x in expected]}"
