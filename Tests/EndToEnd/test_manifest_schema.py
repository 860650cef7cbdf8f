"""Docs/manifest.schema.json itself: a valid JSON Schema, which accepts a manifest shaped as
segrec writes it and rejects broken ones. (Every manifest the other tests read is validated
against it by e2e_helpers.load_manifest / manifest_from_stdout.)"""
import copy

import pytest

import e2e_helpers as h

GOOD = {
    "formatVersion": 1, "mode": "segment", "sessionClock": {"timescale": 1000000000},
    "devices": [{"id": "front", "timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50,
                 "offsetNanoseconds": 12500000000, "driftPartsPerBillion": 50000}],
    "encoder": {"codec": "h264", "encoder": "libx264", "preset": "ultrafast", "crf": 23, "keyframeInterval": 30},
    "segments": [
        {"file": "segment-000.mp4", "width": 1080, "height": 1920, "aspectRatio": "9x16", "frameCount": 61,
         "firstFrameIndex": 0, "sessionStart": {"value": 1000000000, "timescale": 1000000000}, "sessionStartSeconds": 1,
         "sessionEnd": {"value": 3033333333, "timescale": 1000000000}, "sessionEndSeconds": 3.033333333,
         "startReason": "recordingStarted", "change": None, "byteCount": 12345, "rotationDegrees": 0},
        {"file": "segment-001.mp4", "width": 1920, "height": 1080, "aspectRatio": "16x9", "frameCount": 239,
         "firstFrameIndex": 61, "sessionStart": {"value": 3033333333, "timescale": 1000000000},
         "sessionStartSeconds": 3.033333333, "sessionEnd": {"value": 11000000000, "timescale": 1000000000},
         "sessionEndSeconds": 11, "startReason": "dimensionsChanged",
         "change": {"deviceTime": {"value": 372800000, "timescale": 24000000},
                    "sessionTime": {"value": 3033333333, "timescale": 1000000000}, "aspectRatio": "16x9", "announced": True},
         "byteCount": 54321, "rotationDegrees": 0}],
    "stopReason": "endOfStream", "stopTime": {"value": 11000000000, "timescale": 1000000000}, "error": None,
    "frames": {"received": 300, "written": 300, "dropped": 0, "droppedReasons": {}},
    "warnings": [], "notes": [], "frameIndexStamp": True,
}


def broken(edit):
    m = copy.deepcopy(GOOD)
    edit(m)
    return m


BROKEN = {
    "no-segments": lambda m: m.pop("segments"),
    "unknown-top-level-key": lambda m: m.update(extra=1),
    "mode-sideways": lambda m: m.update(mode="sideways"),
    "stop-reason-unknown": lambda m: m.update(stopReason="finished"),
    "frame-count-a-string": lambda m: m["segments"][0].update(frameCount="61"),
    "timescale-0": lambda m: m["segments"][0]["sessionStart"].update(timescale=0),
    "start-reason-unknown": lambda m: m["segments"][1].update(startReason="sizeChanged"),
    "segment-file-outside-the-folder": lambda m: m["segments"][0].update(file="../../etc/passwd"),
    "rotation-45": lambda m: m["segments"][0].update(rotationDegrees=45),
    "change-without-session-time": lambda m: m["segments"][1]["change"].pop("sessionTime"),
    "drop-reason-unknown": lambda m: m["frames"]["droppedReasons"].update(tired=1),
    "negative-frames": lambda m: m["frames"].update(received=-1),
    "format-version-2": lambda m: m.update(formatVersion=2),
}


def test_the_schema_is_a_valid_json_schema():
    import jsonschema
    schema = h.manifest_validator().schema
    jsonschema.validators.validator_for(schema).check_schema(schema)


def test_a_manifest_shaped_as_segrec_writes_it_validates():
    assert h.manifest_errors(GOOD) == []


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_deliberately_broken_manifest_fails_validation(name):
    m = broken(BROKEN[name])
    assert h.manifest_errors(m), f"{name} passed validation"
    with pytest.raises(AssertionError, match="does not match Docs/manifest.schema.json"):
        h.validate_manifest(m)
