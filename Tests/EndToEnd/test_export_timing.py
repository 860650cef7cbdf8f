"""Exports keep time across files at different frame rates: the files of one recording share
one track timescale exact for every rate its cameras can capture at, because FFmpeg's concat
demuxer and HLS reader give every file the first file's time base. Read back by ffprobe
through the ffconcat list and the HLS playlist, every frame must sit at its manifest time
(the file's own frame time plus its segment's sessionStart, less the recording's start)
within half a tick of the file's timescale and the concat demuxer's microsecond."""
import json
from fractions import Fraction

import pytest

import e2e_helpers as h

# Duo individual cameras at two rates, each pair switched closed → open → closed.
RATE_PAIRS = {"24+60": (24, 60), "25+30": (25, 30), "30000/1001+60": ("30000/1001", 60), "120+24": (120, 24),
              "15+50": (15, 50)}


def duo_scenario(outer, inner):
    return {
        "description": f"Duo individual cameras at {outer} and {inner} fps",
        "cameras": [
            {"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1920, "fps": outer,
             "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50}},
            {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1920, "fps": inner,
             "clock": {"timescale": 90000, "offsetSeconds": -3.25, "driftPPM": -20}}],
        "frontCamera": "individual", "initialPosture": "closed", "initialAspectRatio": "9x16",
        "switchGapSeconds": 0.25, "sessionStartSeconds": 1.0, "durationSeconds": 2.4,
        "events": [{"atSeconds": 0.6, "posture": "open"}, {"atSeconds": 1.5, "posture": "closed"}]}


def frame_times(args):
    out = h.run(["ffprobe", "-v", "error", *args, "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                 "-of", "json"])
    assert out.returncode == 0, out.stderr
    return [Fraction(f["pts_time"]) for f in json.loads(out.stdout)["frames"]]


def timescale_of(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base", "-of", "csv=p=0", path])
    return Fraction(out.stdout.strip())


@pytest.fixture(scope="module", params=list(RATE_PAIRS))
def exported(request, binary, tmp_path_factory):
    outer, inner = RATE_PAIRS[request.param]
    work = tmp_path_factory.mktemp("export-timing")
    scenario = h.write_json(work / "scenario.json", duo_scenario(outer, inner))
    rec = work / "rec"
    r = h.run([binary, "record", "--source", "synthetic", "--scenario", scenario, "--output", rec, "--preset", "ultrafast",
               "--quiet"])
    assert r.returncode == 0, r.stderr
    e = h.run([binary, "export", rec, "--concat", work / "all.ffconcat", "--hls", work / "hls"])
    assert e.returncode == 0, e.stderr
    m = h.load_manifest(rec)
    start = h.t(m["segments"][0]["sessionStart"])
    expected, ticks = [], []
    for s in m["segments"]:
        tb = timescale_of(rec / s["file"])
        ticks.append(tb)
        offset = h.t(s["sessionStart"]) - start
        expected += [offset + t for t in frame_times(["-i", str(rec / s["file"])])]
    return request.param, m, work, expected, ticks


def test_the_files_share_one_timescale_exact_for_both_rates(exported):
    pair, m, work, expected, ticks = exported
    assert len(m["segments"]) == 3 and len(set(ticks)) == 1, (pair, ticks)
    for s in m["segments"]:
        rate = Fraction(h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate",
                               "-of", "csv=p=0", work / "rec" / s["file"]]).stdout.strip())
        assert (1 / rate) / ticks[0] == int((1 / rate) / ticks[0]), f"a {rate} fps frame is not whole ticks of {ticks[0]}"


@pytest.mark.parametrize("kind", ["concat", "hls"])
def test_every_frame_plays_at_its_manifest_time(exported, kind):
    pair, m, work, expected, ticks = exported
    args = {"concat": ["-f", "concat", "-safe", "0", "-i", str(work / "all.ffconcat")],
            "hls": ["-i", str(work / "hls" / "index.m3u8")]}[kind]
    got = frame_times(args)
    assert len(got) == len(expected) == m["frames"]["written"], (len(got), len(expected))
    first = got[0]
    tolerance = ticks[0] / 2 + Fraction(1, 1_000_000)
    late = [(i, float(g - first - e)) for i, (g, e) in enumerate(zip(got, expected)) if abs(g - first - e) > tolerance]
    assert not late, f"{pair} {kind}: {len(late)} frames off their manifest time, first {late[:3]}"
