"""Every shared recording read back with tools segrec did not write (ffprobe, mediainfo) and
with `segrec verify`: the SampleStreams scenarios in both modes and the built-in default,
real footage, the Duo scenarios and the orientation scenarios (formerly check_recording)."""
import functools

import pytest

import e2e_helpers as h
import recordings as catalog
from conftest import load_layout, segment_params

KEYS = catalog.RECORDING_KEYS
SEGMENT_KEYS = [k for k in KEYS if catalog.SPECS[k].mode == "segment"]
STOP_KEYS = [k for k in KEYS if catalog.SPECS[k].mode == "stop-on-change"]
LAYOUT_KEYS = KEYS + catalog.HEVC_KEYS


@functools.lru_cache(maxsize=None)
def probed_frames(path):
    return h.ffprobe_frames(path)


def test_sample_streams_has_scenarios():
    assert len(catalog.SCENARIOS) >= 6, f"{len(catalog.SCENARIOS)} found"


@pytest.mark.parametrize("key", KEYS)
def test_record_exits_0(recordings, key):
    rec = recordings.get(key)
    assert rec.returncode == 0, rec.stderr.strip()[-600:]


@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_segment_layout(recordings, layout_updates, key):
    """The segments' startReasons are the ones segment_layout.json lists (which the per-segment
    tests are parametrized from)."""
    reasons = [s["startReason"] for s in recordings.ok(key).segments]
    if layout_updates is not None:
        layout_updates[key] = reasons
        return
    assert reasons == load_layout().get(key), "rerun with --update-layout -k test_segment_layout if this is intended"


@pytest.mark.parametrize("key", KEYS)
def test_files_match_manifest(recordings, key):
    rec = recordings.ok(key)
    mp4s = sorted(p.name for p in rec.out.glob("*.mp4"))
    assert mp4s == [s["file"] for s in rec.segments]


@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_ordinary_mp4_moov_before_mdat_no_fragments(recordings, key, index):
    rec = recordings.ok(key)
    roots = h.top_level_boxes(rec.out / rec.segment(index)["file"])
    assert "moov" in roots and "mdat" in roots and roots.index("moov") < roots.index("mdat") and "moof" not in roots, roots


@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_mediainfo_streamable_frame_count(recordings, key, index):
    rec = recordings.ok(key)
    seg = rec.segment(index)
    info = h.run(["mediainfo", "--Inform=General;%IsStreamable%|%FrameCount%", rec.out / seg["file"]]).stdout.strip()
    assert info == f"Yes|{seg['frameCount']}"


@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_one_size(recordings, key, index):
    rec = recordings.ok(key)
    seg = rec.segment(index)
    sizes = {(f["width"], f["height"]) for f in probed_frames(str(rec.out / seg["file"]))}
    assert sizes == {(seg["width"], seg["height"])}, f"ffprobe sizes {sizes}"


@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_frame_count(recordings, key, index):
    rec = recordings.ok(key)
    seg = rec.segment(index)
    probed = probed_frames(str(rec.out / seg["file"]))
    assert len(probed) == seg["frameCount"], f"ffprobe counted {len(probed)}"


@pytest.mark.parametrize("key,index", segment_params(KEYS))
def test_starts_with_keyframe(recordings, key, index):
    rec = recordings.ok(key)
    probed = probed_frames(str(rec.out / rec.segment(index)["file"]))
    assert bool(probed) and probed[0]["key_frame"] == 1, "first frame not key"


@pytest.mark.parametrize("key", KEYS)
def test_frame_totals(recordings, key):
    rec = recordings.ok(key)
    frames = rec.manifest["frames"]
    total = sum(len(probed_frames(str(rec.out / s["file"]))) for s in rec.segments)
    assert total == frames["written"] and frames["received"] == frames["written"] + frames["dropped"], \
        f"{total} probed, manifest {frames}"


@pytest.mark.parametrize("key", SEGMENT_KEYS)
def test_nothing_dropped_in_segment_mode(recordings, key):
    frames = recordings.ok(key).manifest["frames"]
    assert frames["dropped"] == 0, frames


@pytest.mark.parametrize("key,index", segment_params(SEGMENT_KEYS, pairs=True))
def test_segment_ends_where_next_starts(recordings, key, index):
    rec = recordings.ok(key)
    a, b = rec.segment(index), rec.segment(index + 1)
    assert a["sessionEnd"]["value"] * b["sessionStart"]["timescale"] == \
        b["sessionStart"]["value"] * a["sessionEnd"]["timescale"], f"{a['sessionEnd']} vs {b['sessionStart']}"


@pytest.mark.parametrize("key,index", segment_params(SEGMENT_KEYS, select=lambda i, r: i > 0 and r == "dimensionsChanged"))
def test_change_record_at_its_first_frame(recordings, key, index):
    seg = recordings.ok(key).segment(index)
    assert seg["startReason"] == "dimensionsChanged", seg["startReason"]
    change = seg.get("change") or {}
    t, s0 = change.get("sessionTime"), seg["sessionStart"]
    exact = t is not None and t["value"] * s0["timescale"] == s0["value"] * t["timescale"]
    assert exact and "announced" in change, change


@pytest.mark.parametrize("key", STOP_KEYS)
def test_one_file_at_most_in_stop_on_change_mode(recordings, key):
    segments = recordings.ok(key).segments
    assert len(segments) <= 1, len(segments)


@pytest.mark.parametrize("key", STOP_KEYS)
def test_stop_reason(recordings, key):
    m = recordings.ok(key).manifest
    assert m["stopReason"] in ("dimensionsChanged", "endOfStream"), m["stopReason"]


@pytest.mark.parametrize("key", KEYS)
def test_segrec_verify(recordings, binary, key):
    rec = recordings.ok(key)
    verify = h.run([binary, "verify", rec.out])
    assert verify.returncode == 0, verify.stdout[-800:] + verify.stderr[-400:]
