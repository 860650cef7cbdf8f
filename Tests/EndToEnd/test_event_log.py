"""The manifest's `events` (cold13 items 5, 6, 8, 9): in session order, nothing after
stopTime, no entry naming a frame the files do not hold (ffprobe counts); no session warning
after a stop-on-change stop; the summary prints the manifest's exact times (1e9 s start)."""
import json
from fractions import Fraction

import pytest

import e2e_helpers as h

t = h.t


def exact(x):
    return f"{x['value'] * 10**9 // x['timescale'] // 10**9}.{x['value'] * 10**9 // x['timescale'] % 10**9:09d}"


def count(f):
    return h.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                  "stream=width,height,nb_read_frames", "-of", "csv=p=0", f]).stdout.strip().split("\n")[0].rstrip(",")


CLOCK = {"timescale": 24000000, "offsetSeconds": 0.2, "driftPPM": 0}
SCENARIOS = {
    # activeFormat at 1.9 s of 2.0: its gap runs past the end (no 1280 frame); a turn after the last frame.
    "at-end": {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "16x9", "clock": CLOCK},
               "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
               "events": [{"atSeconds": 0.9, "activeFormat": 1280}, {"atSeconds": 0.95, "deviceOrientation": "landscapeLeft"}]},
    # a turn at 1.3 s inside the gap of a switch at 1.2 s (first new frame 1.4 s).
    "in-gap": {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "9x16", "clock": CLOCK},
               "initialDeviceOrientation": "portraitUpsideDown", "switchGapSeconds": 0.2,
               "sessionStartSeconds": 1.0, "durationSeconds": 0.5,
               "events": [{"atSeconds": 0.2, "activeFormat": 1280}, {"atSeconds": 0.3, "deviceOrientation": "landscapeRight"}]},
    # 1e9 s start, drifting clock: the summary's digits against the manifest's rationals.
    "1e9": {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "9x16",
                       "clock": {"timescale": 24000000, "offsetSeconds": -0.5, "driftPPM": 25}},
            "initialDeviceOrientation": "landscapeLeft", "sessionStartSeconds": 1000000000, "durationSeconds": 0.5,
            "events": [{"atSeconds": 0.2, "activeFormat": 1280}]},
}


@pytest.fixture(scope="module")
def logged(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("event-log")
    done = {}

    def get(name):
        if name not in done:
            path = h.write_json(work / f"{name}.json", SCENARIOS[name])
            out = work / name
            done[name] = (h.run([binary, "record", "--scenario", path, "--output", out, "--preset", "ultrafast", "--quiet"]),
                          out)
        return done[name]
    return get


def recorded(logged, name):
    rec, out = logged(name)
    assert rec.returncode == 0, rec.stderr[-400:]
    m = h.load_manifest(out)
    return rec, m, [count(out / s["file"]) for s in m["segments"]]


names = pytest.mark.parametrize("name", list(SCENARIOS))


@names
def test_event_log_record_exits_0(logged, name):
    recorded(logged, name)


@names
def test_event_log_ffprobe_frames_per_file_match_the_manifest(logged, name):
    _, m, probed = recorded(logged, name)
    assert probed == [f"{s['width']},{s['height']},{s['frameCount']}" for s in m["segments"]], f"{probed} vs {m['segments']}"


@names
def test_event_log_in_session_order_none_after_stop_time_every_frame_index_recorded(logged, name):
    _, m, _ = recorded(logged, name)
    events, stop = m.get("events", []), t(m["stopTime"])
    times = [t(e["sessionTime"]) for e in events]
    firsts = {s["firstFrameIndex"]: t(s["sessionStart"]) for s in m["segments"]}
    assert times == sorted(times) and all(x <= stop for x in times) \
        and all(e.get("frameIndex") is None or e["frameIndex"] < m["frames"]["received"] for e in events) \
        and all(firsts[e["frameIndex"]] == t(e["sessionTime"]) for e in events if e["kind"] == "activeFormatChanged"), \
        json.dumps(events)[:600]


@names
def test_event_log_summary_prints_the_manifests_exact_session_times(logged, name):
    rec, m, _ = recorded(logged, name)
    rows = [line.split() for line in rec.stdout.splitlines() if line.startswith("segment-")]
    assert [r[4:6] for r in rows] == [[exact(s["sessionStart"]), exact(s["sessionEnd"])] for s in m["segments"]] \
        and f"at {exact(m['stopTime'])} s" in rec.stdout, rec.stdout[-600:]


def test_event_log_at_end_one_1920x1080_file_of_27_frames_ending_at_1_9_s_events_empty_two_notes(logged):
    _, m, probed = recorded(logged, "at-end")
    events = m.get("events", [])
    assert probed == ["1920,1080,27"] and m["stopTime"] == {"value": 1900000000, "timescale": 1000000000} \
        and events == [] and sum("not in events" in n for n in m["notes"]) == 2, f"{probed} {events} {m['notes']}"


def test_event_log_in_gap_turn_switch_and_rotation_times_720x1280_from_frame_6(logged):
    """Turn 1.3 s, switch 1.4 s at frame 6, rotation 1.4 s at frame 6; 720x1280 from frame 6 (ffprobe)."""
    _, m, probed = recorded(logged, "in-gap")
    events = m.get("events", [])
    assert [(e["kind"], t(e["sessionTime"]), e.get("frameIndex")) for e in events] \
        == [("deviceOrientationChanged", Fraction(13, 10), None), ("activeFormatChanged", Fraction(7, 5), 6),
            ("rotationChanged", Fraction(7, 5), 6)] and probed == ["1080,1920,6", "720,1280,3"], f"{events} {probed}"


# Stop-on-change on the Duo: the back camera's first frame stops; the apply at 11.2 s
# ("... the recording goes on") comes after the stop.
DUO_STOP = {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 60,
                         "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50}},
                        {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 30,
                         "clock": {"timescale": 90000, "offsetSeconds": -3.25, "driftPPM": -20}},
                        {"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080", "fps": 30,
                         "clock": {"timescale": 1000000000, "offsetSeconds": 0.5, "driftPPM": 0}}],
            "frontCamera": "individual", "initialPosture": "closed", "initialAspectRatio": "16x9", "switchGapSeconds": 0.1,
            "sessionStartSeconds": 10.0, "durationSeconds": 1.5,
            "events": [{"atSeconds": 0.4, "posture": "openOuterDisplay"}, {"atSeconds": 1.2, "apply": "16x9"}]}


@pytest.fixture(scope="module")
def duo_stop(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("event-log-duo")
    path = h.write_json(work / "duo-stop.json", DUO_STOP)
    out = work / "duo-stop"
    return h.run([binary, "record", "--scenario", path, "--mode", "stop-on-change", "--output", out,
                  "--preset", "ultrafast", "--quiet"]), out


def test_event_log_duo_stop_on_change_record_exits_0(duo_stop):
    rec, _ = duo_stop
    assert rec.returncode == 0, rec.stderr[-400:]


def test_event_log_duo_stop_on_change_one_file_no_warning_after_the_stop_a_note_counts_it(duo_stop):
    rec, out = duo_stop
    assert rec.returncode == 0, rec.stderr[-400:]
    m = h.load_manifest(out)
    probed = count(out / m["segments"][0]["file"])
    assert m["stopReason"] == "cameraSwitched" and len(m["segments"]) == 1 \
        and probed == f"1280,720,{m['segments'][0]['frameCount']}" and m["warnings"] == [] \
        and "goes on" not in rec.stdout \
        and "1 warning from the session after the recording stopped taking frames is not in warnings" in m["notes"] \
        and all(t(e["sessionTime"]) <= t(m["stopTime"]) for e in m.get("events", [])), f"{probed} {m['warnings']} {m['notes']}"
