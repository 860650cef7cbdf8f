"""Issue 43 item 8: discovery on iPhone Duo, read back from the files.

- `.front` with the Wide (`builtInWideAngleCamera`) or the Ultra Wide (`builtInUltraWideCamera`) type
  finds the Virtual Front Camera, and a recording can start from that discovery request
  (`"discovery": {"deviceTypes": [...], "position": "front"}`) instead of naming `frontCamera`: every
  recording is one `virtualFront` segment of its format's size, the pictures its constituent's.
- A discovery that finds an individual camera streams from it, from the posture that selects it: inner
  (open) frames carry inner's code; an `initialPosture` that selects another camera, a discovery that
  finds nothing, or `discovery` with `frontCamera` exit 65 naming the key.
- An unsupported camera's empty ratio list can be queried: `segrec formats --camera earlierFront`.
The build before knew no `discovery` key (exit 65) and no `earlierFront` camera.
"""
import pytest

import e2e_helpers as h

CLOCK = {"timescale": 90000, "offsetSeconds": 0, "driftPPM": 0}
PHONE = {"cameras": [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "clock": CLOCK},
                     {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "clock": CLOCK},
                     {"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080", "clock": CLOCK}],
         "initialAspectRatio": "9x16", "sessionStartSeconds": 1.0, "durationSeconds": 0.5}


def read_back(out):
    manifest = h.load_manifest(out)
    segs = manifest["segments"]
    return manifest, [(s["camera"], h.stored_stamps(out / s["file"]), h.duo_camera_codes(out / s["file"])) for s in segs]


@pytest.mark.parametrize("device_type", ["builtInWideAngleCamera", "builtInUltraWideCamera"])
def test_front_wide_or_ultra_wide_discovers_the_virtual_front_camera(binary, tmp_path, device_type):
    scenario = {**PHONE, "discovery": {"deviceTypes": [device_type], "position": "front"},
                "virtual": {"format": 1280, "fps": 10, "clock": CLOCK}}
    rec, out = h.record_scenario(binary, tmp_path, "virtual", scenario)
    assert rec.returncode == 0, rec.stderr[-400:]
    manifest, read = read_back(out)
    # 0.5 s at 10 fps: frames 0-4, one virtualFront segment of its 1280 format's 9x16; the pictures are its
    # constituent's, outer (code 0) in the default closed posture
    assert [(cam, sizes, indices, codes) for cam, (sizes, indices), codes in read] == \
        [("virtualFront", [(720, 1280)] * 5, [0, 1, 2, 3, 4], [0] * 5)]
    assert any(n.startswith(f"discovery ({device_type} at front) found virtualFront") for n in manifest["notes"]), manifest["notes"]
    verified = h.run([binary, "verify", out])
    assert verified.returncode == 0, verified.stdout[-400:] + verified.stderr[-400:]


def test_a_discovered_individual_camera_streams_from_its_posture(binary, tmp_path):
    scenario = {**PHONE, "discovery": {"deviceTypes": ["builtInInnerUltraWideCamera", "builtInOuterUltraWideCamera"],
                                       "position": "front"}}
    rec, out = h.record_scenario(binary, tmp_path, "inner", scenario)
    assert rec.returncode == 0, rec.stderr[-400:]
    manifest, read = read_back(out)
    # inner (code 1) at the default 30 fps: frames 0-14
    assert [(cam, sizes[0], indices, codes) for cam, (sizes, indices), codes in read] == \
        [("inner", (720, 1280), list(range(15)), [1] * 15)]
    assert any("found inner, outer" in n and "posture open" in n for n in manifest["notes"]), manifest["notes"]


@pytest.mark.parametrize("change,key", [
    ({"discovery": {"deviceTypes": ["builtInInnerUltraWideCamera"], "position": "front"}, "initialPosture": "closed"},
     "initialPosture"),
    ({"discovery": {"deviceTypes": ["builtInWideAngleCamera"], "position": "back"}}, "discovery"),
    ({"discovery": {"deviceTypes": ["builtInWideAngleCamera"], "position": "front"}, "frontCamera": "virtual"}, "discovery"),
    ({"discovery": {"deviceTypes": ["builtInOuterUltraWideCamera"]}, "virtual": {"format": 1280}}, "virtual"),
    ({"discovery": {"deviceTypes": [], "position": "front"}}, "discovery.deviceTypes"),
])
def test_a_discovery_that_cannot_start_the_recording_exits_65(binary, tmp_path, change, key):
    rec, out = h.record_scenario(binary, tmp_path, "bad", {**PHONE, **change})
    assert rec.returncode == 65, rec.stderr[-400:]
    assert f": {key}: " in rec.stderr, rec.stderr
    assert not out.exists()


def test_a_constituent_rate_refused_after_a_discovery_names_the_discovery_not_a_missing_key(binary, tmp_path):
    """The file chose the Virtual Front Camera through `discovery`: the refusal of a
    constituent's own fps says so, and does not quote `"frontCamera": "virtual"`, a key the
    file does not have (the build before did)."""
    cameras = [{**PHONE["cameras"][0], "fps": 10}] + PHONE["cameras"][1:]
    scenario = {**PHONE, "cameras": cameras, "discovery": {"deviceTypes": ["builtInUltraWideCamera"], "position": "front"},
                "virtual": {"format": 1280, "fps": 10, "clock": CLOCK}}
    rec, _ = h.record_scenario(binary, tmp_path, "constituent-fps", scenario)
    assert rec.returncode == 65, rec.stderr[-400:]
    assert "cameras[0].fps" in rec.stderr and "with the discovery finding the Virtual Front Camera" in rec.stderr, rec.stderr
    assert '"frontCamera": "virtual" every frame' not in rec.stderr, rec.stderr


def test_the_unsupported_cameras_empty_ratio_list_can_be_queried(binary):
    listed = h.run([binary, "formats", "--camera", "earlierFront"])
    assert listed.returncode == 0, listed.stderr
    assert "dynamic aspect ratios: none (supportedDynamicAspectRatios is empty" in listed.stdout, listed.stdout
    square = h.run([binary, "formats", "--camera", "front"])
    assert square.returncode == 0 and "dynamic aspect ratios: none" not in square.stdout
