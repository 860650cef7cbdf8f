"""The exports carry the sound (issue 27 item 4, Docs/output.md "Sound in the exports"): an
iPhone Duo recording whose microphone runs on its own drifting clock and whose cameras
switch three times is exported to HLS, to an ffconcat list and to one MP4; each is decoded by
ffmpeg (never by segrec) and every click of the synthetic signal must sit at its whole
session second, with no sample lost or doubled at a file boundary.

Measured on this machine (FFmpeg 5.1), 7 s recording, 3 switches, clicks at 48 kHz:
- HLS: one AAC stream across the discontinuities, audio pts 0, 1024, 2048, … without a
  break; every click within 4 samples (0.08 ms); decoded length = the manifest's samples plus
  the last packet's padding only; the first 1024 samples decode attenuated (no priming
  packet), after them the re-encode differs from the recording's decode by -43 dB rms.
- concat: FFmpeg's concat demuxer gives each file's first audio packet the skip-samples of
  its edit list (priming skipped, pts = the file's offset - 1024) but keeps each file's last
  packet padding; decoded as plain samples the clicks after a boundary are late by the
  padding of the files before (here 445, 586, 698 samples), read by their timestamps
  (`aresample=async=1:min_hard_comp=0.001`, what a player's A/V sync does) within 4 samples.
- MP4: one AAC track of exactly the manifest's samples, every click within 4 samples.
"""
import json
import shutil
import subprocess

import pytest

pytest.importorskip("numpy", reason="test_export_audio.py reads the sound back with numpy (Debian: python3-numpy)")

import numpy as np  # noqa: E402

import audio_analysis as a  # noqa: E402
import e2e_helpers as h  # noqa: E402

RATE = 48000
ONE_MS = RATE // 1000
FRAME = 1024  # AAC-LC samples per packet

DUO = {"cameras": [
    {"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": 30,
     "clock": {"timescale": 24000000, "offsetSeconds": 12.5, "driftPPM": 50}},
    {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": 30,
     "clock": {"timescale": 90000, "offsetSeconds": -3.25, "driftPPM": -20}}],
    "frontCamera": "individual", "initialPosture": "closed", "switchGapSeconds": 0.25,
    "microphone": {"sampleRate": RATE, "channels": 1, "bufferFrames": 1024,
                   "clock": {"timescale": RATE, "offsetSeconds": 2.0, "driftPPM": -450}},
    "sessionStartSeconds": 1.0, "durationSeconds": 7.0,
    "events": [{"atSeconds": 1.9, "posture": "open"}, {"atSeconds": 3.95, "posture": "closed"},
               {"atSeconds": 5.5, "posture": "open"}]}


def record(binary, folder, scenario, *extra):
    path = folder.parent / (folder.name + ".json")
    path.write_text(json.dumps(scenario))
    run = h.run([binary, "record", "--source", "synthetic", "--scenario", path, "--output", folder, "--quiet",
                 "--preset", "ultrafast", *extra])
    assert run.returncode == 0, run.stderr
    return h.load_manifest(folder)


@pytest.fixture(scope="module")
def duo(binary, tmp_path_factory):
    folder = tmp_path_factory.mktemp("export-audio") / "duo"
    m = record(binary, folder, DUO)
    assert [s["startReason"] for s in m["segments"]] == ["recordingStarted"] + ["cameraSwitched"] * 3
    return folder, m


def decode(input_args, *filters):
    """ffmpeg's decode of the first audio stream, mono float at 48 kHz."""
    out = subprocess.run(["ffmpeg", "-v", "error", *input_args, "-map", "0:a:0", *filters, "-ac", "1", "-ar", str(RATE),
                          "-f", "f32le", "-"], capture_output=True)
    assert out.returncode == 0, out.stderr.decode()[:500]
    return np.frombuffer(out.stdout, dtype="<f4").astype(np.float64)


def expected_onsets(m):
    """Sample index (from the first segment's sessionStart) of every click the microphone
    captured: session seconds 1 … 6 after sessionStartSeconds."""
    origin = h.t(m["segments"][0]["sessionStart"])
    return [float((1 + k - origin) * RATE) for k in range(1, 7)]


def onset_errors(pcm, m):
    onsets = a.click_onsets(pcm, RATE)
    expected = expected_onsets(m)
    assert len(onsets) == len(expected), (onsets, expected)
    return [o - e for o, e in zip(onsets, expected)]


def total_samples(m):
    return sum(s["audio"]["sampleCount"] for s in m["segments"])


def audio_packets(input_args):
    out = h.run(["ffprobe", "-v", "error", *input_args, "-select_streams", "a:0", "-show_entries",
                 "packet=pts,duration", "-of", "json"])
    assert out.returncode == 0, out.stderr
    return [(int(p["pts"]), int(p.get("duration", FRAME))) for p in json.loads(out.stdout)["packets"]]


def test_hls_carries_one_continuous_sound_across_discontinuities(binary, duo, tmp_path, notes):
    folder, m = duo
    run = h.run([binary, "export", folder, "--hls", tmp_path / "hls"])
    assert run.returncode == 0, run.stderr
    total = total_samples(m)
    assert f"sound: one AAC stream of {total} samples" in run.stdout, run.stdout
    playlist = tmp_path / "hls" / "index.m3u8"
    # Every initialization section declares one AAC track at the microphone's rate (AAC-LC,
    # as the playlist's stream says).
    for seg in m["segments"]:
        init = tmp_path / "hls" / seg["file"].replace(".mp4", "-init.mp4")
        (stream,) = a.audio_stream(init)
        assert stream["codec_name"] == "aac" and int(stream["sample_rate"]) == RATE, stream
    (stream,) = a.audio_stream(playlist)
    assert stream["codec_name"] == "aac" and stream["profile"] == "LC", stream
    # Through FFmpeg's hls demuxer the audio packets follow each other without a break at
    # the three discontinuities: pts 0, 1024, 2048, …, the last one starting in the last
    # AAC frame of the total (its trun duration ends it at the total; FFmpeg 5.1 reports a
    # whole frame for it).
    packets = audio_packets(["-i", playlist])
    assert [p for p, _ in packets] == [FRAME * j for j in range(len(packets))]
    assert packets[-1][0] < total <= packets[-1][0] + FRAME
    assert abs(total - round(float(h.t(m["segments"][-1]["sessionEnd"]) - float(h.t(m["segments"][0]["sessionStart"]))) * RATE)) <= 1
    # Decoded: the manifest's samples plus the last packet's padding, nothing at the cuts.
    pcm = decode(["-i", playlist])
    assert total <= len(pcm) < total + FRAME, (len(pcm), total)
    errors = onset_errors(pcm[:total], m)
    assert max(abs(e) for e in errors) <= ONE_MS, errors
    # The same sound as the recording's files decoded one after another, at lag 0 at every
    # file boundary; only the first AAC frame (no priming packet) differs much.
    joined, _, _ = a.recording_audio(folder, m)
    diff = pcm[:total] - joined
    rms = float(np.sqrt(np.mean(diff[FRAME:] ** 2)) / np.sqrt(np.mean(joined ** 2)))
    assert rms < 0.05, rms
    lags = []
    for boundary in np.cumsum([s["audio"]["sampleCount"] for s in m["segments"]])[:-1]:
        window = joined[boundary - 2000:boundary + 2000]
        lags.append(max(range(-64, 65), key=lambda lag: float(np.dot(window, pcm[boundary - 2000 + lag:boundary + 2000 + lag]))))
    assert lags == [0, 0, 0], lags
    notes.append(f"export audio HLS: clicks {errors} samples off; rms difference after the first frame {20 * np.log10(rms):.1f} dB;"
                 f" first frame max difference {np.max(np.abs(diff[:FRAME])):.3f}")


def test_concat_sound_in_sync_by_timestamps(binary, duo, tmp_path, notes):
    folder, m = duo
    lst = tmp_path / "rec.ffconcat"
    run = h.run([binary, "export", folder, "--concat", lst])
    assert run.returncode == 0, run.stderr
    args = ["-f", "concat", "-safe", "0", "-i", lst]
    # FFmpeg 5.1's concat demuxer: each file's first audio packet starts one AAC frame before
    # the file's offset (its priming, skipped by the decoder through the edit list's
    # skip-samples; the offset is the sum of the list's durations, which the demuxer reads
    # to the microsecond), overlapping the previous file's last packet.
    packets = audio_packets(args)
    starts = np.cumsum([0] + [s["audio"]["sampleCount"] for s in m["segments"]])
    firsts = [packets[0][0]] + [p for (q, d), (p, _) in zip(packets, packets[1:]) if p < q + d]
    assert len(firsts) == len(m["segments"]), firsts
    assert all(abs(f - (s - FRAME)) <= 1 for f, s in zip(firsts, starts)), (firsts, starts)
    # Read by their timestamps (a player's sync; ffmpeg: aresample with hard compensation)
    # every click is at its second.
    synced = onset_errors(decode(args, "-af", "aresample=async=1:min_hard_comp=0.001"), m)
    assert max(abs(e) for e in synced) <= ONE_MS, synced
    # Read as plain samples, each file adds its last packet's padding (the decoder keeps it).
    raw = onset_errors(decode(args), m)
    padding = [(-(s["audio"]["sampleCount"]) % FRAME) for s in m["segments"]]
    origin = h.t(m["segments"][0]["sessionStart"])
    for error, second in zip(raw, range(2, 8)):
        at = (second - origin) * RATE
        late = sum(p for p, start in zip(padding, starts[1:]) if start <= at)
        assert abs(error - late) <= 8, (raw, padding)
    notes.append(f"export audio concat: by timestamps {synced} samples; as plain samples {raw} (paddings {padding})")


def test_concat_hevc_copies_keep_their_sound(binary, tmp_path):
    scenario = {**DUO, "durationSeconds": 3.5, "events": DUO["events"][:1]}
    m = record(binary, tmp_path / "hevc", scenario, "--codec", "hevc")
    lst = tmp_path / "hevc.ffconcat"
    run = h.run([binary, "export", tmp_path / "hevc", "--concat", lst])
    assert run.returncode == 0, run.stderr
    for seg in m["segments"]:
        copy = tmp_path / "hevc-files" / seg["file"]
        packets = audio_packets(["-i", copy])
        assert [p for p, _ in packets] == [FRAME * j for j in range(len(packets))], seg["file"]
        assert packets[-1][0] < seg["audio"]["sampleCount"] <= packets[-1][0] + FRAME, (seg["file"], packets[-1])
    pcm = decode(["-f", "concat", "-safe", "0", "-i", lst], "-af", "aresample=async=1:min_hard_comp=0.001")
    onsets = a.click_onsets(pcm, RATE)
    origin = h.t(m["segments"][0]["sessionStart"])
    expected = [float((1 + k - origin) * RATE) for k in range(1, 4)]  # seconds 2, 3, 4 of a 3.5 s recording from 1.0
    assert len(onsets) == 3 and max(abs(o - e) for o, e in zip(onsets, expected)) <= ONE_MS, (onsets, expected)


def test_mp4_carries_the_continuous_sound(binary, duo, tmp_path, notes):
    folder, m = duo
    out = tmp_path / "one.mp4"
    run = h.run([binary, "export", folder, "--mp4", out])
    assert run.returncode == 0, run.stderr
    total = total_samples(m)
    assert f"AAC sound, {total} samples" in run.stdout, run.stdout
    (stream,) = a.audio_stream(out)
    assert stream["codec_name"] == "aac" and stream["time_base"] == f"1/{RATE}"
    assert int(stream["duration_ts"]) == total
    # The sound lasts the pictures: both end at the last sessionEnd (within one sample).
    probe = h.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type,duration", "-of", "json", out])
    durations = {s["codec_type"]: float(s["duration"]) for s in json.loads(probe.stdout)["streams"]}
    assert abs(durations["audio"] - durations["video"]) <= 1 / RATE + 1e-6, durations
    pcm = a.decode(out, RATE, total)
    errors = onset_errors(pcm, m)
    assert max(abs(e) for e in errors) <= ONE_MS, errors
    notes.append(f"export audio mp4: clicks {errors} samples off, {total} samples")


def test_no_audio_recording_exports_without_sound(binary, tmp_path):
    scenario = {"device": {"format": 1280, "fps": 30}, "durationSeconds": 1.5,
                "microphone": DUO["microphone"]}
    record(binary, tmp_path / "silent", scenario, "--no-audio")
    run = h.run([binary, "export", tmp_path / "silent", "--hls", tmp_path / "hls", "--mp4", tmp_path / "one.mp4"])
    assert run.returncode == 0, run.stderr
    assert "sound" not in run.stdout
    assert a.audio_stream(tmp_path / "hls" / "segment-000-init.mp4") == []
    assert a.audio_stream(tmp_path / "one.mp4") == []


@pytest.mark.parametrize("kind", ["hls", "mp4"])
@pytest.mark.parametrize("kept", [3, 10], ids=["third", "tenth"])
def test_export_of_a_segment_cut_short_after_recording_names_it(binary, duo, tmp_path, kind, kept):
    """A segment file damaged after recording (cut to a third or a tenth, inside the pictures
    or the sound): `export` stops with a data error (65) that names the file, and writes no
    playlist or file."""
    folder, m = duo
    damaged = tmp_path / "damaged"
    shutil.copytree(folder, damaged)
    victim = damaged / m["segments"][1]["file"]
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // kept])
    out = tmp_path / ("hls" if kind == "hls" else "one.mp4")
    run = h.run([binary, "export", damaged, f"--{kind}", out])
    assert run.returncode == 65, (run.returncode, run.stderr)
    assert str(victim) in run.stderr, run.stderr
    assert not (out / "index.m3u8").exists() if kind == "hls" else not out.exists()
