"""Format-switch defects of cold test 13, read back with ffprobe/ffmpeg: a ratio request
pending at an activeFormat switch completes superseded (the new format keeps the ratio in
effect: 720x1280, 3024x4032); a format lacking the ratio in effect, or one the streaming
camera lacks (cameras), exits 65 before any folder; Center Stage's zoom ends with a switch
that deactivates it (the 3840 frames are pixel-identical, lossless, to a run without people);
peopleInFrame is accepted where nothing acts on it; cameras + --source footage carry the
clip's notes (audio ignored, rotation applied)."""
import pytest

import e2e_helpers as h

CLOCK = {"timescale": 24000000, "offsetSeconds": 0, "driftPPM": 0}


def pending(initial, at, fmt):
    return {"device": {"format": 1920, "fps": 30, "initialAspectRatio": initial, "clock": CLOCK, "changeLatencyFrames": 5},
            "switchGapSeconds": 0.05, "sessionStartSeconds": 1.0, "durationSeconds": 1.2,
            "events": [{"atSeconds": at, "setDynamicAspectRatio": "16x9"}, {"atSeconds": 0.52, "activeFormat": fmt}]}


CS = {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "4x3",
                 "clock": {"timescale": 24000000, "offsetSeconds": 0.1, "driftPPM": 0}},
      "centerStageEnabled": True, "centerStageControlMode": "cooperative", "sessionStartSeconds": 1.0, "durationSeconds": 1.6,
      "events": [{"atSeconds": 0.1, "peopleInFrame": 1}, {"atSeconds": 0.5, "activeFormat": 3840},
                 {"atSeconds": 1.0, "centerStageEnabled": False}, {"atSeconds": 1.2, "centerStageEnabled": True}]}
DUO = {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 30},
                   {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 30},
                   {"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080", "fps": 30}],
       "frontCamera": "individual", "initialPosture": "open", "initialAspectRatio": "16x9", "switchGapSeconds": 0.1,
       "sessionStartSeconds": 10.0, "durationSeconds": 1.0, "events": [{"atSeconds": 0.3, "activeFormat": 3840}]}
SCENARIOS = {
    # 16x9 at 1.5 s takes effect at D = 36e6 + 5·800000 = 40e6 (frame 20); the switch at 1.52 s comes first:
    # frames 0..15 at 1080x1920, then 19 frames from 1.57 s at 720x1280 (9x16 kept).
    "pending-1280": (pending("9x16", 0.5, 1280), []),
    "pending-4032": (pending("3x4", 0.5, 4032), []),
    # 16x9 at 1.3 s is in effect from frame 14 (D = 31.2e6 + 4e6 = 35.2e6): 4032 lacks it -> 65, no folder.
    "in-effect-4032": (pending("3x4", 0.3, 4032), []),
    # Center Stage: 1 person zooms 1.5 on 1920; the switch to 3840 at 1.5 s deactivates it: zoom 1.0 from frame 15.
    "cs-people": (CS, ["--crf", "0"]),
    "cs-reference": (dict(CS, events=CS["events"][1:]), ["--crf", "0"]),
    "people-3840": ({"device": {"format": 3840, "fps": 30, "initialAspectRatio": "16x9", "clock": CLOCK},
                     "centerStageEnabled": True, "centerStageControlMode": "app", "sessionStartSeconds": 1.0,
                     "durationSeconds": 1.0, "events": [{"atSeconds": 0.2, "peopleInFrame": 1}]}, []),
    # cameras: the camera streaming at the event's time (posture open -> inner) decides; inner lacks 3840.
    "duo-inner-3840": (DUO, []),
    "duo-footage": (dict(DUO, initialPosture="closed", durationSeconds=0.2, events=[]), ["--source", str(h.PHONE)]),
}


@pytest.fixture(scope="module")
def switched(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("format-switch")
    done = {}

    def get(name):
        if name not in done:
            scenario, extra = SCENARIOS[name]
            path = h.write_json(work / f"fsd-{name}.json", scenario)
            out = work / f"fsd-{name}"
            done[name] = (h.run([binary, "record", "--scenario", path, *extra, "--output", out,
                                 "--preset", "ultrafast", "--quiet"]), out)
        return done[name]
    return get


def probe(path):
    frames = h.ffprobe_frames(path)
    return (frames[0]["width"], frames[0]["height"], len(frames)) if frames else None


PENDING = {"pending-1280": ((1080, 1920, 16), (720, 1280, 19)), "pending-4032": ((1440, 1920, 16), (3024, 4032, 19))}


@pytest.mark.parametrize("name", list(PENDING))
def test_format_switch_pending_record_exits_0(switched, name):
    rec, _ = switched(name)
    assert rec.returncode == 0, rec.stderr.strip()[-300:]


def ok(switched, name):
    rec, out = switched(name)
    assert rec.returncode == 0, rec.stderr.strip()[-300:]
    return h.load_manifest(out), out


@pytest.mark.parametrize("name", list(PENDING))
def test_format_switch_pending_16x9_superseded_ffprobe_sizes(switched, name):
    m, out = ok(switched, name)
    got = [probe(out / seg["file"]) for seg in m["segments"]]
    assert got == list(PENDING[name]), got


@pytest.mark.parametrize("name", list(PENDING))
def test_format_switch_pending_segrec_verify(switched, binary, name):
    _, out = ok(switched, name)
    verify = h.run([binary, "verify", out])
    assert verify.returncode == 0, verify.stdout[-300:]


def test_format_switch_4032_lacking_the_ratio_in_effect_exits_65_naming_file_key_allowed_formats(switched):
    rec, out = switched("in-effect-4032")
    assert rec.returncode == 65 and "fsd-in-effect-4032.json: events[1].activeFormat" in rec.stderr \
        and "a format listing 16x9: 1280, 1920, 3840" in rec.stderr and not out.exists(), rec.stderr.strip()[-300:]


@pytest.mark.parametrize("name", ["cs-people", "cs-reference"])
def test_format_switch_center_stage_record_exits_0(switched, name):
    rec, _ = switched(name)
    assert rec.returncode == 0, rec.stderr.strip()[-300:]


def test_format_switch_center_stage_zoom_logged_1_5_at_frame_3_back_to_1_0_at_frame_15(switched):
    m, _ = ok(switched, "cs-people")
    zooms = [(e.get("frameIndex"), e.get("to")) for e in m.get("events", []) if e["kind"] == "zoomChanged"]
    assert zooms == [(3, "1.5"), (15, "1.0")], zooms


def framemd5(switched, name):
    m, out = ok(switched, name)
    md5 = h.run(["ffmpeg", "-v", "error", "-i", out / m["segments"][-1]["file"], "-f", "framemd5", "-"])
    return [line.split(",")[-1].strip() for line in md5.stdout.splitlines() if line and not line.startswith("#")]


def test_format_switch_every_3840_frame_is_unzoomed_lossless_identical_to_the_run_without_people(switched):
    people, reference = framemd5(switched, "cs-people"), framemd5(switched, "cs-reference")
    assert len(people) == 26 and people == reference, \
        f"{len(people)} frames, {sum(a != b for a, b in zip(people, reference))} differ"


def test_format_switch_people_in_frame_on_3840_is_accepted(switched):
    """peopleInFrame where neither Center Stage nor smart framing acts: ffprobe 3840x2160, 30 frames."""
    rec, out = switched("people-3840")
    got = probe(out / "segment-000.mp4") if rec.returncode == 0 else None
    assert got == (3840, 2160, 30), f"exit {rec.returncode}: {rec.stderr.strip()[-300:]} {got}"


def test_format_switch_cameras_active_format_the_streaming_camera_lacks_exits_65_before_any_folder(switched):
    rec, out = switched("duo-inner-3840")
    assert rec.returncode == 65 and "fsd-duo-inner-3840.json: events[0].activeFormat" in rec.stderr \
        and "the formats of inner: 1280, 1920" in rec.stderr and not out.exists(), rec.stderr.strip()[-300:]


@pytest.mark.skipif(not h.PHONE.exists(), reason=f"format switch: cameras footage notes ({h.PHONE} is absent)")
def test_format_switch_cameras_with_footage_notes_audio_ignored_and_clip_rotation_applied_per_camera(switched):
    rec, out = switched("duo-footage")
    notes = h.load_manifest(out)["notes"] if rec.returncode == 0 else []
    assert all(any(n.startswith(f"camera {c}: input stream #1 (audio") and "ignored" in n for n in notes)
               and any(n.startswith(f"camera {c}: input display rotation -90") for n in notes)
               for c in ["outer", "inner", "back"]), f"exit {rec.returncode}: {rec.stderr.strip()[-200:]} {notes}"
