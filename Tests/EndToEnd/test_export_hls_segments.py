"""The HLS export in media segments of at most a few seconds (issue 26 item 3), read back by
ffprobe and ffmpeg's HLS demuxer, for H.264 with B-frames (veryfast), HEVC (open GOPs) and
a 24 fps recording (2.5 s keyframe intervals):
- every media segment starts with a keyframe and decodes on its own (init + that .m4s);
- EXTINF is the presentation span: a media segment's earliest frame is at the sum of the
  EXTINFs before it, its frames lie inside its EXTINF, and a file's EXTINFs add up to its
  exact duration; TARGETDURATION is the ceiling of the longest, every EXTINF <= the target;
- through ffmpeg's HLS demuxer every frame plays at its manifest time (half a tick);
- a rotation change between H.264 files needs no warning (carried in band), for HLS and concat."""
import json
import math
import re
from fractions import Fraction

import pytest

import e2e_helpers as h

TARGET = Fraction(4)


def scenario(fps, duration, change_at):
    return {"description": f"one change at {change_at} s, {fps} fps", "device": {"format": 1280, "fps": fps,
            "initialAspectRatio": "16x9"}, "durationSeconds": duration,
            "events": [{"atSeconds": change_at, "setDynamicAspectRatio": "9x16"}]}


CASES = {
    "h264-bframes-30fps": (scenario(30, 11.0, 6.1), ["--preset", "veryfast"]),
    "hevc-30fps": (scenario(30, 9.0, 4.7), ["--codec", "hevc", "--preset", "ultrafast"]),
    "h264-24fps": (scenario(24, 8.0, 3.3), ["--preset", "veryfast"]),
}


def frames(args):
    out = h.run(["ffprobe", "-v", "error", *args, "-select_streams", "v:0", "-show_entries",
                 "frame=pts_time,key_frame", "-of", "json"])
    assert out.returncode == 0, out.stderr[-400:]
    return json.loads(out.stdout)["frames"]


@pytest.fixture(scope="module", params=list(CASES))
def exported(request, binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("hls-segments")
    spec, args = CASES[request.param]
    rec = work / "rec"
    r = h.run([binary, "record", "--source", "synthetic", "--scenario", h.write_json(work / "s.json", spec), "--output", rec,
               *args, "--quiet"])
    assert r.returncode == 0, r.stderr[-400:]
    e = h.run([binary, "export", rec, "--hls", work / "hls"])
    assert e.returncode == 0, e.stderr[-400:]
    m = h.load_manifest(rec)
    lines = (work / "hls" / "index.m3u8").read_text().splitlines()
    # Playlist entries: (file stem, part, EXTINF).
    entries, extinf = [], None
    for line in lines:
        if line.startswith("#EXTINF:"):
            extinf = Fraction(line.split(":")[1].split(",")[0])
        elif line and not line.startswith("#"):
            stem, part = re.fullmatch(r"(.+)-(\d+)\.m4s", line).groups()
            entries.append((stem, int(part), extinf))
    return request.param, m, work, lines, entries, e


def test_media_segments_at_most_the_target_and_targetduration(exported):
    name, m, work, lines, entries, e = exported
    longest = max(x for _, _, x in entries)
    target = int(next(l for l in lines if l.startswith("#EXT-X-TARGETDURATION:")).split(":")[1])
    assert longest <= TARGET and target == math.ceil(longest), (name, float(longest), target)
    assert len(entries) > len(m["segments"]), f"{name}: {len(entries)} media segments for {len(m['segments'])} files"
    assert "warning" not in e.stderr, e.stderr


def test_extinf_of_each_file_adds_up_to_its_exact_duration(exported):
    name, m, work, lines, entries, e = exported
    for s in m["segments"]:
        stem = s["file"].rsplit(".", 1)[0]
        parts = [(p, x) for st, p, x in entries if st == stem]
        assert [p for p, _ in parts] == list(range(len(parts))) and sum(x for _, x in parts) == h.exact_duration(s), \
            (s["file"], [float(x) for _, x in parts])


def test_maps_only_where_a_file_starts_and_no_discontinuity(exported):
    """A map per file; no EXT-X-DISCONTINUITY without --hls-discontinuities (test_hls_players.py)."""
    name, m, work, lines, entries, e = exported
    maps = [i for i, l in enumerate(lines) if l.startswith("#EXT-X-MAP:")]
    firsts = [i for i, l in enumerate(lines) if l.endswith("-0.m4s")]
    # Each map right before its file's first EXTINF (no wall clock here): map, EXTINF, URI.
    assert len(firsts) == len(m["segments"]) and maps == [f - 2 for f in firsts], (maps, firsts)
    assert "#EXT-X-DISCONTINUITY" not in lines


def test_each_media_segment_starts_with_a_keyframe_and_spans_its_extinf(exported):
    name, m, work, lines, entries, e = exported
    start = Fraction(0)
    tick = Fraction(1, 90000)  # the export's common time base is >= 90 kHz
    for stem, part, extinf in entries:
        pair = work / f"pair-{stem}-{part}.mp4"
        pair.write_bytes((work / "hls" / f"{stem}-init.mp4").read_bytes() + (work / "hls" / f"{stem}-{part}.m4s").read_bytes())
        got = frames(["-i", str(pair)])
        times = [Fraction(f["pts_time"]) for f in got]
        assert got and got[0]["key_frame"] == 1, f"{stem}-{part}: first frame decoded is not a keyframe"
        # The earliest frame at the sum of the EXTINFs before it; every frame inside its EXTINF.
        assert abs(min(times) - start) <= tick + Fraction(1, 10**6) and max(times) < start + extinf, \
            (stem, part, float(min(times)), float(max(times)), float(start), float(extinf))
        start += extinf


def test_every_frame_through_the_hls_demuxer_at_its_manifest_time(exported):
    name, m, work, lines, entries, e = exported
    first = h.t(m["segments"][0]["sessionStart"])
    expected = []
    for s in m["segments"]:
        expected += [h.t(s["sessionStart"]) - first + Fraction(f["pts_time"]) for f in frames(["-i", str(work / "rec" / s["file"])])]
    got = [Fraction(f["pts_time"]) for f in frames(["-i", str(work / "hls" / "index.m3u8")])]
    assert len(got) == len(expected) == m["frames"]["written"], (len(got), len(expected))
    tolerance = Fraction(1, 2 * 15360) + Fraction(1, 10**6)
    off = [(i, float(g - got[0] - x)) for i, (g, x) in enumerate(zip(got, expected)) if abs(g - got[0] - x) > tolerance]
    assert not off, f"{name}: {len(off)} frames off, first {off[:3]}"


def test_shorter_target_and_a_long_keyframe_interval_warned(binary, tmp_path):
    rec = tmp_path / "rec"
    r = h.run([binary, "record", "--source", "synthetic", "--scenario", h.write_json(tmp_path / "s.json", scenario(30, 4.0, 2.0)),
               "--output", rec, "--preset", "ultrafast", "--keyframe-interval", "45", "--quiet"])
    assert r.returncode == 0, r.stderr
    e = h.run([binary, "export", rec, "--hls", tmp_path / "hls", "--hls-segment-duration", "1"])
    assert e.returncode == 0, e.stderr
    extinf = [Fraction(l.split(":")[1].split(",")[0]) for l in (tmp_path / "hls" / "index.m3u8").read_text().splitlines()
              if l.startswith("#EXTINF:")]
    # 45-frame keyframe intervals (1.5 s) cannot make 1 s media segments: each is one interval, warned.
    assert max(extinf) == Fraction(3, 2) and "longer than 1.000 s" in e.stderr, (extinf, e.stderr)
    bad = h.run([binary, "export", rec, "--hls", tmp_path / "hls2", "--hls-segment-duration", "0"])
    assert bad.returncode == 64 and "--hls-segment-duration" in bad.stderr, bad.stderr


def test_rotation_change_of_h264_files_needs_no_warning(binary, tmp_path):
    """H.264 files carry their turn in band in both exports (test_join_rotation.py reads them
    upright): no warning; each initialization section still keeps its own file's matrix."""
    rec = tmp_path / "rec"
    r = h.run([binary, "record", "--source", "synthetic", "--scenario", h.SAMPLE_STREAMS / "orientation" / "rotated-group-selfie.json",
               "--output", rec, "--preset", "ultrafast", "--quiet"])
    assert r.returncode == 0, r.stderr
    m = h.load_manifest(rec)
    changes = sum(1 for a, b in zip(m["segments"], m["segments"][1:]) if (a.get("rotationDegrees") or 0) != (b.get("rotationDegrees") or 0))
    assert changes >= 1
    e = h.run([binary, "export", rec, "--hls", tmp_path / "hls", "--concat", tmp_path / "all.ffconcat"])
    assert e.returncode == 0, e.stderr
    warned = [l for l in e.stderr.splitlines() if "rotation changes" in l]
    assert not warned, e.stderr
    # Each initialization section keeps its own file's display matrix.
    for s in m["segments"]:
        stem = s["file"].rsplit(".", 1)[0]
        assert h.rotation_of(tmp_path / "hls" / f"{stem}-init.mp4") == h.rotation_of(rec / s["file"]), s["file"]
