"""Issue 43 item 6: no camera setting is accepted and silently ignored.

1. Virtual mode (`"frontCamera": "virtual"`): the video connection is the Virtual Front Camera's, so a
   constituent's `fps` (every frame is at `virtual.fps`), `preferredVideoStabilizationMode`, `depthDataDeliveryEnabled` or
   `geometricDistortionCorrectionEnabled` would be reported in the manifest and never applied (the build
   before reported latency 5 and recorded with 2): each is refused, exit 65 naming the key. The
   Virtual Front Camera itself takes `virtual.preferredVideoStabilizationMode`, so a Duo call app can
   have `lowLatency`: its one-frame latency is read back from the stamps (the first 16x9 frame).
2. The earlier front camera (`builtInWideAngleCamera`) switches to its own `activeFormat "1920x1440"`
   (the build before listed only the Center Stage formats), `segrec formats --camera earlierFront` and
   `--scenario` show its formats, and its `initialAspectRatio`, `enabledFramings` and
   `smartFramingPolicy` are refused (exit 65) rather than accepted and ignored.
"""
import pytest

import e2e_helpers as h

CLOCK = {"timescale": 90000, "offsetSeconds": 0, "driftPPM": 0}


def virtual_scenario(**virtual):
    return {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "clock": CLOCK},
                        {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "clock": CLOCK}],
            "frontCamera": "virtual", "virtual": {"format": 1280, "fps": 10, "clock": CLOCK, **virtual},
            "initialPosture": "closed", "initialAspectRatio": "9x16", "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
            "events": [{"atSeconds": 0.3, "setDynamicAspectRatio": "16x9"}]}


def record(binary, tmp_path, name, scenario):
    out = tmp_path / name
    rec = h.run([binary, "record", "--scenario", h.write_json(tmp_path / f"{name}.json", scenario), "--output", out,
                 "--preset", "ultrafast", "--quiet"])
    return rec, out


@pytest.mark.parametrize("key,value", [("fps", 10), ("preferredVideoStabilizationMode", "cinematicExtendedEnhanced"),
                                       ("depthDataDeliveryEnabled", True),
                                       ("geometricDistortionCorrectionEnabled", True)])
def test_a_constituent_setting_in_virtual_mode_is_refused_naming_the_key(binary, tmp_path, key, value):
    scenario = virtual_scenario()
    scenario["cameras"][0][key] = value
    rec, out = record(binary, tmp_path, "constituent", scenario)
    assert rec.returncode == 65, rec.stderr[-400:]
    assert f"cameras[0].{key}" in rec.stderr and ("Virtual Front Camera" in rec.stderr or "virtual" in rec.stderr), rec.stderr
    assert not out.exists()
    # the same setting on the individual cameras is applied, not refused
    scenario["frontCamera"] = "individual"
    del scenario["virtual"]
    ok, _ = record(binary, tmp_path, "individual", scenario)
    assert ok.returncode == 0, ok.stderr[-400:]


def first_16x9_index(out):
    for seg in h.load_manifest(out)["segments"]:
        sizes, indices = h.stored_stamps(out / seg["file"])
        for size, index in zip(sizes, indices):
            if size == (1280, 720):
                return index
    return None


def test_the_virtual_front_camera_takes_low_latency_stabilization(binary, tmp_path):
    # frame i at 1 + i/10 s; 16x9 asked at 0.3 s (frame 3's instant): latency L lands on frame 3 + L
    rec, out = record(binary, tmp_path, "lowlatency", virtual_scenario(preferredVideoStabilizationMode="lowLatency"))
    assert rec.returncode == 0, rec.stderr[-400:]
    virtual = next(d for d in h.load_manifest(out)["devices"] if d["id"] == "virtualFront")
    assert (virtual["preferredVideoStabilizationMode"], virtual["activeVideoStabilizationMode"],
            virtual["changeLatencyFrames"]) == ("lowLatency", "lowLatency", 1)
    assert first_16x9_index(out) == 4
    plain, plain_out = record(binary, tmp_path, "plain", virtual_scenario())
    assert plain.returncode == 0, plain.stderr[-400:]
    assert first_16x9_index(plain_out) == 5
    verified = h.run([binary, "verify", out])
    assert verified.returncode == 0, verified.stdout[-400:] + verified.stderr[-400:]


EARLIER = {"device": {"type": "builtInWideAngleCamera", "format": "1280x960", "fps": 10, "clock": CLOCK},
           "sessionStartSeconds": 1.0, "durationSeconds": 1.0, "events": [{"atSeconds": 0.4, "activeFormat": "1920x1440"}]}


def test_the_earlier_front_camera_switches_to_its_own_1920x1440(binary, tmp_path):
    rec, out = record(binary, tmp_path, "earlier", EARLIER)
    assert rec.returncode == 0, rec.stderr[-400:]
    segs = h.load_manifest(out)["segments"]
    read = [h.stored_stamps(out / s["file"]) for s in segs]
    # frames 0-4 before the switch at 0.4 s; the 0.25 s gap ends at 1.65 s: the new grid's frame 0
    assert [(sizes[0], len(set(sizes)), indices[0]) for sizes, indices in read] == [((1280, 960), 1, 0), ((1920, 1440), 1, 4)]
    assert read[0][1] == [0, 1, 2, 3] and [s["startReason"] for s in segs] == ["recordingStarted", "formatChanged"]
    verified = h.run([binary, "verify", out])
    assert verified.returncode == 0, verified.stdout[-400:] + verified.stderr[-400:]


def test_the_earlier_front_camera_s_format_change_names_its_fixed_size_and_new_rate(binary, tmp_path):
    """Its formats have no dynamic aspect ratio: the `activeFormatChanged` message names the
    fixed size and the new rate (60 fps at 1280x960; 1920x1440 runs at 30 at most), not a
    Center Stage ratio (it said `9x16`, and nothing of the rate)."""
    rec, out = record(binary, tmp_path, "earlier-message", {**EARLIER, "device": {**EARLIER["device"], "fps": 60}})
    assert rec.returncode == 0, rec.stderr[-400:]
    changed = [e for e in h.load_manifest(out)["events"] if e["kind"] == "activeFormatChanged"]
    assert [(e["from"], e["to"]) for e in changed] == [("1280x960@60", "1920x1440@30")]
    message = changed[0]["message"]
    assert "1920x1440 (a fixed-size format) at 30 fps (a new rate)" in message, message
    assert not any(ratio in message for ratio in ("9x16", "16x9", "3x4", "4x3", "1x1")), message


@pytest.mark.parametrize("device, name", [({"type": "builtInWideAngleCamera", "format": "1280x960", "fps": 10}, "1280x960"),
                                          ({"format": 1280, "fps": 10}, "1280")])
def test_switching_to_the_active_format_leaves_a_note_and_no_change(binary, tmp_path, device, name):
    """`activeFormat` naming the format already active: no reconfiguration (one segment, every
    frame, no activeFormatChanged) and a note that says so (the build before left no trace)."""
    scenario = {"device": {**device, "clock": CLOCK}, "sessionStartSeconds": 1.0, "durationSeconds": 1.0,
                "events": [{"atSeconds": 0.4, "activeFormat": name}]}
    rec, out = record(binary, tmp_path, "same-format", scenario)
    assert rec.returncode == 0, rec.stderr[-400:]
    m = h.load_manifest(out)
    assert [s["frameCount"] for s in m["segments"]] == [10]
    assert not [e for e in m.get("events", []) if e["kind"] == "activeFormatChanged"]
    assert [n for n in m["notes"] if "nothing changes" in n] == [
        f"activeFormat {name} at session time 1400000000/1000000000 (1.4 s): camera front's active format already; nothing changes (no reconfiguration)"]


def test_segrec_formats_shows_the_earlier_front_camera(binary, tmp_path):
    listed = h.run([binary, "formats", "--camera", "earlierFront"])
    assert listed.returncode == 0, listed.stderr
    assert "builtInWideAngleCamera" in listed.stdout and "1920x1440" in listed.stdout and "no dynamic aspect ratio" in listed.stdout
    one = h.run([binary, "formats", "--camera", "earlierFront", "--format", "1920x1440", "--fps", "30"])
    assert one.returncode == 0 and "1280x960" not in one.stdout, one.stdout + one.stderr
    too_fast = h.run([binary, "formats", "--camera", "earlierFront", "--format", "1920x1440", "--fps", "60"])
    assert too_fast.returncode == 65 and "at most 30" in too_fast.stderr, too_fast.stderr
    from_scenario = h.run([binary, "formats", "--camera", "front", "--scenario", h.write_json(tmp_path / "e.json", EARLIER)])
    assert from_scenario.returncode == 0 and "builtInWideAngleCamera" in from_scenario.stdout, from_scenario.stdout + from_scenario.stderr


@pytest.mark.parametrize("key,value", [("initialAspectRatio", "16x9"), ("enabledFramings", ["wide3x4"]),
                                       ("smartFramingPolicy", "ignore")])
def test_the_earlier_front_camera_refuses_what_it_would_ignore(binary, tmp_path, key, value):
    scenario = {**EARLIER, "device": {**EARLIER["device"], key: value}, "events": []}
    rec, out = record(binary, tmp_path, "refused", scenario)
    assert rec.returncode == 65, rec.stderr[-400:]
    assert f"device.{key}" in rec.stderr and "builtInWideAngleCamera" in rec.stderr, rec.stderr
    assert not out.exists()
