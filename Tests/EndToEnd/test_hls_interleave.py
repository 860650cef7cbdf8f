"""A local HLS export plays in GStreamer (issue 46 item 5). libavformat's fragmented mp4
muxer writes a fragment's samples one track after the other, so a media segment cut only at
keyframes held a whole GOP of pictures before its sound, and GStreamer's playbin (hlsdemux
reading a local file, as gst-play-1.0 does) waited forever for the sound behind tens of MB
of video. The export now starts a fragment at least every 0.25 s: video and sound
interleave by time.

The recording: one camera, 1920x1920 at 30 fps for 4 s with a microphone, one keyframe
(`--keyframe-interval 120`) and CRF 4 (a 62 MB file, one 4 s media segment): before, playbin
with clock sync never finished (killed after 60 s); now it shows all 120 frames."""
import json
import subprocess

import pytest

import e2e_helpers as h
import players

SCENARIO = {"device": {"format": 1920, "fps": 30, "initialAspectRatio": "1x1",
                       "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 0}},
            "microphone": {"sampleRate": 48000, "channels": 1, "bufferFrames": 1024},
            "sessionStartSeconds": 1.0, "durationSeconds": 4.0, "events": []}


def box_types(path):
    """Top-level box types of an ISO BMFF file (a media segment has no moov, which ffprobe needs)."""
    types, data, at = [], path.read_bytes(), 0
    while at + 8 <= len(data):
        size = int.from_bytes(data[at:at + 4], "big")
        if size == 1:
            size = int.from_bytes(data[at + 8:at + 16], "big")
        types.append(data[at + 4:at + 8].decode("latin-1"))
        if size < 8:
            break
        at += size
    return types


@pytest.fixture(scope="module")
def exported(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("hls-interleave")
    scenario = h.write_json(work / "one-gop.json", SCENARIO)
    made = h.run([binary, "record", "--scenario", scenario, "--output", work / "rec", "--keyframe-interval", "120",
                  "--crf", "4", "--preset", "ultrafast", "--quiet"])
    assert made.returncode == 0, made.stderr[-400:]
    out = h.run([binary, "export", work / "rec", "--hls", work / "hls"])
    assert out.returncode == 0, out.stderr[-400:]
    return work, h.load_manifest(work / "rec")


def test_the_media_segment_is_fragments_of_at_most_a_quarter_second(exported):
    work, m = exported
    media = sorted((work / "hls").glob("*.m4s"))
    assert len(media) == 1, media
    boxes = box_types(media[0])
    seconds = float(h.exact_duration(m["segments"][0]))
    assert boxes.count("moof") >= int(seconds / 0.25) and boxes.count("moof") == boxes.count("mdat"), boxes[:12]


@players.needs_gst
def test_gstreamer_playbin_plays_every_frame_in_time(exported):
    work, m = exported
    try:
        run = subprocess.run(["gst-launch-1.0", "-v", "playbin", f"uri=file://{work / 'hls' / 'index.m3u8'}",
                              "video-sink=fakesink name=vs sync=true silent=false", "audio-sink=fakesink sync=true"],
                             capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("gst-launch-1.0 playbin did not finish the 4 s playlist within 60 s")
    shown = run.stdout.count("vs: last-message = chain")
    assert run.returncode == 0 and shown == m["frames"]["written"] == 120, (run.returncode, shown, run.stderr[-300:])
