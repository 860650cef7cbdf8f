"""The iPhone Duo cameras (issue 12): every SampleStreams/duo scenario recorded and read back
with ffprobe, ffmpeg and mediainfo (the check_recording tests of test_recordings.py, and
here): size on disk, frame rate (the producing camera's), each frame's camera code (rows
16-31) names the manifest's camera; segments tile the timeline across every switch (the old
segment lasts until the new camera's first frame; its pictures end at its framesEnd,
test_switch_rates.py); the HLS export plays each segment
at its sessionStart. Also stop-on-change on a switch, and `segrec formats --camera` errors (65)."""
import json
from fractions import Fraction

import pytest

import e2e_helpers as h
import recordings as catalog
from conftest import segment_params

KEYS = catalog.DUO_KEYS
VIRTUAL = [k for k in KEYS if json.loads((h.SAMPLE_STREAMS / "duo" / f"{k.split('/', 1)[1]}.json").read_text())
           .get("frontCamera") == "virtual"]


def scenario_of(key):
    return json.loads((h.SAMPLE_STREAMS / "duo" / f"{key.split('/', 1)[1]}.json").read_text())


def test_at_least_four_scenarios_in_sample_streams_duo():
    assert len(catalog.DUO) >= 4, [s.name for s in catalog.DUO]


@pytest.mark.parametrize("key", KEYS)
def test_devices_list_every_cameras_clock(recordings, key):
    ids = [d["id"] for d in recordings.ok(key).manifest["devices"]]
    cameras = [c["id"] for c in scenario_of(key)["cameras"]]
    assert ids[:len(cameras)] == cameras, ids


def rates_of(key):
    scenario = scenario_of(key)
    rates = {c["id"]: Fraction(str(c.get("fps", 30))) for c in scenario["cameras"]}
    if scenario.get("frontCamera") == "virtual":
        rates["virtualFront"] = Fraction(str(scenario["virtual"].get("fps", 30)))
    return rates


@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_size_on_disk_is_manifest_byte_count(recordings, key, index):
    rec = recordings.ok(key)
    seg = rec.segment(index)
    size = (rec.out / seg["file"]).stat().st_size
    assert size == seg["byteCount"], f"{size} vs {seg['byteCount']}"


@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_frame_rate_of_the_segments_camera(recordings, key, index):
    rec = recordings.ok(key)
    seg = rec.segment(index)
    rate = h.frame_rate_of(rec.out / seg["file"])
    expected = rates_of(key).get(seg.get("camera"))
    assert rate and Fraction(rate) == expected, f"ffprobe {rate}, camera {seg.get('camera')} at {expected}"


@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_every_frames_camera_code_names_the_manifests_camera(recordings, key, index):
    """The camera code in stamp rows 16-31 (read by ffmpeg)."""
    rec = recordings.ok(key)
    m = rec.manifest
    seg = rec.segment(index)
    ids = [d["id"] for d in m["devices"]]
    swaps = [e for e in m.get("events", []) if e["kind"] == "constituentSwapped"]
    codes = h.duo_camera_codes(rec.out / seg["file"])
    expected = []
    for i in range(seg["frameCount"]):
        n = seg["firstFrameIndex"] + i
        if seg["camera"] == "virtualFront":
            current = [e["to"] for e in swaps if e["frameIndex"] <= n]
            name = current[-1] if current else seg.get("constituent")
        else:
            name = seg["camera"]
        expected.append(ids.index(name))
    assert codes == expected, f"{codes[:8]}... vs {expected[:8]}..."


def switches(m):
    segments = m["segments"]
    switched = [(a, b) for a, b in zip(segments, segments[1:]) if b["startReason"] == "cameraSwitched"]
    events = [e for e in m.get("events", []) if e["kind"] == "cameraSwitched"]
    return switched, events


@pytest.mark.parametrize("key", KEYS)
def test_one_camera_switched_event_per_switch_segment(recordings, key):
    switched, events = switches(recordings.ok(key).manifest)
    assert len(events) == len(switched), f"{len(events)} events, {len(switched)} segments"


@pytest.mark.parametrize("key,index", segment_params(KEYS, select=lambda i, r: i > 0 and r == "cameraSwitched"))
def test_switch_tiles_old_camera_lasts_until_the_new_cameras_first_frame(recordings, key, index):
    m = recordings.ok(key).manifest
    switched, events = switches(m)
    b = m["segments"][index]
    position = [y["file"] for _, y in switched].index(b["file"])
    a, event = switched[position][0], events[position]
    change = b.get("change") or {}
    assert h.t(a["sessionEnd"]) == h.t(b["sessionStart"]) == h.t(change["sessionTime"]) == h.t(event["sessionTime"]) \
        and change.get("camera") == b["camera"] and change.get("previousCamera") == a["camera"] \
        and change["deviceTime"] == event["deviceTime"] and event["frameIndex"] == b["firstFrameIndex"], \
        f"{a['sessionEnd']} {b['sessionStart']} {change} {event}"


@pytest.mark.parametrize("key", VIRTUAL)
def test_virtual_front_constituent_swaps_logged_no_camera_switch(recordings, key):
    m = recordings.ok(key).manifest
    swaps = [e for e in m.get("events", []) if e["kind"] == "constituentSwapped"]
    switched, _ = switches(m)
    assert len(swaps) >= 2 and not switched, [e["kind"] for e in m.get("events", [])]


@pytest.mark.parametrize("key", KEYS)
def test_hls_export_one_time_base_plays_every_frame_each_segment_at_its_session_start(recordings, binary, tmp_path, key):
    """coldfix: HLS export gives every file one time base; each segment's first frame plays at its
    sessionStart - first sessionStart (within one tick of that base, ffprobe); every frame is there."""
    rec = recordings.ok(key)
    segments = rec.segments
    hls_dir = tmp_path / "hls"
    hls = h.run([binary, "export", rec.out, "--hls", hls_dir])

    def probe(entries, name):
        return h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", entries,
                      "-of", "csv=p=0", hls_dir / name]).stdout
    # csv=p=0 ends the line with a comma when the stream has side data (the back camera's display matrix)
    tb = Fraction(probe("stream=time_base", "segment-000-init.mp4").strip().split(",")[0] or "0") if hls.returncode == 0 else Fraction(0)
    played = [int(x.split(",")[0]) * tb for x in probe("frame=pts", "index.m3u8").split()
              if x.split(",")[0].isdigit()] if tb else []
    starts = [sum(s["frameCount"] for s in segments[:k]) for k in range(len(segments))]
    assert tb and len(played) == sum(s["frameCount"] for s in segments) \
        and all(abs(played[starts[k]] - (h.t(s["sessionStart"]) - h.t(segments[0]["sessionStart"]))) <= tb
                for k, s in enumerate(segments)), \
        hls.stderr.strip()[-300:] + f" time base {tb}, {len(played)} frames, " + \
        str([float(played[i]) for i in starts if i < len(played)])


# ---- stop-on-change stops at the first switch ----
@pytest.fixture(scope="module")
def duo_stop(binary, tmp_path_factory):
    out = tmp_path_factory.mktemp("duo-stop") / "out"
    rec = h.run([binary, "record", "--scenario", h.SAMPLE_STREAMS / "duo" / "flip-to-back.json", "--mode", "stop-on-change",
                 "--output", out, "--preset", "ultrafast", "--quiet"])
    return rec, out


def test_duo_stop_on_change_record_exits_0(duo_stop):
    rec, _ = duo_stop
    assert rec.returncode == 0, rec.stderr[-400:]


def duo_stop_manifest(duo_stop):
    rec, out = duo_stop
    assert rec.returncode == 0, rec.stderr[-400:]
    return h.load_manifest(out), out


def test_duo_stop_on_change_stop_reason_camera_switched_one_file(duo_stop):
    m, _ = duo_stop_manifest(duo_stop)
    assert m["stopReason"] == "cameraSwitched" and len(m["segments"]) == 1, f"{m['stopReason']}, {len(m['segments'])} files"


def test_duo_stop_on_change_the_file_holds_every_frame_before_the_switch_keyframe_first(duo_stop):
    m, out = duo_stop_manifest(duo_stop)
    probed = h.ffprobe_frames(out / "segment-000.mp4") if m["segments"] else []
    assert len(probed) == m["segments"][0]["frameCount"] == m["frames"]["written"] and probed[0]["key_frame"] == 1 \
        and m["frames"]["received"] == m["frames"]["written"] + m["frames"]["dropped"], m["frames"]


def test_duo_stop_on_change_segrec_verify(duo_stop, binary):
    _, out = duo_stop_manifest(duo_stop)
    verify = h.run([binary, "verify", out])
    assert verify.returncode == 0, verify.stdout[-600:]


# ---- formats --camera: a camera's formats; bad id, missing format, virtual above the limits -> 65 ----
def test_formats_camera_outer_lists_3840_at_120(binary):
    listed = h.run([binary, "formats", "--camera", "outer"])
    assert listed.returncode == 0 and "3840x3840  120" in listed.stdout, listed.stdout


FORMAT_ERRORS = [(["--camera", "sideways"], "allowed: front, outer, inner, back, virtualFront"),
                 (["--camera", "inner", "--format", "3840"], "allowed: 1280, 1920"),
                 (["--camera", "virtualFront", "--format", "3840"], "individual")]


@pytest.mark.parametrize("args,needle", FORMAT_ERRORS, ids=["-".join(a).replace("--", "") for a, _ in FORMAT_ERRORS])
def test_formats_bad_camera_or_format_exits_65_naming_what_is_allowed(binary, args, needle):
    bad = h.run([binary, "formats", *args])
    assert bad.returncode == 65 and needle in bad.stderr, f"exit {bad.returncode}: {bad.stderr.strip()}"
