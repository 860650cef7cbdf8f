"""The device-tick tie rule is a ratio request's only (issue 43 item 2), read back from the files'
frame-index stamps (rows 0-15) and camera stamps (rows 16-31) with ffprobe/ffmpeg.

On a coarse device clock (1 kHz, or 600 ticks a second) an event a fraction of a tick after a
capture converts to that frame's very tick. DESIGN.md decides camera switches and turns on the
session clock: a posture change at `s` ends the old camera at "the frames captured before `s`",
and `--split-on-rotation` starts its segment at "the first frame captured at or after the change".
Only a request made at a frame's capture instant (latency 0) takes effect on that frame.

The clocks have no offset or drift, so frame i of a 30 fps camera is captured at session time
1 + D(i)/ts - 1 s with D(i) = ts + round(i * ts / 30): on 1 kHz, frame 5 at 1.167 s (an event at
1.1674 s converts to tick 1167, frame 5's); on 600 ticks, frame 5 at 1.1666666667 s (1.16717 s
converts to tick 700, frame 5's). The build before applied the event before frame 5: the posture
dropped it uncounted (5 outer frames, 22 received), the turn started its segment at frame 5.
"""
import pytest

import e2e_helpers as h

CLOCKS = {"1kHz": ({"timescale": 1000, "offsetSeconds": 0, "driftPPM": 0}, 0.1674),
          "600": ({"timescale": 600, "offsetSeconds": 0, "driftPPM": 0}, 0.16717)}


def duo(clock, at):
    return {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 30, "clock": clock},
                        {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 30, "clock": clock}],
            "frontCamera": "individual", "initialPosture": "closed", "initialAspectRatio": "9x16",
            "sessionStartSeconds": 1.0, "durationSeconds": 1.0, "events": [{"atSeconds": at, "posture": "open"}]}


def turn(clock, at):
    return {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16", "clock": clock},
            "sessionStartSeconds": 1.0, "durationSeconds": 0.5, "events": [{"atSeconds": at, "deviceOrientation": "landscapeLeft"}]}


def request(clock, at):
    return {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16", "clock": clock, "changeLatencyFrames": 0},
            "sessionStartSeconds": 1.0, "durationSeconds": 0.5, "events": [{"atSeconds": at, "setDynamicAspectRatio": "16x9"}]}


def record(binary, tmp_path, name, scenario, *extra):
    out = tmp_path / name
    rec = h.run([binary, "record", "--scenario", h.write_json(tmp_path / f"{name}.json", scenario), "--output", out,
                 "--preset", "ultrafast", "--quiet", *extra])
    assert rec.returncode == 0, rec.stderr[-400:]
    manifest = h.load_manifest(out)
    files = []
    for seg in manifest["segments"]:
        sizes, indices = h.stored_stamps(out / seg["file"])
        assert len(set(sizes)) == 1, (seg["file"], sizes)
        files.append((seg["startReason"], sizes[0], indices))
    return manifest, files


@pytest.mark.parametrize("clock", list(CLOCKS))
def test_posture_just_after_a_capture_keeps_that_frame_on_the_old_camera(binary, tmp_path, clock):
    manifest, files = record(binary, tmp_path, "posture", duo(*CLOCKS[clock]))
    # outer: frames 0-5 (5 captured before the event); inner from its grid frame 13 (D >= s + 0.25 s)
    assert files == [("recordingStarted", (720, 1280), list(range(6))), ("cameraSwitched", (720, 1280), list(range(6, 23)))]
    assert [h.duo_camera_codes(tmp_path / "posture" / s["file"]) for s in manifest["segments"]] == [[0] * 6, [1] * 17]
    assert manifest["frames"] == {**manifest["frames"], "received": 23, "written": 23, "dropped": 0}
    # inner grid frame 13: D = ts + round(13 * ts / 30), converted to the session clock's ns
    want = 1_433_000_000 if clock == "1kHz" else 1_433_333_333
    assert manifest["segments"][1]["sessionStart"] == {"value": want, "timescale": 1_000_000_000}


@pytest.mark.parametrize("clock", list(CLOCKS))
def test_split_on_rotation_starts_at_the_first_frame_at_or_after_the_turn(binary, tmp_path, clock):
    manifest, files = record(binary, tmp_path, "turn", turn(*CLOCKS[clock]), "--split-on-rotation")
    assert files == [("recordingStarted", (720, 1280), list(range(6))), ("rotationChanged", (720, 1280), list(range(6, 15)))]
    assert h.t(manifest["segments"][1]["sessionStart"]) == h.t({"value": 12, "timescale": 10})
    assert [s["rotationDegrees"] for s in manifest["segments"]] == [0, 90]
    rotation = [e for e in manifest["events"] if e["kind"] == "rotationChanged"]
    assert [(e["frameIndex"], e["to"]) for e in rotation] == [(6, "90")]


@pytest.mark.parametrize("clock", list(CLOCKS))
def test_a_request_at_a_capture_instant_still_takes_that_frame(binary, tmp_path, clock):
    # unchanged by the fix (the rule DESIGN.md states for requests): 16x9 from frame 5
    _, files = record(binary, tmp_path, "request", request(*CLOCKS[clock]))
    assert files == [("recordingStarted", (720, 1280), list(range(5))), ("dimensionsChanged", (1280, 720), list(range(5, 15)))]
