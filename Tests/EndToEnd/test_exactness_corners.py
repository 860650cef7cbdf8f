"""Two exactness corners of issue 43 item 11, read back with ffprobe/ffmpeg (stamps) and the manifest.

1. A camera switch cancelled before the new camera delivered a frame: the old camera resumes with the
   app's ratio, a new size no request of its own set. A later request for that same ratio, landing
   one frame after the resume and answered two frames after its frame, asks for the ratio in effect:
   it makes no segment, its completion is dropped, nothing is warned, and the resumed segment keeps
   its first frame's own device time with `announced: false` (the build before attached the request
   to it: the later frame's device time, `announced: true`, and a false "buffers disagree" warning).

   outer and inner at 10 fps on a 90 kHz clock without offset: frame i at 1 + i/10 s, D(i) = 90 000 +
   9 000 i. 16x9 asked at 0.3 s (pending), posture open at 0.35 s (to inner, 16x9 superseded, the app's
   ratio 16x9), posture closed at 0.45 s (back to outer before inner delivered: first frame
   D >= convert(1.7 s) = frame 7), 16x9 again at 0.6 s (latency 2: frame 8, already 16x9).
2. An event at exactly `durationSeconds` is refused (exit 65) as DESIGN.md now says: events at or
   after the end (`0 <= atSeconds < durationSeconds`).
"""
import e2e_helpers as h

CLOCK = {"timescale": 90000, "offsetSeconds": 0, "driftPPM": 0}
RESUME = {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 10, "clock": CLOCK},
                      {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 10, "clock": CLOCK}],
          "frontCamera": "individual", "initialPosture": "closed", "initialAspectRatio": "9x16", "completionDelayFrames": 2,
          "switchGapSeconds": 0.25, "sessionStartSeconds": 1.0, "durationSeconds": 1.5,
          "events": [{"atSeconds": 0.3, "setDynamicAspectRatio": "16x9"}, {"atSeconds": 0.35, "posture": "open"},
                     {"atSeconds": 0.45, "posture": "closed"}, {"atSeconds": 0.6, "setDynamicAspectRatio": "16x9"}]}


def test_resumed_camera_keeps_its_own_change_and_drops_the_same_ratio_request(binary, tmp_path):
    out = tmp_path / "resume"
    rec = h.run([binary, "record", "--scenario", h.write_json(tmp_path / "resume.json", RESUME), "--output", out,
                 "--preset", "ultrafast", "--quiet"])
    assert rec.returncode == 0, rec.stderr[-400:]
    manifest = h.load_manifest(out)
    segs = manifest["segments"]
    read = [h.stored_stamps(out / s["file"]) for s in segs]
    assert [(sizes[0], indices) for sizes, indices in read] == [((720, 1280), [0, 1, 2, 3]), ((1280, 720), list(range(4, 12)))]
    assert [h.duo_camera_codes(out / s["file"]) for s in segs] == [[0] * 4, [0] * 8]
    assert [s["startReason"] for s in segs] == ["recordingStarted", "dimensionsChanged"]
    assert segs[1]["change"] == {"deviceTime": {"value": 153000, "timescale": 90000},
                                 "sessionTime": {"value": 1_700_000_000, "timescale": 1_000_000_000},
                                 "aspectRatio": "16x9", "announced": False}
    assert manifest["warnings"] == []
    verified = h.run([binary, "verify", out])
    assert verified.returncode == 0, verified.stdout[-400:] + verified.stderr[-400:]


def test_an_event_at_the_very_end_is_refused_naming_the_rule(binary, tmp_path):
    scenario = {"device": {"format": 1280, "fps": 10}, "durationSeconds": 1.0,
                "events": [{"atSeconds": 0.5, "setDynamicAspectRatio": "16x9"}, {"atSeconds": 1.0, "videoZoomFactor": 1.5}]}
    path = h.write_json(tmp_path / "at-the-end.json", scenario)
    bad = h.run([binary, "record", "--scenario", path, "--output", tmp_path / "never"])
    assert bad.returncode == 65, bad.stderr
    assert path.name in bad.stderr and "events[1].atSeconds" in bad.stderr and "atSeconds < durationSeconds" in bad.stderr, bad.stderr
    assert not (tmp_path / "never").exists()
    # one nanosecond earlier is the last instant an event may have
    scenario["events"][1]["atSeconds"] = 0.999999999
    ok = h.run([binary, "record", "--scenario", h.write_json(tmp_path / "last.json", scenario), "--output", tmp_path / "last",
                "--preset", "ultrafast", "--quiet"])
    assert ok.returncode == 0, ok.stderr[-400:]
