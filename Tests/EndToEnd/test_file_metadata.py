"""What every segment file states, the segment limits and FLV restarts (issue 26 items 1, 2, 4),
read back with tools segrec did not write: ffprobe, ffmpeg's trace_headers bitstream filter,
MediaInfo and GStreamer's gst-discoverer-1.0 (Debian's gstreamer1.0-plugins-base-apps,
-plugins-good and -libav; Scripts/install-deps --test).

- VUI timing: the H.264 SPS states the nominal rate (time_scale = 2 · rate), so GStreamer
  reports 30/1 and each segment's real duration (an iPhone Duo recording, H.264 and HEVC);
- colour: BT.709 tv on synthetic recordings, the phone clip's BT.709 kept, MediaInfo agrees;
  a non-square input SAR kept in pasp; creation_time = recordedAt + offset on every file;
  the stream encoder tag;
- --max-segment-duration 5 on a one-size 20 s recording: 4 files of 150 frames at exactly
  5, 10, 15 s after the start; --max-segment-bytes: each file ends at the first frame
  whose packets bring it to the limit (ultrafast, one thread: no encoder delay);
- the FLV live stream whose second push restarts its timestamps: 90 of 90 frames, 2 files.
"""
import datetime
import json
import re
import shutil
from fractions import Fraction

import pytest

import e2e_helpers as h

needs_gst = pytest.mark.skipif(shutil.which("gst-discoverer-1.0") is None,
                               reason="gst-discoverer-1.0 is not installed (Scripts/install-deps --test)")
needs_mediainfo = pytest.mark.skipif(shutil.which("mediainfo") is None, reason="mediainfo is not installed")
needs_phone = pytest.mark.skipif(not h.PHONE.exists(), reason=f"the phone clip {h.PHONE} is absent")
FLV = h.CASES / "n01_flv_restart_640x360_360x640.flv"
needs_flv = pytest.mark.skipif(not FLV.exists(), reason=f"the FLV restart case {FLV} is absent")

DUO = h.SAMPLE_STREAMS / "duo" / "individual-open-close.json"

# A one-size 20 s recording whose frames fall on whole frame periods of the session clock.
ONE_SIZE = {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "16x9",
                       "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 0}},
            "sessionStartSeconds": 1.0, "durationSeconds": 20.0, "events": []}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("metadata")


@pytest.fixture(scope="module")
def made(binary, work):
    """Recordings of this module by name, each made once: (process, out folder, wall clock before)."""
    done = {}
    scenario = work / "one-size-20s.json"
    scenario.write_text(json.dumps(ONE_SIZE))

    def get(name, args):
        if name not in done:
            out = work / name
            before = datetime.datetime.now(datetime.timezone.utc)
            args = [str(a).replace("{one-size}", str(scenario)) for a in args]
            done[name] = (h.run([binary, "record", *args, "--output", out, "--quiet"]), out, before)
        return done[name]
    return get


RECORDINGS = {
    "duo-h264": ["--scenario", DUO, "--preset", "ultrafast"],
    "duo-hevc": ["--scenario", DUO, "--preset", "ultrafast", "--codec", "hevc"],
    "tap-to-rotate": ["--preset", "ultrafast"],
    "duration-5": ["--scenario", "{one-size}", "--preset", "ultrafast", "--max-segment-duration", "5"],
    "bytes-2mb": ["--scenario", "{one-size}", "--preset", "ultrafast", "--threads", "1", "--max-segment-bytes", "2000000"],
    "phone": ["--source", h.PHONE, "--preset", "ultrafast"],
    "flv": ["--source", FLV, "--preset", "ultrafast"],
}


def recording(made, name):
    proc, out, before = made(name, RECORDINGS[name])
    assert proc.returncode == 0, proc.stderr.strip()[-600:]
    return h.load_manifest(out), out, before


def probe_stream(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_streams", "-show_format", "-of", "json", path])
    data = json.loads(out.stdout)
    return data["streams"][0], data["format"]


def discover(path):
    """gst-discoverer-1.0's frame rate (a Fraction) and duration (seconds) of `path`."""
    out = h.run(["gst-discoverer-1.0", "-v", path])
    assert out.returncode == 0, out.stdout[-400:] + out.stderr[-400:]
    rate = re.search(r"Frame rate: (\d+)/(\d+)", out.stdout)
    dur = re.search(r"Duration: (\d+):(\d+):(\d+)\.(\d+)", out.stdout)
    assert rate and dur, out.stdout[-600:]
    seconds = int(dur[1]) * 3600 + int(dur[2]) * 60 + int(dur[3]) + int(dur[4]) / 10 ** len(dur[4])
    return Fraction(int(rate[1]), int(rate[2])), seconds


def vui_timing(path):
    """(num_units_in_tick, time_scale, fixed_frame_rate_flag) from the H.264 SPS, by trace_headers."""
    out = h.run(["ffmpeg", "-hide_banner", "-v", "verbose", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-frames:v", "1",
                 "-f", "null", "-"])
    found = {}
    for field in ("num_units_in_tick", "time_scale", "fixed_frame_rate_flag"):
        m = re.search(rf"\b{field}\s+[01]*\s*=\s*(\d+)", out.stderr)
        assert m, f"{field} not in trace_headers output of {path}"
        found[field] = int(m[1])
    return found["num_units_in_tick"], found["time_scale"], found["fixed_frame_rate_flag"]


def each_segment(made, name):
    m, out, _ = recording(made, name)
    return [(out / s["file"], s) for s in m["segments"]]


# ---- frame rate in the stream (VUI) and what GStreamer makes of it ----

@pytest.mark.parametrize("name", ["duo-h264", "tap-to-rotate"])
def test_h264_vui_timing_is_the_frame_rate(made, name):
    for path, seg in each_segment(made, name):
        st, _ = probe_stream(path)
        num, den = map(int, st["r_frame_rate"].split("/"))
        assert vui_timing(path) == (den, 2 * num, 1), f"{path.name}: VUI timing is not {num}/{den} fps"


@needs_gst
@pytest.mark.parametrize("name", ["duo-h264", "duo-hevc", "tap-to-rotate", "flv"])
def test_gstreamer_reads_each_segments_frame_rate_and_duration(made, name):
    if name == "flv" and not FLV.exists():
        pytest.skip(f"{FLV} is absent")
    m, _, _ = recording(made, name)
    for path, seg in each_segment(made, name):
        rate, duration = discover(path)
        st, _ = probe_stream(path)
        assert abs(duration - h.span(seg)) < 0.001, f"{path.name}: GStreamer says {duration} s, the manifest {h.span(seg)} s"
        if st["avg_frame_rate"] == st["r_frame_rate"]:
            # Every sample lasts one frame period: GStreamer reads the stream's rate.
            assert rate == Fraction(st["r_frame_rate"]), f"{path.name}: GStreamer says {rate} fps, the file {st['r_frame_rate']}"
        else:
            # A frame that spans a camera switch's gap (the Duo's segments): the samples differ,
            # and qtdemux reports a rate from their durations, between the average (frames /
            # duration) and the stream's own; never the track tick.
            average, nominal = seg["frameCount"] / h.span(seg), float(Fraction(st["r_frame_rate"]))
            assert 0.98 * average <= float(rate) <= nominal, f"{path.name}: GStreamer says {rate} fps, average {average:.3f}, stream {nominal}"


# ---- colour, pixel aspect ratio, date, encoder ----

@pytest.mark.parametrize("name", ["duo-h264", "duo-hevc", "tap-to-rotate", "duration-5"])
def test_synthetic_segments_are_tagged_bt709_tv(made, name):
    for path, _ in each_segment(made, name):
        st, _ = probe_stream(path)
        got = [st.get(k) for k in ("color_range", "color_space", "color_transfer", "color_primaries", "sample_aspect_ratio")]
        assert got == ["tv", "bt709", "bt709", "bt709", "1:1"], f"{path.name}: {got}"


@needs_phone
def test_phone_clip_keeps_its_bt709_tags(made):
    src, _ = probe_stream(h.PHONE)
    assert [src.get(k) for k in ("color_range", "color_space", "color_transfer", "color_primaries")] == ["tv", "bt709", "bt709", "bt709"]
    for path, _ in each_segment(made, "phone"):
        st, _ = probe_stream(path)
        got = [st.get(k) for k in ("color_range", "color_space", "color_transfer", "color_primaries")]
        assert got == ["tv", "bt709", "bt709", "bt709"], f"{path.name}: {got}"


@needs_phone
@needs_mediainfo
def test_mediainfo_agrees_on_the_colour(made):
    for name in ("phone", "tap-to-rotate"):
        for path, _ in each_segment(made, name):
            out = h.run(["mediainfo", "--Inform=Video;%colour_range%|%colour_primaries%|%transfer_characteristics%|%matrix_coefficients%",
                         path]).stdout.strip()
            assert out == "Limited|BT.709|BT.709|BT.709", f"{name}/{path.name}: {out}"


def test_non_square_input_pixels_keep_their_aspect_ratio(binary, work):
    src = work / "sar-4-3.mkv"
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "1", "-vf", "setsar=4/3",
                  "-c:v", "ffv1", src])
    assert made.returncode == 0, made.stderr
    out = work / "sar-4-3"
    rec = h.run([binary, "record", "--source", src, "--preset", "ultrafast", "--output", out, "--quiet"])
    assert rec.returncode == 0, rec.stderr[-400:]
    st, _ = probe_stream(out / "segment-000.mp4")
    assert st.get("sample_aspect_ratio") == "4:3" and st.get("display_aspect_ratio") == "16:9", st
    mi = h.run(["mediainfo", "--Inform=Video;%PixelAspectRatio%", out / "segment-000.mp4"]).stdout.strip() if shutil.which("mediainfo") else "1.333"
    assert mi == "1.333", mi


def luma_range(path):
    out = h.run(["ffmpeg", "-hide_banner", "-i", path, "-vf", "signalstats,metadata=mode=print", "-frames:v", "1", "-f", "null", "-"])
    # The first picture's (the null muxer may print a second one).
    return int(re.search(r"signalstats\.YMIN=(\d+)", out.stderr)[1]), int(re.search(r"signalstats\.YMAX=(\d+)", out.stderr)[1])


def test_full_range_input_is_converted_to_video_range_and_tagged_so(binary, work):
    # Motion JPEG (yuvj420p, full range, BT.601 matrix): segrec's NV12 is video range, so
    # the samples are scaled (0...236 becomes 16...219) and the file says tv; the matrix is
    # kept; primaries and transfer, unstated, are what players assume for 640x480.
    src = work / "full-range.avi"
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=25", "-t", "1", "-c:v", "mjpeg",
                  "-pix_fmt", "yuvj420p", src])
    assert made.returncode == 0, made.stderr
    st, _ = probe_stream(src)
    assert (st["pix_fmt"], st["color_range"], luma_range(src)) == ("yuvj420p", "pc", (0, 236))
    out = work / "full-range"
    rec = h.run([binary, "record", "--source", src, "--preset", "ultrafast", "--crf", "0", "--output", out, "--quiet"])
    assert rec.returncode == 0, rec.stderr[-400:]
    st, _ = probe_stream(out / "segment-000.mp4")
    assert [st.get(k) for k in ("color_range", "color_space", "color_primaries", "color_transfer")] == ["tv", "bt470bg", "smpte170m", "smpte170m"]
    assert luma_range(out / "segment-000.mp4") == (16, 219)
    assert any(n.startswith("input colour tv/smpte170m/smpte170m/bt470bg") and "states no primaries, transfer" in n
               for n in h.load_manifest(out)["notes"])


@pytest.mark.skipif(not (h.CASES / "p12_rgba_png_160x120.mkv").exists(), reason="p12_rgba_png_160x120.mkv is absent")
def test_rgb_input_is_tagged_bt601_video_range(binary, work):
    out = work / "rgba"
    rec = h.run([binary, "record", "--source", h.CASES / "p12_rgba_png_160x120.mkv", "--preset", "ultrafast", "--output", out, "--quiet"])
    assert rec.returncode == 0, rec.stderr[-400:]
    st, _ = probe_stream(out / "segment-000.mp4")
    assert [st.get(k) for k in ("color_range", "color_space")] == ["tv", "smpte170m"], st


@pytest.mark.parametrize("name", ["duo-h264", "duration-5", "tap-to-rotate"])
def test_every_file_has_creation_time_at_recorded_at_plus_its_offset(made, name):
    m, out, before = recording(made, name)
    recorded = datetime.datetime.strptime(m["recordedAt"], "%Y-%m-%dT%H:%M:%S.%f%z")
    assert before - datetime.timedelta(seconds=1) <= recorded <= datetime.datetime.now(datetime.timezone.utc), m["recordedAt"]
    first = Fraction(m["segments"][0]["sessionStart"]["value"], m["segments"][0]["sessionStart"]["timescale"])
    for seg in m["segments"]:
        _, fmt = probe_stream(out / seg["file"])
        tag = fmt.get("tags", {}).get("creation_time")
        assert tag, f"{seg['file']}: no creation_time"
        got = datetime.datetime.strptime(tag, "%Y-%m-%dT%H:%M:%S.%f%z")
        offset = Fraction(seg["sessionStart"]["value"], seg["sessionStart"]["timescale"]) - first
        expected = (recorded + datetime.timedelta(seconds=float(offset))).replace(microsecond=0)  # mvhd keeps whole seconds
        assert got == expected, f"{seg['file']}: creation_time {tag}, expected {expected.isoformat()}"


@pytest.mark.parametrize("name", ["duo-h264", "duo-hevc"])
def test_stream_encoder_tag_names_libavcodec_and_the_encoder(made, name):
    encoder = "libx265" if name.endswith("hevc") else "libx264"
    for path, _ in each_segment(made, name):
        st, fmt = probe_stream(path)
        tag = st.get("tags", {}).get("encoder", "")
        assert re.fullmatch(rf"Lavc\d+\.\d+\.\d+ {encoder}", tag), f"{path.name}: stream encoder tag {tag!r}"
        assert re.fullmatch(r"Lavf\d+\.\d+\.\d+", fmt.get("tags", {}).get("encoder", "")), fmt.get("tags")


# ---- --max-segment-duration ----

def frame_times(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time,key_frame", "-of", "csv=p=0", path])
    return [(int(k), Fraction(t)) for k, t in (line.split(",")[:2] for line in out.stdout.split())]


def test_max_segment_duration_5_gives_4_files_at_5_10_15_s(made, binary):
    m, out, _ = recording(made, "duration-5")
    segs = m["segments"]
    assert [s["startReason"] for s in segs] == ["recordingStarted"] + ["maxSegmentDuration"] * 3
    start = h.t(segs[0]["sessionStart"])
    assert [h.t(s["sessionStart"]) - start for s in segs] == [0, 5, 10, 15]
    assert all(a["sessionEnd"] == b["sessionStart"] for a, b in zip(segs, segs[1:]))
    # Read back: 150 frames per file, first a keyframe at 0, spaced 1/30 s, 5 s long.
    for s in segs:
        frames = frame_times(out / s["file"])
        assert len(frames) == 150 and frames[0] == (1, 0), (s["file"], len(frames), frames[:1])
        assert abs(frames[-1][1] - Fraction(149, 30)) < Fraction(1, 15360), (s["file"], frames[-1])
        st, _ = probe_stream(out / s["file"])
        assert abs(float(st["duration"]) - 5.0) < 1e-4, (s["file"], st["duration"])
    assert h.run([binary, "verify", out]).returncode == 0


@pytest.mark.parametrize("limit, message", [
    (5_500_000_000, "segment-001.mp4: startReason maxSegmentDuration, but segment-000.mp4 started only"),
    (4_900_000_000, "in the file, not before segmentLimits.maxSegmentDuration"),
])
def test_verify_checks_the_duration_limit(made, binary, work, limit, message):
    m, out, _ = recording(made, "duration-5")
    assert m["segmentLimits"] == {"maxSegmentDuration": {"value": 5_000_000_000, "timescale": 1_000_000_000}}
    copy = work / f"duration-5-tampered-{limit}"
    shutil.copytree(out, copy)
    m["segmentLimits"]["maxSegmentDuration"]["value"] = limit
    (copy / "manifest.json").write_text(json.dumps(m))
    ver = h.run([binary, "verify", copy])
    assert ver.returncode != 0 and message in ver.stdout + ver.stderr, ver.stdout[-600:]


# ---- --max-segment-bytes ----

def packet_sizes(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size", "-of", "csv=p=0", path])
    return [int(x) for x in out.stdout.split()]


def test_max_segment_bytes_ends_each_file_at_the_frame_that_reaches_the_limit(made, binary):
    m, out, _ = recording(made, "bytes-2mb")
    segs = m["segments"]
    assert len(segs) >= 3 and [s["startReason"] for s in segs[1:]] == ["maxSegmentBytes"] * (len(segs) - 1)
    assert all(a["sessionEnd"] == b["sessionStart"] for a, b in zip(segs, segs[1:]))
    for s in segs[:-1]:
        sizes = packet_sizes(out / s["file"])
        # ultrafast, one thread: the encoder holds nothing back, so the file's packets reach
        # the limit with its last frame and not before.
        assert sum(sizes) >= 2_000_000 > sum(sizes[:-1]), (s["file"], sum(sizes[:-1]), sum(sizes))
    assert sum(s["frameCount"] for s in segs) == 600 == m["frames"]["written"]
    assert m["segmentLimits"] == {"maxSegmentBytes": 2_000_000}
    assert h.run([binary, "verify", out]).returncode == 0


@pytest.mark.parametrize("args, message", [
    (["--max-segment-duration", "0"], "--max-segment-duration: '0' is out of range; allowed: 0.001...31622400 seconds"),
    (["--max-segment-duration", "5s"], "--max-segment-duration: '5s' is not allowed; give seconds as a decimal number"),
    (["--max-segment-bytes", "100"], "--max-segment-bytes: '100' is not allowed; give a whole number of bytes, 1024..."),
])
def test_limit_options_refuse_bad_values_naming_what_is_allowed(binary, work, args, message):
    rec = h.run([binary, "record", *args, "--output", work / "refused", "--quiet"])
    assert rec.returncode == 64 and message in rec.stderr, rec.stderr


# ---- FLV restart at a new sequence header ----

@needs_flv
def test_flv_restart_keeps_90_of_90_frames_in_2_files(made):
    m, out, _ = recording(made, "flv")
    segs = m["segments"]
    assert m["frames"] == {"received": 90, "written": 90, "dropped": 0, "droppedReasons": {}}, m["frames"]
    assert [(s["width"], s["height"], s["frameCount"], s["startReason"]) for s in segs] == \
        [(640, 360, 45, "recordingStarted"), (360, 640, 45, "dimensionsChanged")]
    for s in segs:
        got = h.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                     "stream=nb_read_frames,width,height", "-of", "csv=p=0", out / s["file"]]).stdout.strip()
        assert got == f"{s['width']},{s['height']},45", (s["file"], got)
    assert any("a restart at a new sequence header" in w for w in m["warnings"]), m["warnings"]


@pytest.mark.parametrize("container", ["mp4", "mov"])
def test_footage_creation_time_and_location_reach_every_segment(binary, work, container):
    """Issue 46 item 7: a phone clip's recording date and GPS place (ffmpeg's
    `-metadata creation_time= location=`, MP4/MOV `©xyz`) reach every segment of its
    pass-through recording, each segment dated by its own start, and the manifest says so;
    the build before dated the files when segrec ran and dropped the place without a note."""
    src = work / f"tagged.{container}"
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "3", "-c:v", "libx264",
                  "-metadata", "creation_time=2024-05-01T12:34:56.000000Z", "-metadata", "location=+48.8584+002.2945/", src])
    assert made.returncode == 0, made.stderr
    out = work / f"tagged-{container}"
    rec = h.run([binary, "record", "--source", src, "--max-segment-duration", "1", "--output", out, "--quiet", "--force"])
    assert rec.returncode == 0, rec.stderr[-400:]
    m = h.load_manifest(out)
    assert m["recordedAt"] == "2024-05-01T12:34:56.000Z"
    tags = []
    for s in m["segments"]:
        fmt = json.loads(h.run(["ffprobe", "-v", "error", "-show_entries", "format_tags=creation_time,location", "-of", "json",
                                out / s["file"]]).stdout)["format"]["tags"]
        tags.append((fmt.get("creation_time"), fmt.get("location")))
    assert tags == [("2024-05-01T12:34:56.000000Z", "+48.8584+002.2945/"), ("2024-05-01T12:34:57.000000Z", "+48.8584+002.2945/"),
                    ("2024-05-01T12:34:58.000000Z", "+48.8584+002.2945/")]
    assert any("input location +48.8584+002.2945/ kept on every segment" in n for n in m["notes"]), m["notes"]
    if shutil.which("mediainfo"):
        # (MediaInfo 22 does not list an MP4's ©xyz place, not even on ffmpeg's own file.)
        mi = h.run(["mediainfo", "--Inform=General;%Encoded_Date%", out / m["segments"][1]["file"]]).stdout.strip()
        assert "2024-05-01 12:34:57" in mi, mi


def test_a_display_matrix_that_is_not_a_quarter_turn_is_noted_not_kept(binary, work):
    """A damaged (sheared) display matrix reads as a −24° turn: segrec keeps only quarter turns,
    so it records the pictures as decoded, notes why, and its manifest passes its own reader
    (found by Scripts/fuzz: the build before wrote rotationDegrees 24, which `verify` refused)."""
    import struct
    src = work / "sheared.mp4"
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=24", "-t", "1", "-c:v", "libx264", src])
    assert made.returncode == 0, made.stderr
    data = bytearray(src.read_bytes())
    at = data.index(b"tkhd") - 4  # the video track's header box
    data[at + 48:at + 84] = struct.pack(">9i", 65536, 32767, 0, -65536, 65536, 0, 0, 0, 1 << 30)
    src.write_bytes(bytes(data))
    assert h.rotation_of(src) not in (None, 0, 90, -90, 180, -180), "ffmpeg no longer reads the matrix as a skewed turn"
    out = work / "sheared"
    rec = h.run([binary, "record", "--source", src, "--output", out, "--quiet", "--force"])
    assert rec.returncode == 0, rec.stderr[-400:]
    m = h.load_manifest(out)
    assert [s.get("rotationDegrees") for s in m["segments"]] == [None]
    assert any("not a quarter turn: not kept" in n for n in m["notes"]), m["notes"]
    assert h.rotation_of(out / "segment-000.mp4") is None
    assert h.count_frames(out / "segment-000.mp4") == 24
    v = h.run([binary, "verify", out])
    assert v.returncode == 0, v.stdout + v.stderr
