"""Footage pass-through, a second record into a used folder, and usage errors of `record`."""
import json

import pytest

import e2e_helpers as h


def test_phone_pass_through_keeps_the_minus_90_display_rotation(recordings):
    rec = recordings.ok("phone-pass-through")
    probed = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation",
                    "-of", "json", rec.out / "segment-000.mp4"])
    rotation = [d.get("rotation") for st in json.loads(probed.stdout or "{}").get("streams", [])
                for d in st.get("side_data_list", [])]
    assert rotation == [-90]


def test_phone_pass_through_32_frames_like_the_input(recordings):
    passthrough = recordings.ok("phone-pass-through").manifest
    # clockwise angle: ffprobe's -90
    assert passthrough["frames"]["written"] == 32 and passthrough["segments"][0]["rotationDegrees"] == 90, \
        passthrough["frames"]


@pytest.fixture(scope="module")
def second_record(recordings, binary):
    first = recordings.ok("built-in/segment").out
    before = h.tree_digest(first)
    again = h.run([binary, "record", "--source", "synthetic", "--output", first, "--preset", "ultrafast"])
    return again, before, h.tree_digest(first)


def test_second_record_into_the_same_folder_exits_73(second_record):
    again, _, _ = second_record
    assert again.returncode == 73, f"exit {again.returncode}: {again.stderr.strip()}"


def test_first_recording_byte_for_byte_intact(second_record):
    _, before, after = second_record
    assert after == before, "files changed"


def test_bad_mode_exits_64_naming_the_allowed_values(binary):
    bad = h.run([binary, "record", "--source", "synthetic", "--mode", "sideways"])
    assert bad.returncode == 64 and "stop-on-change" in bad.stderr, f"exit {bad.returncode}: {bad.stderr.strip()}"


def test_missing_scenario_exits_66(binary, tmp_path):
    missing = h.run([binary, "record", "--source", "synthetic", "--scenario", tmp_path / "nope.json",
                     "--output", tmp_path / "x"])
    assert missing.returncode == 66, f"exit {missing.returncode}: {missing.stderr.strip()}"
