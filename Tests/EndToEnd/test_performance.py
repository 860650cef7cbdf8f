"""Performance paths (issue 15): yuv420p input reaches x264 and x265 as decoded (no NV12
pass) and the pictures are handed to the encoder without a copy: the files must still hold
every frame, at the input's size, in yuv420p, with every frame-index stamp (read back by
ffmpeg), and pass `segrec verify`. A --realtime recording accounts for every frame it
received; --frames-in-flight 1 still records every frame; values outside 1...240 are usage errors."""
import json

import pytest

import e2e_helpers as h


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("performance")


@pytest.fixture(scope="module")
def y4m(work):
    path = work / "perf-420.y4m"
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=352x288:rate=30",
                  "-frames:v", "45", "-pix_fmt", "yuv420p", path])
    return made, path


def test_yuv420p_y4m_made_by_ffmpeg(y4m):
    made, _ = y4m
    assert made.returncode == 0, made.stderr[-300:]


@pytest.fixture(scope="module")
def by_codec(binary, work, y4m):
    done = {}

    def get(codec):
        if codec not in done:
            out = work / f"perf-420-{codec}"
            done[codec] = (h.run([binary, "record", "--source", y4m[1], "--output", out, "--codec", codec,
                                  "--stamp-frame-index", "--preset", "ultrafast", "--quiet"]), out)
        return done[codec]
    return get


def recorded(by_codec, codec):
    rec, out = by_codec(codec)
    assert rec.returncode == 0, (rec.stdout + rec.stderr)[-400:]
    return out


CODECS = pytest.mark.parametrize("codec", ["h264", "hevc"])


@CODECS
def test_record_yuv420p_exits_0(by_codec, codec):
    recorded(by_codec, codec)


@CODECS
def test_manifest_says_yuv420p_is_recorded_as_decoded(by_codec, codec):
    m = h.load_manifest(recorded(by_codec, codec))
    assert any("yuv420p (8-bit YUV 4:2:0): recorded as decoded" in n for n in m.get("notes", [])), m.get("notes")


@CODECS
def test_ffprobe_352x288_yuv420p_45_frames(by_codec, codec):
    path = recorded(by_codec, codec) / "segment-000.mp4"
    probe = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                   "stream=width,height,pix_fmt,nb_read_frames", "-of", "json", path])
    stream = (json.loads(probe.stdout or "{}").get("streams") or [{}])[0]
    assert (stream.get("width"), stream.get("height"), stream.get("pix_fmt"), stream.get("nb_read_frames")) \
        == (352, 288, "yuv420p", "45"), stream


@CODECS
def test_frame_index_stamps_0_to_44_in_order(by_codec, codec):
    _, indices, whole = h.read_stamps(["-i", str(recorded(by_codec, codec) / "segment-000.mp4")])
    assert indices == list(range(45)) and whole, indices[:8]


@CODECS
def test_segrec_verify(by_codec, binary, codec):
    verify = h.run([binary, "verify", recorded(by_codec, codec)])
    assert verify.returncode == 0, verify.stdout[-600:] + verify.stderr[-300:]


@pytest.fixture(scope="module")
def realtime(binary, work, y4m):
    out = work / "perf-realtime"
    rec = h.run([binary, "record", "--source", y4m[1], "--output", out, "--realtime",
                 "--stamp-frame-index", "--preset", "ultrafast", "--quiet"])
    m = h.load_manifest(out) if (out / "manifest.json").exists() else {}
    return rec, out, m


def test_realtime_received_45_is_written_plus_dropped_only_late_drops(realtime):
    rec, _, m = realtime
    f = m.get("frames", {})
    assert rec.returncode == 0 and f.get("received") == 45 and f.get("received") == f.get("written", 0) + f.get("dropped", 0) \
        and set(f.get("droppedReasons", {})) <= {"late"}, f


def test_realtime_the_written_frames_stamps_increase_as_many_as_written(realtime):
    rec, out, m = realtime
    assert rec.returncode == 0 and m.get("segments"), rec.stderr[-300:]
    _, indices, _ = h.read_stamps(["-i", str(out / "segment-000.mp4")])
    assert len(indices) == m["frames"]["written"] and all(a < b for a, b in zip(indices, indices[1:])), indices[:10]


def test_frames_in_flight_1_all_45_frames_stamps_0_to_44(binary, work, y4m):
    """One picture in flight still records every frame (back-pressure)."""
    out = work / "perf-one-in-flight"
    rec = h.run([binary, "record", "--source", y4m[1], "--output", out, "--frames-in-flight", "1",
                 "--stamp-frame-index", "--preset", "ultrafast", "--quiet"])
    assert rec.returncode == 0, rec.stderr[-300:]
    _, indices, _ = h.read_stamps(["-i", str(out / "segment-000.mp4")])
    assert indices == list(range(45)), indices[:8]


@pytest.mark.parametrize("value", ["0", "241", "x"])
def test_frames_in_flight_out_of_range_exit_64_naming_1_to_240_no_folder(binary, tmp_path, y4m, value):
    """A value outside 1...240 is a usage error before any folder is made."""
    bad = h.run([binary, "record", "--source", y4m[1], "--output", tmp_path / "perf-bad-fif",
                 "--frames-in-flight", value, "--quiet"])
    assert bad.returncode == 64 and "1...240" in bad.stderr and not (tmp_path / "perf-bad-fif").exists(), bad.stderr.strip()
