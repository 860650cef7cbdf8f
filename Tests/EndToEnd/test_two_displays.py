"""Issue 43 item 7: two displays. The app's views are scenario objects (`views`: a view on the inner or the
outer display; `moveView` events move one), each with its own direction coordinator reporting facing
relative to its own view, and the app chooses which view drives the recording (`drivingView`).

outer, inner and back at 10 fps on a 90 kHz clock without offset (frame i at 1 + i/10 s), switch gap
0.25 s, the phone open. View main on the outer display drives: its coordinator sees openOuterDisplay, so
the back camera streams (stamp code 2). At 0.3 s the app lets view guest (inner display) drive: the
recording follows its coordinator (open: inner, code 1, first frame at or after 0.55 s: 0.6 s). At 0.7 s
the phone closes: guest's coordinator selects outer (code 0, from 1.0 s), and main's own coordinator,
which no longer drives, reports the back camera turned away from its view (`viewFacingChanged`).
The build before knew no `views` key (exit 65).
"""
import e2e_helpers as h

CLOCK = {"timescale": 90000, "offsetSeconds": 0, "driftPPM": 0}
CAMERAS = [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 10, "clock": CLOCK},
           {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 10, "clock": CLOCK},
           {"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080", "fps": 10, "clock": CLOCK}]
TWO = {"cameras": CAMERAS, "frontCamera": "individual", "views": [{"id": "main", "display": "outer"}, {"id": "guest", "display": "inner"}],
       "drivingView": "main", "initialPosture": "open", "initialAspectRatio": "9x16", "switchGapSeconds": 0.25,
       "sessionStartSeconds": 1.0, "durationSeconds": 1.2,
       "events": [{"atSeconds": 0.3, "drivingView": "guest"}, {"atSeconds": 0.7, "posture": "closed"}]}


def read_back(out):
    manifest = h.load_manifest(out)
    return manifest, [(s["camera"], *h.stored_stamps(out / s["file"]), h.duo_camera_codes(out / s["file"])) for s in manifest["segments"]]


def test_the_driving_view_chooses_the_camera_and_each_view_reports_its_own_facing(binary, tmp_path):
    rec, out = h.record_scenario(binary, tmp_path, "two", TWO)
    assert rec.returncode == 0, rec.stderr[-400:]
    manifest, read = read_back(out)
    assert [(cam, sizes[0], indices, codes) for cam, sizes, indices, codes in read] == [
        ("back", (1920, 1080), [0, 1, 2], [2, 2, 2]), ("inner", (720, 1280), [3], [1]), ("outer", (720, 1280), [4, 5], [0, 0])]
    assert [s["startReason"] for s in manifest["segments"]] == ["recordingStarted", "cameraSwitched", "cameraSwitched"]
    assert [s["facing"] for s in manifest["segments"]] == ["user", "user", "user"]
    events = [(e["kind"], e.get("camera"), e.get("from"), e.get("to"), e["sessionTime"]["value"]) for e in manifest["events"]
              if e["kind"] in ("drivingViewChanged", "postureChanged", "viewFacingChanged", "viewMoved")]
    assert events == [("drivingViewChanged", None, "main", "guest", 1_300_000_000),
                      ("postureChanged", None, "openOuterDisplay", "open", 1_300_000_000),
                      ("viewFacingChanged", "back", "user", "away", 1_700_000_000),
                      ("postureChanged", None, "open", "closed", 1_700_000_000)]
    facing = next(e for e in manifest["events"] if e["kind"] == "viewFacingChanged")
    assert "view main on the outer display" in facing["message"]
    verified = h.run([binary, "verify", out])
    assert verified.returncode == 0, verified.stdout[-400:] + verified.stderr[-400:]


def test_moving_the_driving_view_to_the_outer_display_turns_to_the_back_camera(binary, tmp_path):
    one = {**TWO, "views": [{"id": "main", "display": "inner"}], "drivingView": "main",
           "events": [{"atSeconds": 0.3, "moveView": {"id": "main", "display": "outer"}}]}
    rec, out = h.record_scenario(binary, tmp_path, "move", one)
    assert rec.returncode == 0, rec.stderr[-400:]
    manifest, read = read_back(out)
    # inner (code 1) for frames 0-2, then back (code 2) from its first frame at or after 0.55 s (0.6 s)
    assert [(cam, indices, codes) for cam, _, indices, codes in read] == [("inner", [0, 1, 2], [1, 1, 1]), ("back", [3, 4, 5, 6, 7, 8], [2] * 6)]
    moved = [(e["kind"], e.get("from"), e.get("to")) for e in manifest["events"] if e["kind"] in ("viewMoved", "postureChanged")]
    assert moved == [("viewMoved", "inner", "outer"), ("postureChanged", "open", "openOuterDisplay")]


def test_a_view_event_that_changes_nothing_leaves_a_note_and_no_change(binary, tmp_path):
    """Moving a view to the display it is on, or letting the view that drives drive: nothing
    changes (one segment, no viewMoved or drivingViewChanged), and a note says each was seen
    (the build before took them silently, leaving no trace in the manifest)."""
    same = {**TWO, "events": [{"atSeconds": 0.3, "moveView": {"id": "main", "display": "outer"}}, {"atSeconds": 0.5, "drivingView": "main"}]}
    rec, out = h.record_scenario(binary, tmp_path, "same", same)
    assert rec.returncode == 0, rec.stderr[-400:]
    manifest, read = read_back(out)
    assert [(cam, indices) for cam, _, indices, _ in read] == [("back", list(range(12)))]
    assert not [e for e in manifest["events"] if e["kind"] in ("viewMoved", "drivingViewChanged", "postureChanged")]
    notes = [n for n in manifest["notes"] if "nothing changes" in n]
    assert len(notes) == 2, manifest["notes"]
    assert notes[0].startswith("moveView main at session time 1300000000/1000000000") and "outer display already" in notes[0]
    assert notes[1].startswith("drivingView main at session time 1500000000/1000000000") and "drives the recording already" in notes[1]


def test_views_that_cannot_be_followed_exit_65_naming_the_key(binary, tmp_path):
    cases = [({"initialPosture": "openOuterDisplay"}, "initialPosture"),
             ({"events": [{"atSeconds": 0.3, "posture": "openOuterDisplay"}]}, "events[0].posture"),
             ({"events": [{"atSeconds": 0.3, "moveView": {"id": "nobody", "display": "outer"}}]}, "events[0].moveView"),
             ({"drivingView": "nobody"}, "drivingView"),
             ({"views": [{"id": "a", "display": "inner"}, {"id": "a", "display": "outer"}]}, "views[1].id"),
             ({"views": [{"id": "a", "display": "side"}]}, "views[0].display")]
    for change, key in cases:
        rec, out = h.record_scenario(binary, tmp_path, "bad", {**TWO, **change})
        assert rec.returncode == 65 and f": {key}: " in rec.stderr, (change, rec.stderr)
        assert not out.exists()
    plain = {k: v for k, v in TWO.items() if k not in ("views", "drivingView")}
    rec, _ = h.record_scenario(binary, tmp_path, "no-views", {**plain, "events": [{"atSeconds": 0.3, "drivingView": "guest"}]})
    assert rec.returncode == 65 and ": events[0].drivingView: " in rec.stderr, rec.stderr
