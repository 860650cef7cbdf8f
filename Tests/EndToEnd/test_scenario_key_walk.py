"""Issue 43, done-when: no scenario key is accepted that has no effect.

The walk reads the schema from the binary itself (each object's allowed keys, as an unknown key's exit-65
message lists them: the one-camera top level, `device`, clocks, events, `microphone`, the `cameras` top
level, `cameras[i]`, `virtual`, `discovery`, `views[i]` and a `moveView` event's object), so a key added later without a case here fails the walk. For each key
it records a baseline scenario and the same scenario with that key changed (added, or given another value)
and asserts what the table says:
- "differs": the recordings differ: the manifest (without `recordedAt` and byte counts) or the decoded
  files (ffmpeg framemd5 of every stream: pictures with their stamps, and sound);
- "refused": exit 65 naming the key.
`description` is the file's comment (JSON has none) and the only key exempt, as Docs/cameras.md says.
Each baseline is recorded twice first: identical fingerprints, so "differs" cannot come from noise.
"""
import copy
import json
import re

import pytest

import e2e_helpers as h

CLOCK = {"timescale": 90000, "offsetSeconds": 0, "driftPPM": 0}
ONE = {"device": {"format": 1280, "fps": 10, "clock": CLOCK}, "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
       "events": [{"atSeconds": 0.3, "setDynamicAspectRatio": "16x9"}]}
SMART = {"device": {"format": 4032, "fps": 10, "clock": CLOCK, "smartFraming": True}, "sessionStartSeconds": 1.0,
         "durationSeconds": 1.0, "events": [{"atSeconds": 0.2, "peopleInFrame": 1}]}
MIC = {**ONE, "microphone": {"sampleRate": 48000, "channels": 1, "bufferFrames": 1024,
                             "clock": {"timescale": 48000, "offsetSeconds": 0, "driftPPM": 0}}}
DUO = {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 10, "clock": CLOCK},
                   {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 10, "clock": CLOCK}],
       "frontCamera": "individual", "initialPosture": "closed", "initialAspectRatio": "9x16", "sessionStartSeconds": 1.0,
       "durationSeconds": 1.0, "events": [{"atSeconds": 0.1, "setDynamicAspectRatio": "16x9"}, {"atSeconds": 0.6, "posture": "open"}]}
VIRTUAL = {**{k: v for k, v in DUO.items() if k not in ("events", "cameras")}, "frontCamera": "virtual",
           "cameras": [{k: v for k, v in c.items() if k != "fps"} for c in DUO["cameras"]],
           "virtual": {"format": 1280, "fps": 10, "clock": CLOCK}, "events": [{"atSeconds": 0.3, "setDynamicAspectRatio": "16x9"}]}

# a phone (the DUO cameras) that starts from a discovery request instead of frontCamera/initialPosture
FOUND = {**{k: v for k, v in DUO.items() if k not in ("frontCamera", "initialPosture", "cameras")},
         "cameras": VIRTUAL["cameras"] + [{"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080", "clock": CLOCK}],
         "discovery": {"deviceTypes": ["builtInDualWideCamera", "builtInOuterUltraWideCamera"], "position": "front"}}

# the app's two views on the DUO phone (main on the outer display drives; guest on the inner one)
VIEWS = {**DUO, "views": [{"id": "main", "display": "outer"}, {"id": "guest", "display": "inner"}]}
MOVE = {**VIEWS, "events": VIEWS["events"] + [{"atSeconds": 0.8, "moveView": {"id": "main", "display": "inner"}}]}


def change(base, path, value):
    """A copy of `base` with the key at `path` (a tuple of keys and indices) set to `value`
    (`...` removes it)."""
    scenario = copy.deepcopy(base)
    node = scenario
    for key in path[:-1]:
        node = node[key]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return scenario


def add_event(base, event):
    return change(base, ("events",), base["events"] + [event])


# (object, key) -> (baseline, changed scenario, expected); objects as the walk names them.
CASES = {
    ("top", "device"): (ONE, change(ONE, ("device",), {"format": 1920, "fps": 10, "clock": CLOCK}), "differs"),
    ("top", "sessionStartSeconds"): (ONE, change(ONE, ("sessionStartSeconds",), 2.0), "differs"),
    ("top", "durationSeconds"): (ONE, change(ONE, ("durationSeconds",), 0.8), "differs"),
    ("top", "events"): (ONE, change(ONE, ("events",), []), "differs"),
    ("top", "initialDeviceOrientation"): (ONE, change(ONE, ("initialDeviceOrientation",), "landscapeLeft"), "differs"),
    ("top", "centerStageEnabled"): (ONE, change(ONE, ("centerStageEnabled",), True), "differs"),
    ("top", "centerStageControlMode"): (ONE, change(ONE, ("centerStageControlMode",), "app"), "differs"),
    ("top", "switchGapSeconds"): (add_event(ONE, {"atSeconds": 0.5, "activeFormat": 1920}),
                                  change(add_event(ONE, {"atSeconds": 0.5, "activeFormat": 1920}), ("switchGapSeconds",), 0.1),
                                  "differs"),
    ("top", "microphone"): (ONE, MIC, "differs"),
    ("device", "type"): (change(ONE, ("device", "format"), ...),
                         change(change(ONE, ("device", "format"), ...), ("device", "type"), "builtInWideAngleCamera"), "differs"),
    ("device", "format"): (ONE, change(ONE, ("device", "format"), 1920), "differs"),
    ("device", "fps"): (ONE, change(ONE, ("device", "fps"), 15), "differs"),
    ("device", "initialAspectRatio"): (ONE, change(ONE, ("device", "initialAspectRatio"), "1x1"), "differs"),
    ("device", "clock"): (ONE, change(ONE, ("device", "clock"), {"timescale": 48000}), "differs"),
    ("device", "changeLatencyFrames"): (ONE, change(ONE, ("device", "changeLatencyFrames"), 3), "differs"),
    ("device", "completionDelayFrames"): (ONE, change(ONE, ("device", "completionDelayFrames"), 100), "differs"),
    ("device", "smartFraming"): (change(SMART, ("device", "smartFraming"), ...), SMART, "differs"),
    ("device", "preferredVideoStabilizationMode"): (ONE, change(ONE, ("device", "preferredVideoStabilizationMode"), "cinematic"), "differs"),
    ("device", "enabledFramings"): (SMART, change(SMART, ("device", "enabledFramings"), []), "differs"),
    ("device", "smartFramingPolicy"): (SMART, change(SMART, ("device", "smartFramingPolicy"), "ignore"), "differs"),
    ("device", "depthDataDeliveryEnabled"): (ONE, change(ONE, ("device", "depthDataDeliveryEnabled"), True), "differs"),
    ("device", "geometricDistortionCorrectionEnabled"): (ONE, change(ONE, ("device", "geometricDistortionCorrectionEnabled"), True),
                                                         "differs"),
    ("clock", "timescale"): (ONE, change(ONE, ("device", "clock", "timescale"), 24000000), "differs"),
    ("clock", "offsetSeconds"): (ONE, change(ONE, ("device", "clock", "offsetSeconds"), 12.5), "differs"),
    ("clock", "driftPPM"): (ONE, change(ONE, ("device", "clock", "driftPPM"), 50), "differs"),
    ("event", "atSeconds"): (ONE, change(ONE, ("events", 0, "atSeconds"), 0.5), "differs"),
    ("event", "setDynamicAspectRatio"): (ONE, add_event(ONE, {"atSeconds": 0.6, "setDynamicAspectRatio": "1x1"}), "differs"),
    ("event", "videoZoomFactor"): (ONE, add_event(ONE, {"atSeconds": 0.6, "videoZoomFactor": 2}), "differs"),
    ("event", "peopleInFrame"): (change(ONE, ("centerStageEnabled",), True),
                                 add_event(change(ONE, ("centerStageEnabled",), True), {"atSeconds": 0.6, "peopleInFrame": 1}), "differs"),
    ("event", "deviceOrientation"): (ONE, add_event(ONE, {"atSeconds": 0.6, "deviceOrientation": "landscapeLeft"}), "differs"),
    ("event", "apply"): (ONE, add_event(ONE, {"atSeconds": 0.6, "apply": "1x1"}), "differs"),
    ("event", "activeFormat"): (ONE, add_event(ONE, {"atSeconds": 0.6, "activeFormat": 1920}), "differs"),
    ("event", "smartFraming"): (ONE, add_event(ONE, {"atSeconds": 0.6, "smartFraming": "start"}), "differs"),
    ("event", "centerStageEnabled"): (change(ONE, ("centerStageControlMode",), "app"),
                                      add_event(change(ONE, ("centerStageControlMode",), "app"), {"atSeconds": 0.6, "centerStageEnabled": True}),
                                      "differs"),
    ("event", "userCenterStageEnabled"): (ONE, add_event(ONE, {"atSeconds": 0.6, "userCenterStageEnabled": True}), "differs"),
    ("event", "depthDataDeliveryEnabled"): (ONE, add_event(ONE, {"atSeconds": 0.6, "depthDataDeliveryEnabled": True}), "differs"),
    ("event", "geometricDistortionCorrectionEnabled"): (ONE, add_event(ONE, {"atSeconds": 0.6, "geometricDistortionCorrectionEnabled": True}),
                                                         "differs"),
    ("event", "posture"): (DUO, add_event(DUO, {"atSeconds": 0.8, "posture": "closed"}), "differs"),
    ("microphone", "sampleRate"): (MIC, change(MIC, ("microphone", "sampleRate"), 44100), "differs"),
    ("microphone", "channels"): (MIC, change(MIC, ("microphone", "channels"), 2), "differs"),
    ("microphone", "bufferFrames"): (MIC, change(MIC, ("microphone", "bufferFrames"), 480), "differs"),
    ("microphone", "clock"): (MIC, change(MIC, ("microphone", "clock", "offsetSeconds"), -3.5), "differs"),
    ("cameras-top", "cameras"): (DUO, change(DUO, ("cameras", 0, "format"), 1920), "differs"),
    ("cameras-top", "frontCamera"): (VIRTUAL, change(change(VIRTUAL, ("frontCamera",), "individual"), ("virtual",), ...), "differs"),
    ("cameras-top", "discovery"): (change(FOUND, ("discovery",), ...),
                                   change(FOUND, ("discovery",), {"deviceTypes": ["builtInWideAngleCamera"], "position": "front"}),
                                   "differs"),
    ("discovery", "deviceTypes"): (FOUND, change(FOUND, ("discovery", "deviceTypes"), ["builtInInnerUltraWideCamera"]), "differs"),
    ("discovery", "position"): (FOUND, change(FOUND, ("discovery", "position"), "back"), "differs"),
    ("cameras-top", "views"): (DUO, change(DUO, ("views",), [{"id": "main", "display": "outer"}]), "differs"),
    ("cameras-top", "drivingView"): (VIEWS, change(VIEWS, ("drivingView",), "guest"), "differs"),
    ("event", "moveView"): (VIEWS, MOVE, "differs"),
    ("event", "drivingView"): (VIEWS, add_event(VIEWS, {"atSeconds": 0.8, "drivingView": "guest"}), "differs"),
    ("view", "id"): (VIEWS, change(VIEWS, ("views", 1, "id"), "visitor"), "differs"),
    ("view", "display"): (VIEWS, change(VIEWS, ("views", 0, "display"), "inner"), "differs"),
    ("moveView", "id"): (MOVE, change(MOVE, ("events", 2, "moveView", "id"), "guest"), "differs"),
    ("moveView", "display"): (MOVE, change(MOVE, ("events", 2, "moveView", "display"), "outer"), "differs"),
    ("cameras-top", "virtual"): (VIRTUAL, change(VIRTUAL, ("virtual", "format"), 1920), "differs"),
    ("cameras-top", "initialPosture"): (DUO, change(DUO, ("initialPosture",), "open"), "differs"),
    ("cameras-top", "initialAspectRatio"): (DUO, change(DUO, ("initialAspectRatio",), "1x1"), "differs"),
    ("cameras-top", "changeLatencyFrames"): (DUO, change(DUO, ("changeLatencyFrames",), 3), "differs"),
    ("cameras-top", "completionDelayFrames"): (DUO, change(DUO, ("completionDelayFrames",), 100), "differs"),
    ("cameras-top", "switchGapSeconds"): (DUO, change(DUO, ("switchGapSeconds",), 0.1), "differs"),
    ("cameras-top", "sessionStartSeconds"): (DUO, change(DUO, ("sessionStartSeconds",), 2.0), "differs"),
    ("cameras-top", "durationSeconds"): (DUO, change(DUO, ("durationSeconds",), 0.8), "differs"),
    ("cameras-top", "events"): (DUO, change(DUO, ("events",), []), "differs"),
    ("cameras-top", "microphone"): (DUO, {**DUO, "microphone": MIC["microphone"]}, "differs"),
    ("cameras-top", "initialDeviceOrientation"): (DUO, change(DUO, ("initialDeviceOrientation",), "landscapeLeft"), "differs"),
    ("cameras-top", "centerStageEnabled"): (DUO, change(DUO, ("centerStageEnabled",), True), "differs"),
    ("cameras-top", "centerStageControlMode"): (DUO, change(DUO, ("centerStageControlMode",), "app"), "differs"),
    ("camera", "id"): (DUO, change(DUO, ("cameras", 0, "id"), "outside"), "differs"),
    ("camera", "type"): (DUO, change(change(DUO, ("cameras", 0, "type"), "builtInInnerUltraWideCamera"), ("cameras", 1, "type"),
                                     "builtInOuterUltraWideCamera"), "differs"),
    ("camera", "format"): (DUO, change(DUO, ("cameras", 0, "format"), 1920), "differs"),
    ("camera", "fps"): (DUO, change(DUO, ("cameras", 0, "fps"), 15), "differs"),
    ("camera", "clock"): (DUO, change(DUO, ("cameras", 0, "clock"), {"timescale": 48000}), "differs"),
    ("camera", "preferredVideoStabilizationMode"): (DUO, change(DUO, ("cameras", 0, "preferredVideoStabilizationMode"), "cinematic"),
                                                    "differs"),
    ("camera", "depthDataDeliveryEnabled"): (DUO, change(DUO, ("cameras", 0, "depthDataDeliveryEnabled"), True), "differs"),
    ("camera", "geometricDistortionCorrectionEnabled"): (DUO, change(DUO, ("cameras", 0, "geometricDistortionCorrectionEnabled"), True),
                                                         "differs"),
    ("virtual", "format"): (VIRTUAL, change(VIRTUAL, ("virtual", "format"), 1920), "differs"),
    ("virtual", "fps"): (VIRTUAL, change(VIRTUAL, ("virtual", "fps"), 15), "differs"),
    ("virtual", "clock"): (VIRTUAL, change(VIRTUAL, ("virtual", "clock"), {"timescale": 48000}), "differs"),
    ("virtual", "preferredVideoStabilizationMode"): (VIRTUAL, change(VIRTUAL, ("virtual", "preferredVideoStabilizationMode"), "lowLatency"),
                                                     "differs"),
    # In virtual mode a constituent's own settings: its format, rate and clock describe the hardware
    # (the manifest's devices); its connection settings would never be applied: refused.
    ("virtual-camera", "id"): (VIRTUAL, change(VIRTUAL, ("cameras", 0, "id"), "outside"), "differs"),
    ("virtual-camera", "type"): (VIRTUAL, change(change(VIRTUAL, ("cameras", 0, "type"), "builtInInnerUltraWideCamera"),
                                                 ("cameras", 1, "type"), "builtInOuterUltraWideCamera"), "differs"),
    ("virtual-camera", "format"): (VIRTUAL, change(VIRTUAL, ("cameras", 0, "format"), 3840), "differs"),
    ("virtual-camera", "fps"): (VIRTUAL, change(VIRTUAL, ("cameras", 0, "fps"), 15), "refused"),
    ("virtual-camera", "clock"): (VIRTUAL, change(VIRTUAL, ("cameras", 0, "clock"), {"timescale": 48000}), "differs"),
    ("virtual-camera", "preferredVideoStabilizationMode"): (VIRTUAL, change(VIRTUAL, ("cameras", 0, "preferredVideoStabilizationMode"),
                                                                            "cinematic"), "refused"),
    ("virtual-camera", "depthDataDeliveryEnabled"): (VIRTUAL, change(VIRTUAL, ("cameras", 0, "depthDataDeliveryEnabled"), True), "refused"),
    ("virtual-camera", "geometricDistortionCorrectionEnabled"): (VIRTUAL, change(VIRTUAL, ("cameras", 0, "geometricDistortionCorrectionEnabled"),
                                                                                 True), "refused"),
}
EXEMPT = {("top", "description"), ("cameras-top", "description")}

# Each object of the schema: a scenario whose unknown key `bogus` there makes the binary list the
# object's allowed keys.
PROBES = {
    "top": {"durationSeconds": 1, "bogus": 1},
    "device": {"device": {"bogus": 1}, "durationSeconds": 1},
    "clock": {"device": {"clock": {"bogus": 1}}, "durationSeconds": 1},
    "event": {"durationSeconds": 1, "events": [{"atSeconds": 0.1, "bogus": 1}]},
    "microphone": {"microphone": {"bogus": 1}, "durationSeconds": 1},
    "cameras-top": {**DUO, "bogus": 1},
    "camera": change(DUO, ("cameras", 0, "bogus"), 1),
    "virtual": change(VIRTUAL, ("virtual", "bogus"), 1),
    "discovery": change(FOUND, ("discovery", "bogus"), 1),
    "view": change(VIEWS, ("views", 0, "bogus"), 1),
    "moveView": change(MOVE, ("events", 2, "moveView", "bogus"), 1),
    "virtual-camera": change(VIRTUAL, ("cameras", 0, "bogus"), 1),
}
# The event keys of a cameras scenario (posture added) are walked with the one-camera events'.
EVENT_PROBE_DUO = add_event(DUO, {"atSeconds": 0.1, "bogus": 1})


def allowed_keys(binary, tmp_path, name, scenario):
    rec = h.run([binary, "record", "--scenario", h.write_json(tmp_path / f"probe-{name}.json", scenario), "--output", tmp_path / "never"])
    assert rec.returncode == 65, rec.stderr
    found = re.search(r"bogus: unknown key; allowed: keys (.*)$", rec.stderr.strip().splitlines()[-1])
    assert found, rec.stderr
    return [k.strip() for k in found.group(1).split(",")]


def schema_keys(binary, tmp_path):
    keys = {(obj, key) for obj, probe in PROBES.items() for key in allowed_keys(binary, tmp_path, obj, probe)}
    keys |= {("event", key) for key in allowed_keys(binary, tmp_path, "event-duo", EVENT_PROBE_DUO)}
    # the same keys live in clocks of cameras, virtual and microphone: walked once, in `clock`
    return {k for k in keys if k not in {("event", "atSeconds")}} | {("event", "atSeconds")}


def fingerprint(out):
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.pop("recordedAt", None)
    for seg in manifest["segments"]:
        seg.pop("byteCount", None)
    files = [h.run(["ffmpeg", "-v", "error", "-i", out / seg["file"], "-f", "framemd5", "-"]).stdout for seg in manifest["segments"]]
    return json.dumps(manifest, sort_keys=True), files


def record(binary, tmp_path, name, scenario):
    out = tmp_path / name
    rec = h.run([binary, "record", "--scenario", h.write_json(tmp_path / f"{name}.json", scenario), "--output", out,
                 "--preset", "ultrafast", "--quiet"])
    return rec, out


def test_every_schema_key_has_a_case(binary, tmp_path):
    keys = schema_keys(binary, tmp_path)
    missing = sorted(keys - set(CASES) - EXEMPT)
    assert not missing, f"scenario keys the walk has no case for (add one): {missing}"
    stale = sorted(set(CASES) - keys)
    assert not stale, f"cases for keys the schema no longer has: {stale}"


def test_baselines_are_reproducible(binary, tmp_path):
    for name, base in {"one": ONE, "smart": SMART, "mic": MIC, "duo": DUO, "virtual": VIRTUAL, "found": FOUND,
                       "views": VIEWS, "move": MOVE}.items():
        first, a = record(binary, tmp_path, f"{name}-a", base)
        second, b = record(binary, tmp_path, f"{name}-b", base)
        assert first.returncode == 0 and second.returncode == 0, first.stderr[-400:] + second.stderr[-400:]
        assert fingerprint(a) == fingerprint(b), f"baseline {name} differs between two runs"


@pytest.mark.parametrize("obj,key", sorted(CASES), ids=[f"{o}.{k}" for o, k in sorted(CASES)])
def test_a_changed_key_changes_the_recording_or_is_refused(binary, tmp_path, obj, key):
    base, changed, expected = CASES[(obj, key)]
    assert base != changed
    rec_base, out_base = record(binary, tmp_path, "base", base)
    assert rec_base.returncode == 0, rec_base.stderr[-400:]
    rec, out = record(binary, tmp_path, "changed", changed)
    if expected == "refused":
        assert rec.returncode == 65, f"{obj}.{key}: accepted (exit {rec.returncode}), expected exit 65 naming it"
        assert f".{key}" in rec.stderr or rec.stderr.split(": ")[2].startswith(key), rec.stderr
        assert not out.exists()
        return
    assert rec.returncode == 0, f"{obj}.{key}: {rec.stderr[-400:]}"
    assert fingerprint(out_base) != fingerprint(out), f"{obj}.{key}: accepted and changed neither the manifest nor the files"


def test_buffer_frames_show_in_the_audio_counts(binary, tmp_path):
    # 1 s at 48 kHz without drift: 48 000 samples in buffers of bufferFrames, the last one shorter
    for frames, buffers in [(1024, 47), (480, 100)]:
        rec, out = record(binary, tmp_path, f"mic-{frames}", change(MIC, ("microphone", "bufferFrames"), frames))
        assert rec.returncode == 0, rec.stderr[-400:]
        assert h.load_manifest(out)["audio"] == {"received": 48000, "written": 48000, "buffers": buffers}
