"""Rotated segments read upright from the HLS and concat exports in ffmpeg and mpv (issue 46
item 3). FFmpeg's `hls` demuxer keeps no display matrix and its `concat` demuxer the first
file's, so a recording whose files turn differently (SampleStreams/orientation/
rotated-group-selfie.json: 3024x4032 upright, then 4032x3024 turned 90° clockwise) showed
its turned file sideways. Each turned H.264 file now carries its turn in band too (a display
orientation SEI in every access unit), which FFmpeg's decoder hands every frame.

Read back: ffmpeg (autorotate on, as by default) decodes the playlist and the list through
showinfo: every frame has its segment's displayed size; mpv plays both: its video
parameters give each segment's coded size with the segment's clockwise turn."""
import re

import pytest

import e2e_helpers as h
import players

SCENARIO = h.SAMPLE_STREAMS / "orientation" / "rotated-group-selfie.json"


@pytest.fixture(scope="module")
def exported(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("join-rotation")
    rec = work / "rec"
    made = h.run([binary, "record", "--scenario", SCENARIO, "--output", rec, "--preset", "ultrafast", "--quiet"])
    assert made.returncode == 0, made.stderr[-400:]
    out = h.run([binary, "export", rec, "--hls", work / "hls", "--concat", work / "lists" / "rec.ffconcat"])
    assert out.returncode == 0, out.stderr[-400:]
    m = h.load_manifest(rec)
    assert len({s.get("rotationDegrees") or 0 for s in m["segments"]}) > 1, "the scenario must turn between files"
    return work, m, {"hls": (work / "hls" / "index.m3u8", []), "concat": (work / "lists" / "rec.ffconcat", ["-f", "concat"])}


def displayed(s):
    turned = (s.get("rotationDegrees") or 0) in (90, 270)
    return (s["height"], s["width"]) if turned else (s["width"], s["height"])


@pytest.mark.parametrize("kind", ["hls", "concat"])
def test_ffmpeg_shows_every_frame_upright(exported, kind):
    _, m, paths = exported
    path, args = paths[kind]
    out = h.run(["ffmpeg", "-hide_banner", *args, "-i", path, "-vf", "showinfo", "-f", "null", "-"])
    sizes = [(int(w), int(hh)) for w, hh in re.findall(r"showinfo.* s:(\d+)x(\d+) ", out.stderr)]
    expected = [size for s in m["segments"] for size in [displayed(s)] * s["frameCount"]]
    assert sizes == expected, f"{kind}: {players.runs(sizes)} vs {players.runs(expected)}"


@players.needs_mpv
@pytest.mark.parametrize("kind", ["hls", "concat"])
def test_mpv_turns_each_file_by_its_own_rotation(exported, kind):
    work, m, paths = exported
    turns, log = players.mpv_turns(paths[kind][0], work)
    expected = [(s["width"], s["height"], s.get("rotationDegrees") or 0) for s in m["segments"]]
    assert turns == expected, f"{kind}: mpv {turns}, manifest {expected}; {log[-300:]}"
