"""Capture angles, format switches and camera controls (issue 13), read back with ffprobe and
mediainfo: every device orientation on the square front camera (0, 90, 180, 270 -> ffprobe
rotation none, -90, -180, 90), on the back camera streaming to a view on the outer display
(openOuterDisplay: it faces the user, so its landscape sensor turns with the orientation: 90,
180, 270, 0) and with the phone sample
as sensor image (the files follow the device, not the clip's -90); every
SampleStreams/orientation scenario recorded and verified (formatChanged segments at their own
size and rate, in test_recordings.py and here); stop-on-change stopping on a format switch;
--split-on-rotation; scenario errors exiting 65 naming what is allowed; formats listing
stabilization modes."""
import json

import pytest

import e2e_helpers as h
import recordings as catalog
from conftest import segment_params

FFPROBE_OF = {0: None, 90: -90, 180: -180, 270: 90}
ORIENTATIONS = ["portrait", "landscapeLeft", "portraitUpsideDown", "landscapeRight"]
FRONT_ANGLES, BACK_ANGLES = [0, 90, 180, 270], [90, 180, 270, 0]
DUO_BACK = json.loads((h.SAMPLE_STREAMS / "duo" / "flip-to-back.json").read_text())

JOBS = {}
for _o, _front, _back in zip(ORIENTATIONS, FRONT_ANGLES, BACK_ANGLES):
    _one = {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16"},
            "initialDeviceOrientation": _o, "durationSeconds": 0.2}
    _cams = dict(DUO_BACK, initialPosture="openOuterDisplay", initialDeviceOrientation=_o, durationSeconds=0.2, events=[])
    JOBS[f"front/{_o}"] = (_one, [], _front)
    JOBS[f"back/{_o}"] = (_cams, [], _back)
    JOBS[f"phone-as-sensor/{_o}"] = (_one, ["--source", str(h.PHONE)], _front)
PHONE_JOBS = [k for k in JOBS if k.startswith("phone")]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("orientation")


@pytest.fixture(scope="module")
def angle_job(binary, work):
    done = {}

    def get(label):
        if label.startswith("phone") and not h.PHONE.exists():
            pytest.skip(f"orientation: phone sample as sensor image ({h.PHONE} is absent)")
        if label not in done:
            scenario, extra, _ = JOBS[label]
            slug = label.replace("/", "-")
            path = h.write_json(work / f"{slug}.json", scenario)
            out = work / slug
            done[label] = (h.run([binary, "record", "--scenario", path, *extra, "--output", out, "--preset", "ultrafast",
                                  "--quiet"]), out)
        return done[label]
    return get


def angle_ok(angle_job, label):
    rec, out = angle_job(label)
    assert rec.returncode == 0, rec.stderr.strip()[-400:]
    return h.load_manifest(out), out


@pytest.mark.parametrize("label", list(JOBS))
def test_orientation_record_exits_0(angle_job, label):
    angle_ok(angle_job, label)


@pytest.mark.parametrize("label", list(JOBS))
def test_orientation_angle_ffprobe_rotation_and_manifest_rotation_degrees(angle_job, label):
    angle = JOBS[label][2]
    m, out = angle_ok(angle_job, label)
    seg = m["segments"][0]
    got = h.rotation_of(out / seg["file"])
    assert got == FFPROBE_OF[angle] and seg["rotationDegrees"] == angle and len(m["segments"]) == 1, \
        f"angle {angle}: ffprobe {got} (want {FFPROBE_OF[angle]}), manifest {seg['rotationDegrees']}"


@pytest.mark.parametrize("label", list(JOBS))
def test_orientation_segrec_verify(angle_job, binary, label):
    _, out = angle_ok(angle_job, label)
    verify = h.run([binary, "verify", out])
    assert verify.returncode == 0, verify.stdout[-400:]


@pytest.mark.parametrize("label", PHONE_JOBS)
def test_orientation_the_clips_rotation_is_applied_to_the_sensor_image(angle_job, label):
    m, _ = angle_ok(angle_job, label)
    assert any("is applied to the sensor image" in n for n in m["notes"]), m["notes"]


# ---- every SampleStreams/orientation scenario, recorded and read back ----
def test_at_least_three_scenarios_in_sample_streams_orientation():
    assert len(catalog.ORIENTATION) >= 3, catalog.ORIENTATION


@pytest.mark.parametrize("key,index", segment_params(catalog.ORIENTATION_KEYS))
def test_ffprobe_rotation_for_the_segments_angle(recordings, key, index):
    rec = recordings.ok(key)
    seg = rec.segment(index)
    got = h.rotation_of(rec.out / seg["file"])
    assert got == FFPROBE_OF.get(seg["rotationDegrees"], "?"), f"ffprobe {got} for angle {seg['rotationDegrees']}"


@pytest.mark.parametrize("key,index", segment_params(catalog.ORIENTATION_KEYS, select=lambda i, r: r == "formatChanged"))
def test_format_changed_segment_at_its_size_logged_at_its_first_frame(recordings, key, index):
    rec = recordings.ok(key)
    m = rec.manifest
    seg = rec.segment(index)
    assert seg["startReason"] == "formatChanged", seg["startReason"]
    probed = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,r_frame_rate",
                    "-of", "csv=p=0", rec.out / seg["file"]]).stdout.strip()
    event = [e for e in m.get("events", []) if e["kind"] == "activeFormatChanged" and e["frameIndex"] == seg["firstFrameIndex"]]
    assert probed.startswith(f"{seg['width']},{seg['height']},") and len(event) == 1 \
        and h.t(event[0]["sessionTime"]) == h.t(seg["sessionStart"]) == h.t(seg["change"]["sessionTime"]), \
        f"{seg['width']}x{seg['height']}: ffprobe {probed}, {event}"


# ---- apply with stop-on-change ----
@pytest.fixture(scope="module")
def apply_stop(binary, work):
    out = work / "apply-stop"
    rec = h.run([binary, "record", "--scenario", h.SAMPLE_STREAMS / "orientation" / "apply-format-switch.json",
                 "--mode", "stop-on-change", "--output", out, "--preset", "ultrafast", "--quiet"])
    return rec, out


def test_apply_stop_on_change_record_exits_0(apply_stop):
    rec, _ = apply_stop
    assert rec.returncode == 0, rec.stderr[-400:]


def test_apply_stop_on_change_stop_reason_format_changed_one_file_mediainfo_frame_count(apply_stop):
    rec, out = apply_stop
    assert rec.returncode == 0, rec.stderr[-400:]
    m = h.load_manifest(out)
    info = h.run(["mediainfo", "--Inform=General;%FrameCount%", out / "segment-000.mp4"]).stdout.strip()
    assert m["stopReason"] == "formatChanged" and len(m["segments"]) == 1 and info == str(m["segments"][0]["frameCount"]) \
        and m["frames"]["received"] == m["frames"]["written"] + m["frames"]["dropped"], f"{m['stopReason']} {info} {m['frames']}"


def test_apply_stop_on_change_segrec_verify(apply_stop, binary):
    rec, out = apply_stop
    assert rec.returncode == 0, rec.stderr[-400:]
    verify = h.run([binary, "verify", out])
    assert verify.returncode == 0, verify.stdout[-400:]


def test_rate_change_60_fps_then_a_format_changed_3840x2160_segment_at_30_fps(recordings):
    """A format switch that changes the rate: 1920 at 60 fps -> 3840 (at most 30 fps)."""
    rec = recordings.ok("orientation/rate-change")
    segs = rec.segments
    rates = [h.frame_rate_of(rec.out / s["file"]) for s in segs]
    assert rates == ["60/1", "30/1"] and [s["startReason"] for s in segs] == ["recordingStarted", "formatChanged"] \
        and (segs[1]["width"], segs[1]["height"]) == (3840, 2160), f"{rates} {segs}"


def test_split_on_rotation_rotation_changed_segments_ffprobe_rotation_per_file(recordings):
    rec = recordings.ok("orientation/--split-on-rotation")
    reasons = [s["startReason"] for s in rec.segments]
    got = [h.rotation_of(rec.out / s["file"]) for s in rec.segments]
    assert "rotationChanged" in reasons and got == [FFPROBE_OF[s["rotationDegrees"]] for s in rec.segments], f"{reasons} {got}"


def test_split_on_rotation_with_stop_on_change_exits_64(binary, tmp_path):
    bad = h.run([binary, "record", "--scenario", h.SAMPLE_STREAMS / "orientation" / "rotated-group-selfie.json",
                 "--split-on-rotation", "--mode", "stop-on-change", "--output", tmp_path / "orientation-bad"])
    assert bad.returncode == 64, bad.stderr.strip()


# ---- scenario errors exit 65 naming what is allowed ----
_back_low = dict(DUO_BACK)
_back_low["cameras"] = [dict(c, preferredVideoStabilizationMode="lowLatency") if c["type"] == "builtInDualWideCamera" else c
                        for c in DUO_BACK["cameras"]]
SCENARIO_ERRORS = {
    "lowLatency on the back camera": (_back_low, "off, standard, cinematic, cinematicExtended, cinematicExtendedEnhanced"),
    "unknown framing": ({"device": {"format": 4032, "enabledFramings": ["tight"]}, "durationSeconds": 1},
                        "wide3x4, narrow3x4, wide4x3, narrow4x3"),
    "a format the camera lacks": ({"durationSeconds": 1, "events": [{"atSeconds": 0.5, "activeFormat": 2000}]},
                                  "1280, 1920, 3840, 4032"),
    "unknown stabilization mode": ({"device": {"preferredVideoStabilizationMode": "steady"}, "durationSeconds": 1},
                                   "cinematicExtendedEnhanced, lowLatency"),
}


@pytest.mark.parametrize("name", list(SCENARIO_ERRORS), ids=[n.replace(" ", "-") for n in SCENARIO_ERRORS])
def test_orientation_scenario_error_exit_65_naming_the_file_and_allowed_values(binary, tmp_path, name):
    scenario, needle = SCENARIO_ERRORS[name]
    path = h.write_json(tmp_path / f"orientation-error-{name.replace(' ', '-')}.json", scenario)
    bad = h.run([binary, "record", "--scenario", path, "--output", tmp_path / "orientation-never"])
    assert bad.returncode == 65 and needle in bad.stderr and path.name in bad.stderr, f"exit {bad.returncode}: {bad.stderr.strip()}"


def test_formats_lists_stabilization_modes_and_center_stage_support(binary):
    listed = h.run([binary, "formats"])
    assert listed.returncode == 0 and "Center Stage" in listed.stdout, listed.stdout
    # lowLatency only on the Center Stage formats (issue 43 item 10: it was listed for every one)
    assert "lowLatency (1; 1280x1280, 1920x1920 only)" in listed.stdout, listed.stdout
    only_4032 = h.run([binary, "formats", "--camera", "front", "--format", "4032"])
    assert only_4032.returncode == 0 and "lowLatency" not in only_4032.stdout and "standard (2)" in only_4032.stdout, only_4032.stdout


def test_formats_camera_back_has_no_low_latency(binary):
    back = h.run([binary, "formats", "--camera", "back"])
    assert back.returncode == 0 and "cinematic (3)" in back.stdout and "lowLatency" not in back.stdout, back.stdout
