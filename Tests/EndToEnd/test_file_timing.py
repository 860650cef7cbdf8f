"""Encoder limits, file timing and HEVC frame rates, read back with mediainfo and ffprobe
(issue 14 items 2, 3, 6).

- case01 (VP8, 31 fps, three sizes), presets veryfast (B-frames) and ultrafast: three
  segments of 31 frames, MediaInfo `31|31.000|CFR|1000`, ffprobe 31 frames at 31/1;
- p16, case11 and a generated 70 s still period: one file, every input frame, MediaInfo /
  ffprobe / manifest agree on frames and duration (no timestampGap);
- HEVC sizes (p08 files and a generated sweep under MALLOC_CHECK_=3): a playable file or
  exit 65 naming the 16x16 limit, never an abort;
- HEVC at 2, 7, 15 and 18 fps (and SampleStreams' 15 fps smart-framing scenario): every
  frame decodes, the first packet is a keyframe, none is discarded, verify passes.
"""
import json
import os
import shutil

import pytest

import e2e_helpers as h
import recordings as catalog
from conftest import segment_params

needs_cases = pytest.mark.skipif(not (h.CASES / "README.md").exists(),
                                 reason=f"file timing cases: {h.CASES} is absent")
needs_mediainfo = pytest.mark.skipif(shutil.which("mediainfo") is None, reason="mediainfo is not installed")


def manifest_of(out):
    return h.load_manifest(out) if (out / "manifest.json").exists() else {}


def mediainfo(path):
    return h.run(["mediainfo", "--Inform=Video;%FrameCount%|%FrameRate%|%FrameRate_Mode%|%Duration%", path]).stdout.strip()


def probe(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                 "stream=nb_read_frames,r_frame_rate,avg_frame_rate,duration,width,height", "-of", "json", path])
    return (json.loads(out.stdout or "{}").get("streams") or [{}])[0]


def input_frames(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                 "stream=nb_read_frames", "-of", "csv=p=0", path])
    return int(out.stdout.strip().split(",")[0] or -1)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("timing")


@pytest.fixture(scope="module")
def timed(binary, work):
    """Recordings of this module by name, each made once: (exit, stderr, out folder)."""
    done = {}

    def get(name, args):
        if name not in done:
            out = work / name
            done[name] = (h.run([binary, "record", *args, "--output", out, "--quiet"]), out)
        return done[name]
    return get


# ---- case01 with and without B-frames ----
PRESETS = ["veryfast", "ultrafast"]


def case01(timed, preset):
    return timed(f"case01-{preset}", ["--source", h.CASES / "case01_vp8_3sizes_31fps.ivf", "--preset", preset])


@needs_cases
@pytest.mark.parametrize("preset", PRESETS)
def test_case01_record_exits_0(timed, preset):
    rec, _ = case01(timed, preset)
    assert rec.returncode == 0, rec.stderr.strip()[-400:]


@needs_cases
@pytest.mark.parametrize("preset", PRESETS)
def test_case01_3_segments_of_31_frames(timed, preset):
    _, out = case01(timed, preset)
    segs = manifest_of(out).get("segments", [])
    assert [s["frameCount"] for s in segs] == [31, 31, 31]


def case01_segment(timed, preset, index):
    _, out = case01(timed, preset)
    segs = manifest_of(out).get("segments", [])
    assert index < len(segs), f"{len(segs)} segments"
    return out / segs[index]["file"], segs[index]


@needs_cases
@pytest.mark.parametrize("index", range(3), ids=[f"segment-00{i}.mp4" for i in range(3)])
@pytest.mark.parametrize("preset", PRESETS)
def test_case01_segment_ffprobe_31_frames_at_31_fps_1_s(timed, preset, index):
    path, seg = case01_segment(timed, preset, index)
    st = probe(path)
    assert st.get("nb_read_frames") == "31" and st.get("r_frame_rate") == "31/1" and st.get("avg_frame_rate") == "31/1" \
        and abs(float(st.get("duration", 0)) - h.span(seg)) < 1e-5, st


@needs_cases
@needs_mediainfo
@pytest.mark.parametrize("index", range(3), ids=[f"segment-00{i}.mp4" for i in range(3)])
@pytest.mark.parametrize("preset", PRESETS)
def test_case01_segment_mediainfo_31_frames_31_fps_cfr_1000_ms(timed, preset, index):
    path, _ = case01_segment(timed, preset, index)
    assert mediainfo(path) == "31|31.000|CFR|1000"


@needs_cases
@pytest.mark.parametrize("preset", PRESETS)
def test_case01_verify_passes(timed, binary, preset):
    _, out = case01(timed, preset)
    ver = h.run([binary, "verify", out])
    assert ver.returncode == 0, ver.stdout[-400:]


# ---- still periods: one file, every frame, the still frame lasting until the next ----
@pytest.fixture(scope="module")
def still70(work):
    generated = work / "still70.mkv"
    gen = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=0.4",
                 "-vf", "setpts=PTS+gte(N\\,5)*70/TB", "-fps_mode", "passthrough", "-c:v", "ffv1", generated])
    return gen, generated


@needs_cases
def test_ffmpeg_makes_a_70_s_still_period(still70):
    gen, _ = still70
    assert gen.returncode == 0, gen.stderr[-300:]


STILLS = ["p16", "case11", "still70"]


def still(timed, still70, name):
    source = {"p16": h.CASES / "p16_vfr_static_screen.mp4", "case11": h.CASES / "case11_sparse.mkv",
              "still70": still70[1]}[name]
    rec, out = timed(f"still-{name}", ["--source", source])
    return rec, out, source


@needs_cases
@pytest.mark.parametrize("name", STILLS)
def test_still_record_exits_0(timed, still70, name):
    rec, _, _ = still(timed, still70, name)
    assert rec.returncode == 0, rec.stderr.strip()[-400:]


def one_segment(timed, still70, name):
    _, out, source = still(timed, still70, name)
    m = manifest_of(out)
    segs = m.get("segments", [])
    return m, segs, input_frames(source), out


@needs_cases
@pytest.mark.parametrize("name", STILLS)
def test_still_one_segment_holding_all_input_frames_no_timestamp_gap(timed, still70, name):
    m, segs, expected, _ = one_segment(timed, still70, name)
    assert len(segs) == 1 and segs[0]["frameCount"] == expected and m["frames"]["dropped"] == 0, \
        f"{expected} input frames: {[(s['frameCount'], s['startReason']) for s in segs]}"


@needs_cases
@pytest.mark.parametrize("name", STILLS)
def test_still_ffprobe_frames_and_duration_match_the_manifest(timed, still70, name):
    _, segs, expected, out = one_segment(timed, still70, name)
    assert len(segs) == 1, f"{len(segs)} segments"
    st = probe(out / segs[0]["file"])
    assert st.get("nb_read_frames") == str(expected) and abs(float(st.get("duration", 0)) - h.span(segs[0])) < 1e-5, \
        f"{st} vs {h.span(segs[0]):.6f} s"


@needs_cases
@needs_mediainfo
@pytest.mark.parametrize("name", STILLS)
def test_still_mediainfo_frames_and_duration_match_the_manifest(timed, still70, name):
    _, segs, expected, out = one_segment(timed, still70, name)
    assert len(segs) == 1, f"{len(segs)} segments"
    fields = mediainfo(out / segs[0]["file"]).split("|")
    assert len(fields) == 4 and fields[0] == str(expected) and \
        abs(int(fields[3] or -9) - round(h.span(segs[0]) * 1000)) <= 1, f"{fields} vs {h.span(segs[0]):.3f} s"


@needs_cases
@pytest.mark.parametrize("name", STILLS)
def test_still_verify_passes(timed, still70, binary, name):
    _, segs, _, out = one_segment(timed, still70, name)
    assert len(segs) == 1, f"{len(segs)} segments"
    ver = h.run([binary, "verify", out])
    assert ver.returncode == 0, ver.stdout[-400:]


# ---- encoder limits: HEVC sizes, under glibc's heap checks ----
MALLOC_ENV = dict(os.environ, MALLOC_CHECK_="3")


@needs_cases
def test_limits_p08_34x18_hevc_exit_0_ffprobe_5_frames(binary, work):
    out = work / "limits-34x18"
    rec = h.run([binary, "record", "--source", h.CASES / "p08_hevc_crash_34x18.y4m", "--codec", "hevc",
                 "--output", out, "--quiet"], env=MALLOC_ENV)
    st = probe(out / "segment-000.mp4") if rec.returncode == 0 else {}
    assert rec.returncode == 0 and st.get("nb_read_frames") == "5" and st.get("width") == 34 and st.get("height") == 18, \
        f"exit {rec.returncode} {rec.stderr.strip()[-300:]} {st}"


@needs_cases
def test_limits_p08_2x2_hevc_exit_65_naming_the_16x16_limit(binary, work):
    out = work / "limits-2x2"
    rec = h.run([binary, "record", "--source", h.CASES / "p08_hevc_open_fails_2x2.y4m", "--codec", "hevc",
                 "--output", out, "--quiet"], env=MALLOC_ENV)
    assert rec.returncode == 65 and "at least 16x16" in rec.stderr and "2x2" in rec.stderr, \
        f"exit {rec.returncode} {rec.stderr.strip()[-300:]}"


HEVC_SIZES = [(14, 16), (16, 14), (16, 16), (18, 18), (36, 20), (40, 24), (46, 30), (48, 48), (50, 18), (64, 16)]


@needs_cases
@pytest.mark.parametrize("w,hh", HEVC_SIZES, ids=[f"{w}x{hh}" for w, hh in HEVC_SIZES])
def test_limits_hevc_size_exit_0_12_frames_or_65_naming_the_limit(binary, work, w, hh):
    y4m = work / f"limits-{w}x{hh}.y4m"
    frame = bytes((16 + (i * 7) % 200) for i in range(w * hh)) + bytes([128]) * (2 * (w // 2) * (hh // 2))
    y4m.write_bytes(f"YUV4MPEG2 W{w} H{hh} F30:1 Ip A1:1 C420jpeg\n".encode() + b"".join(b"FRAME\n" + frame for _ in range(12)))
    out = work / f"limits-{w}x{hh}"
    rec = h.run([binary, "record", "--source", y4m, "--codec", "hevc", "--output", out, "--quiet"], env=MALLOC_ENV)
    if w < 16 or hh < 16:
        assert rec.returncode == 65 and "16x16" in rec.stderr, f"exit {rec.returncode} {rec.stderr.strip()[-300:]}"
    else:
        st = probe(out / "segment-000.mp4") if rec.returncode == 0 else {}
        assert rec.returncode == 0 and st.get("nb_read_frames") == "12" and st.get("width") == w \
            and st.get("height") == hh, f"exit {rec.returncode} {rec.stderr.strip()[-300:]} {st}"


# ---- HEVC at low frame rates (shared recordings hevc/*) ----
@pytest.mark.parametrize("key", catalog.HEVC_KEYS)
def test_hevc_record_exits_0(recordings, key):
    rec = recordings.get(key)
    assert rec.returncode == 0, rec.stderr.strip()[-400:]


@pytest.mark.parametrize("key", catalog.HEVC_KEYS)
def test_hevc_verify_passes_every_frame_decodes_keyframe_first(recordings, binary, key):
    ver = h.run([binary, "verify", recordings.ok(key).out])
    assert ver.returncode == 0, ver.stdout[-600:]


@pytest.mark.parametrize("key,index", segment_params(catalog.HEVC_KEYS))
def test_hevc_first_packet_a_keyframe_none_discarded_all_frames_decode(recordings, key, index):
    rec = recordings.ok(key)
    seg = rec.segment(index)
    pk = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                "-of", "csv=p=0", rec.out / seg["file"]]).stdout.split()
    st = probe(rec.out / seg["file"])
    assert pk[:1] and pk[0].startswith("K") and not any("D" in f for f in pk) \
        and st.get("nb_read_frames") == str(seg["frameCount"]), f"{pk[:4]} {st.get('nb_read_frames')}"
