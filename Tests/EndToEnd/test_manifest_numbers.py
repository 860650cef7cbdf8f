"""Every manifest number that sizes work is range-checked once, in the one reader, for every
command (issue 44 items 2 and 9): a crafted `manifest.json` is exit 65 with one line naming
the file, the field and what is allowed, before anything is written.

The build before: a `rotationDegrees` of -2^63 trapped `report` (`abs` overflow, exit 133);
a `sessionEnd` at timescale 1 (2.1e9 s, inside the reader's tick range) made `report` fail
deep in libavformat after writing part of its HLS export, and `export --mp4` ask for
terabytes; `sessionClock.timescale` 0 passed every command; an `encoder.crf` of 1000 made
`export --mp4` exit 64 (a usage error) after opening its output; a `sampleCount` of 2^50 made
the exports pad 2^50 samples of silence."""
import json
import shutil

import pytest

import e2e_helpers as h

COMMANDS = {
    "verify": lambda rec, out: ["verify", rec],
    "export-mp4": lambda rec, out: ["export", rec, "--mp4", out / "one.mp4"],
    "export-hls": lambda rec, out: ["export", rec, "--hls", out / "hls"],
    "export-concat": lambda rec, out: ["export", rec, "--concat", out / "list.ffconcat"],
    "report": lambda rec, out: ["report", rec],
}


def _rotation(m, value):
    m["segments"][0]["rotationDegrees"] = value


def _end(m, value, timescale):
    m["segments"][0]["sessionEnd"] = {"value": value, "timescale": timescale}
    m["segments"][0]["sessionEndSeconds"] = value / timescale


def _set(path, value):
    def change(m):
        *keys, last = path
        target = m
        for key in keys:
            target = target[key]
        target[last] = value
    return change


# case: (change, the field the error names, words of what is allowed)
CASES = {
    "rotation-min-int64": (lambda m: _rotation(m, -(2 ** 63)), "segments[0].rotationDegrees", "allowed: null, 0, 90, 180, 270"),
    "rotation-45": (lambda m: _rotation(m, 45), "segments[0].rotationDegrees", "allowed: null, 0, 90, 180, 270"),
    "end-2e9-s-at-timescale-1": (lambda m: _end(m, 2147483647, 1), "segments[0].sessionEnd",
                                 "allowed: at most 214748.3648 s"),
    "end-before-start": (_set(["segments", 0, "sessionStart"], {"value": 9_000_000_000, "timescale": 1_000_000_000}),
                         "segments[0].sessionEnd", "allowed: at or after it"),
    "session-clock-timescale-0": (_set(["sessionClock", "timescale"], 0), "sessionClock.timescale", "allowed: 1000000000"),
    "stop-time-146-years": (_set(["stopTime"], {"value": 2 ** 62, "timescale": 1000}), "stopTime", "allowed: within ±2^62 ns"),
    "sample-count-2^50": (_set(["segments", 0, "audio", "sampleCount"], 2 ** 50), "segments[0].audio.sampleCount",
                          "allowed 0..."),
    "frames-end-after-session-end": (_set(["segments", 0, "framesEnd"], {"value": 10 ** 12, "timescale": 1000}),
                                     "segments[0].framesEnd", "allowed: after the one, before the other"),
    "crf-1000": (_set(["encoder", "crf"], 1000), "encoder.crf", "allowed 0...51"),
    "preset-unknown": (_set(["encoder", "preset"], "warp"), "encoder.preset", "allowed: ultrafast"),
    "keyframe-interval-0": (_set(["encoder", "keyframeInterval"], 0), "encoder.keyframeInterval", "allowed 1...100000"),
}


def test_a_key_given_twice_is_refused_by_every_command(binary, base, tmp_path):
    """`"frameCount": 30, ..., "frameCount": 99999` in one segment: Foundation keeps one
    of them without a word (the build before: every command went on)."""
    for command, args in COMMANDS.items():
        rec = tmp_path / command / "rec"
        shutil.copytree(base, rec)
        path = rec / "manifest.json"
        text = path.read_text()
        at = text.index('"frameCount"')
        path.write_text(text[:at] + '"frameCount": 99999, ' + text[at:])
        out = tmp_path / command / "out"
        out.mkdir()
        r = h.run([binary, *args(rec, out)], timeout=60)
        assert r.returncode == 65, f"{command}: exit {r.returncode}: {r.stderr[-300:]}"
        assert f"{path}: segments[0].frameCount: is given twice in one object; allowed: each key once" in r.stderr, r.stderr
        assert list(out.iterdir()) == []


@pytest.fixture(scope="module")
def base(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("manifest-numbers")
    clip = work / "take.mp4"
    r = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30:d=1", "-f", "lavfi",
               "-i", "sine=f=440:r=48000:d=1", "-c:v", "libx264", "-c:a", "aac", clip])
    assert r.returncode == 0, r.stderr
    rec = work / "rec"
    r = h.run([binary, "record", "--source", clip, "--output", rec])
    assert r.returncode == 0, r.stderr
    m = h.load_manifest(rec)
    assert m["encoder"] and m["segments"][0]["audio"], m
    return rec


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("case", list(CASES))
def test_a_crafted_number_is_refused_by_every_command(binary, base, tmp_path, case, command):
    change, field, allowed = CASES[case]
    rec = tmp_path / "rec"
    shutil.copytree(base, rec)
    path = rec / "manifest.json"
    m = json.loads(path.read_text())
    change(m)
    path.write_text(json.dumps(m))
    before = sorted(p.name for p in rec.iterdir())
    out = tmp_path / "out"
    out.mkdir()
    r = h.run([binary, *COMMANDS[command](rec, out)], timeout=60)
    assert r.returncode == 65, f"exit {r.returncode}: {r.stderr[-500:]}"
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert str(path) in lines[0] and field in lines[0] and allowed in lines[0], lines[0]
    assert sorted(p.name for p in rec.iterdir()) == before, "the command wrote into the folder"
    assert list(out.iterdir()) == [], "the command wrote an output"
