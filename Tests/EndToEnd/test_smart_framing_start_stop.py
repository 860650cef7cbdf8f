"""Smart framing's start and stop as the seeds' start() / stop() (issue 43 items 1, 3, 4, 5), read
back from the files: sizes and frame-index stamps by ffprobe/ffmpeg, pixels by ffmpeg's framemd5.

1. `smartFraming start` on a 1920 camera with a person already in frame switches to 4032 and its
   first recommendation (narrow3x4) lands on the new format's first frame: frames 0-14 at
   1920x1080, frames 15-32 at 3024x4032 from 2.75 s, the zoom from frame 15 (the build before
   made a 15-frame 4032x3024 segment and moved 3x4 to 4.25 s).
3. `smartFraming stop` cancels the pending recommendation's task: its ratio request was made and
   lands (frame 5), its zoom is never set: the 3x4 frames are pixel-identical (lossless) to a run
   that asks for 3x4 with a plain request at the same time.
4. `enabledFramings: []`: none enabled, the monitor recommends nothing: one 4032x3024 segment.
5. `smartFraming start` on a camera with no smart framing format: the app's start() throws, the
   recording goes on (exit 0, a warning and a `smartFramingStartFailed` event), every frame kept.
10. The `activeFormatChanged` message names the new format's first frame as it is (3024x4032 3x4),
   not the ratio the format started with before the recommendation in the gap (4x3).
"""
from fractions import Fraction

import pytest

import e2e_helpers as h

CLOCK = {"timescale": 90000, "offsetSeconds": 0, "driftPPM": 0}


def front(fmt, ratio, **extra):
    return dict({"format": fmt, "fps": 10, "initialAspectRatio": ratio, "clock": CLOCK}, **extra)


SCENARIOS = {
    # 1.0 s start, 10 fps: frames at 1.0 + i/10; start at 2.5 s: frames 0-14 on 1920; 4032 from 2.75 s.
    "start-with-people": {"device": front(1920, "16x9"), "sessionStartSeconds": 1.0, "durationSeconds": 3.5,
                          "events": [{"atSeconds": 0.2, "peopleInFrame": 1}, {"atSeconds": 1.5, "smartFraming": "start"}]},
    # narrow3x4 recommended at 1.3 s (latency 2: 3x4 from frame 5 at 1.5 s); stopped at 1.4 s.
    "stop-pending": {"device": front(4032, "4x3", smartFraming=True), "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
                     "events": [{"atSeconds": 0.3, "peopleInFrame": 1}, {"atSeconds": 0.4, "smartFraming": "stop"}]},
    "stop-reference": {"device": front(4032, "4x3", smartFraming=True), "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
                       "events": [{"atSeconds": 0.3, "setDynamicAspectRatio": "3x4"}, {"atSeconds": 0.4, "smartFraming": "stop"}]},
    "none-enabled": {"device": front(4032, "4x3", smartFraming=True, enabledFramings=[]), "sessionStartSeconds": 1.0,
                     "durationSeconds": 1.0, "events": [{"atSeconds": 0.3, "peopleInFrame": 1},
                                                        {"atSeconds": 0.6, "peopleInFrame": 3}]},
    "start-duo": {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 10},
                              {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 10}],
                  "frontCamera": "individual", "initialPosture": "closed", "initialAspectRatio": "9x16",
                  "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
                  "events": [{"atSeconds": 0.2, "peopleInFrame": 2}, {"atSeconds": 0.35, "smartFraming": "start"},
                             {"atSeconds": 0.5, "smartFraming": "stop"}]},
    "start-virtual": {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280},
                                  {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280}],
                      "frontCamera": "virtual", "virtual": {"format": 1280, "fps": 10}, "initialPosture": "closed",
                      "initialAspectRatio": "9x16", "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
                      "events": [{"atSeconds": 0.35, "smartFraming": "start"}]},
    "start-earlier-front": {"device": {"type": "builtInWideAngleCamera", "format": "1280x960", "fps": 10, "clock": CLOCK},
                            "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
                            "events": [{"atSeconds": 0.35, "smartFraming": "start"}]},
}


@pytest.fixture(scope="module")
def recorded(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("smart-framing-start-stop")
    done = {}

    def get(name):
        if name not in done:
            path = h.write_json(work / f"{name}.json", SCENARIOS[name])
            out = work / name
            done[name] = (h.run([binary, "record", "--scenario", path, "--output", out, "--preset", "ultrafast",
                                 "--crf", "0", "--quiet"]), out)
        return done[name]
    return get


def layout(out):
    """[(width, height, [frame-index stamps])] of every segment file, read back by ffprobe/ffmpeg."""
    files = []
    for seg in h.load_manifest(out)["segments"]:
        sizes, indices = h.stored_stamps(out / seg["file"])
        assert len(set(sizes)) == 1, (seg["file"], sizes)
        files.append((*sizes[0], indices))
    return files


def events(out, kind):
    return [e for e in h.load_manifest(out).get("events", []) if e["kind"] == kind]


def test_start_with_people_lands_on_the_new_formats_first_frame(recorded):
    rec, out = recorded("start-with-people")
    assert rec.returncode == 0, rec.stderr[-400:]
    assert layout(out) == [(1920, 1080, list(range(15))), (3024, 4032, list(range(15, 33)))]
    segs = h.load_manifest(out)["segments"]
    assert [s["startReason"] for s in segs] == ["recordingStarted", "formatChanged"]
    assert h.t(segs[1]["sessionStart"]) == Fraction("2.75")
    assert segs[1]["change"]["aspectRatio"] == "3x4"
    assert [(z["frameIndex"], z["to"]) for z in events(out, "zoomChanged")] == [(15, "1.3")]
    # item 10: the activeFormatChanged message names what the first frame has, not the 4x3 it started at
    switched = events(out, "activeFormatChanged")
    assert [(e["frameIndex"], e["to"]) for e in switched] == [(15, "4032@10")]
    assert "3024x4032 3x4 at 10 fps after a" in switched[0]["message"] and "it started at 4x3" in switched[0]["message"]


def test_stop_cancels_the_pending_recommendations_zoom(recorded):
    rec, out = recorded("stop-pending")
    ref_rec, ref = recorded("stop-reference")
    assert rec.returncode == 0 and ref_rec.returncode == 0, (rec.stderr[-300:], ref_rec.stderr[-300:])
    # the ratio request was made before the stop: it lands on frame 5 (1.3 s + 2 periods = 1.5 s)
    assert layout(out) == [(4032, 3024, list(range(5))), (3024, 4032, list(range(5, 10)))]
    assert events(out, "zoomChanged") == []
    stop = events(out, "smartFramingChanged")
    assert [e["to"] for e in stop] == ["stop"] and "zoom 1.3 is never set" in stop[0]["message"]
    # no zoom in the pictures: every decoded 3x4 frame equals the plain request's (lossless)
    md5 = [h.run(["ffmpeg", "-v", "error", "-i", o / "segment-001.mp4", "-f", "framemd5", "-"]).stdout
           for o in (out, ref)]
    lines = [[ln.split(",")[-1] for ln in m.splitlines() if ln and not ln.startswith("#")] for m in md5]
    assert len(lines[0]) == 5 and lines[0] == lines[1]


def test_no_enabled_framings_recommends_nothing(recorded):
    rec, out = recorded("none-enabled")
    assert rec.returncode == 0, rec.stderr[-400:]
    assert layout(out) == [(4032, 3024, list(range(10)))]
    assert events(out, "smartFramingRecommended") == [] and events(out, "zoomChanged") == []


@pytest.mark.parametrize("name,camera,size", [("start-duo", "outer", (720, 1280)),
                                              ("start-virtual", "virtualFront", (720, 1280)),
                                              ("start-earlier-front", "front", (1280, 960))])
def test_start_without_a_smart_framing_format_is_logged_and_recording_goes_on(recorded, name, camera, size):
    rec, out = recorded(name)
    assert rec.returncode == 0, rec.stderr[-400:]
    assert layout(out) == [(*size, list(range(10)))]
    failed = events(out, "smartFramingStartFailed")
    assert [(e["camera"], e["to"], h.t(e["sessionTime"])) for e in failed] == [(camera, "start", Fraction("1.35"))]
    warnings = h.load_manifest(out)["warnings"]
    assert len(warnings) == 1 and f"camera {camera}" in warnings[0] and "has no format with smart framing" in warnings[0]
    assert failed[0]["message"] == warnings[0]
    assert events(out, "smartFramingChanged") == []
