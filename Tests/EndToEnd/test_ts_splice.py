"""Two MPEG-TS encoder sessions joined byte for byte (issue 43 item 11, third point): `cat
a.ts b.ts`, each made by its own ffmpeg run with AAC sound (its own priming before its first
picture, its own padding after its last). The splice point, where b's pictures begin on the
session clock (one frame period after a's last picture), is where a's sound ends and b's
begins (Docs/footage.md "Sound"): b's sound keeps its own timestamps plus the offset its
pictures get, a's padded tail past the splice is cut, not b's head.

The sound is the synthetic microphone's signal (a 1 kHz tone with a 10 ms 4 kHz click at
every whole second of each file's own sound, one at its very start too); every click of the
recording is found with the click detector (audio_analysis.py) and must lie within 1 ms of
where ffmpeg's own reading of its file puts it, on the pictures' timeline: a's on its own
timestamps, b's at the splice point plus its time after b's first picture. The splice point
is read back from the segments: the session time of the frame whose index stamp is a's
picture count (ffprobe), and, when b's pictures have another size, the second segment's
`sessionStart`. The build before (e1d0ac1) trimmed the overlap off b's head: its clicks
landed 26.7 ms late (58.7 ms early when a's sound ends 0.1 s before its pictures)."""
import json
import subprocess
from fractions import Fraction

import pytest

pytest.importorskip("numpy", reason="test_ts_splice.py reads the sound back with numpy (Debian: python3-numpy)")

import numpy as np  # noqa: E402

import audio_analysis as a  # noqa: E402  (needs numpy)
import e2e_helpers as h  # noqa: E402

RATE = 48000


def _session(name, size, seconds, folder, sound_seconds=None):
    """One ffmpeg encoder session to MPEG-TS: testsrc2 at 30 fps, the click signal as AAC
    (as long as the pictures, or `sound_seconds`)."""
    path = folder / name
    sound = f"aevalsrc=0.1*sin(2*PI*1000*t)+0.7079*sin(2*PI*4000*t)*lt(mod(t\\,1)\\,0.01):s={RATE}:d={sound_seconds or seconds}"
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30:d={seconds}", "-f", "lavfi",
                  "-i", sound, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "mpegts", path])
    assert made.returncode == 0, made.stderr
    return path


def _start(path, kind):
    """The first timestamp of `path`'s first `kind` stream (v or a), in seconds."""
    out = h.run(["ffprobe", "-v", "error", "-select_streams", f"{kind}:0", "-show_entries", "stream=start_pts,time_base", "-of", "json", path])
    stream = json.loads(out.stdout)["streams"][0]
    return stream["start_pts"] * Fraction(stream["time_base"])


def _clicks(path):
    """The click onsets of `path`'s sound on its own timestamps (seconds), as ffmpeg reads it
    (silence before its first sample, `aresample=async=1:first_pts=0`)."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-copyts", "-i", str(path), "-map", "0:a:0", "-ac", "1", "-af",
                          f"aresample={RATE}:async=1:first_pts=0", "-f", "f32le", "-"], capture_output=True)
    assert out.returncode == 0, out.stderr.decode()[:300]
    return [Fraction(o, RATE) for o in a.click_onsets(np.frombuffer(out.stdout, dtype="<f4").astype(np.float64), RATE)]


def _pictures(path):
    """The pictures ffprobe decodes from `path`'s first video stream (an MPEG-TS program lists it twice)."""
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                 "stream=nb_read_frames", "-of", "csv=p=0", path])
    return int(next(line for line in out.stdout.split() if line.strip()))


def _frame_times(path):
    """Every frame's presentation time in `path` (seconds from the file's zero), by ffprobe."""
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base:frame=pts", "-of", "json", path])
    probed = json.loads(out.stdout)
    base = Fraction(probed["streams"][0]["time_base"])
    return [f["pts"] * base for f in probed["frames"]]


# b's picture size; how long a's sound lasts (1.9 s: it ends 0.1 s before its pictures, a gap
# at the splice that stays silence).
@pytest.mark.parametrize("second_size,first_sound", [("320x240", 2), ("240x320", 2), ("320x240", 1.9)],
                         ids=["same-size", "new-size", "short-sound"])
def test_joined_ts_sessions_splice_the_sound_where_the_new_pictures_begin(binary, tmp_path, notes, second_size, first_sound):
    first = _session("a.ts", "320x240", 2, tmp_path, first_sound)
    second = _session("b.ts", second_size, 3, tmp_path)
    joined = tmp_path / "joined.ts"
    joined.write_bytes(first.read_bytes() + second.read_bytes())
    first_pictures = _pictures(first)
    assert first_pictures == 60 and _pictures(second) == 90

    out = tmp_path / "out"
    run = h.run([binary, "record", "--source", joined, "--output", out, "--quiet", "--stamp-frame-index"])
    assert run.returncode == 0, run.stderr
    m = h.load_manifest(out)
    assert sum(s["frameCount"] for s in m["segments"]) == 150, m["segments"]
    assert len(m["segments"]) == (1 if second_size == "320x240" else 2)

    # The splice point: the session time of b's first picture (the frame stamped 60).
    times = []
    for seg in m["segments"]:
        _, stamps = h.stored_stamps(out / seg["file"])
        times += [(stamp, h.t(seg["sessionStart"]) + pts) for stamp, pts in zip(stamps, _frame_times(out / seg["file"]))]
    assert [stamp for stamp, _ in times] == list(range(150))
    splice = times[first_pictures][1]
    # One frame period after a's last picture (within the file's tick), and a segment's start at a new size.
    assert abs(splice - times[first_pictures - 1][1] - Fraction(1, 30)) < Fraction(1, 10000), (float(splice), float(times[first_pictures - 1][1]))
    if second_size != "320x240":
        assert h.t(m["segments"][1]["sessionStart"]) == splice or abs(h.t(m["segments"][1]["sessionStart"]) - splice) < Fraction(1, 10000)
        splice = h.t(m["segments"][1]["sessionStart"])

    # Where every click belongs: a's at its own time (the session clock is a's), b's at the
    # splice point plus its time after b's first picture.
    origin = h.t(m["segments"][0]["sessionStart"])
    end = h.t(m["segments"][-1]["sessionEnd"])
    expected = _clicks(first) + [splice + c - _start(second, "v") for c in _clicks(second)]
    # A click at the recording's first sample has no onset to find; one cut by the end neither.
    expected = [e for e in expected if origin + Fraction(1, 1000) < e < end - Fraction(1, 100)]
    assert len(expected) == 4, [float(e) for e in expected]  # a's at 1 s; b's at 0, 1 and 2 s
    pcm, rate, _ = a.recording_audio(out, m)
    found = [origin + Fraction(o, rate) for o in a.click_onsets(pcm, rate)]
    assert len(found) == len(expected), f"clicks at {[float(f) for f in found]}, expected {[float(e) for e in expected]}"
    errors = [float(f - e) * 1000 for f, e in zip(found, expected)]
    notes.append(f"ts splice ({second_size}, a's sound {first_sound} s): splice {float(splice):.6f} s, click errors (ms) " + ", ".join(f"{e:+.3f}" for e in errors))
    assert max(abs(e) for e in errors) <= 1.0, f"click errors {errors} ms (splice at {float(splice):.6f} s)"
    assert any("where the new pictures begin" in w for w in m["warnings"]), m["warnings"]
    verify = h.run([binary, "verify", out])
    assert verify.returncode == 0, verify.stdout + verify.stderr
