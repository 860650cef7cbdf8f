"""Reads a recording's sound back with ffprobe and ffmpeg (never with segrec) and finds the
synthetic signal's clicks (Docs/DESIGN.md "Audio": a 1 kHz sine at -20 dBFS and, at every
whole second after session start, 10 ms of 4 kHz at -3 dBFS).

The click detector is a sliding DFT at 4 kHz over exactly 1 ms (one period of the 1 kHz
tone, four of the click: the tone leaks nothing into it at 48 kHz); an onset is where the
magnitude first crosses half the click's plateau, less the detector's own delay, which is
measured on a clean synthetic click (so the reported onset is the first sample of the burst)."""
import json
import subprocess

import numpy as np

import e2e_helpers as h

CLICK_HZ = 4000
CLICK_AMPLITUDE = 10 ** (-3 / 20)
TONE_AMPLITUDE = 0.1


def audio_stream(path):
    """ffprobe's audio streams of `path` (list of dicts)."""
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries",
                 "stream=codec_name,profile,sample_rate,channels,time_base,duration_ts,start_pts", "-of", "json", path])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["streams"]


def decode(path, rate, samples):
    """The first audio stream of `path` decoded by ffmpeg to mono float, cut to `samples`
    (FFmpeg 5.1 does not trim the last packet's padding itself; the priming it does skip)."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:a:0", "-ac", "1", "-ar", str(rate),
                          "-f", "f32le", "-"], capture_output=True)
    assert out.returncode == 0, out.stderr.decode()[:500]
    pcm = np.frombuffer(out.stdout, dtype="<f4").astype(np.float64)
    assert len(pcm) >= samples - 1, f"{path}: {len(pcm)} samples decoded, the track declares {samples}"
    return pcm[:samples]


def _magnitude(pcm, rate):
    n = rate // 1000
    k = np.arange(len(pcm))
    basis = np.exp(-2j * np.pi * CLICK_HZ * (k % rate) / rate)
    cs = np.concatenate([[0], np.cumsum(pcm * basis)])
    window = cs[n:] - cs[:-n]          # window[i] = sum over samples i .. i+n-1
    return np.abs(window), n


def click_onsets(pcm, rate):
    """Sample indices of every click onset in `pcm`."""
    magnitude, n = _magnitude(pcm, rate)
    half = 0.5 * CLICK_AMPLITUDE * n / 2
    above = magnitude >= half
    rising = np.flatnonzero(above[1:] & ~above[:-1]) + 1
    onsets, last = [], None
    for i in rising:
        if last is None or i - last > rate // 2:
            onsets.append(int(i) + n - 1 - _delay(rate))
            last = i
    return onsets


_delays = {}


def _delay(rate):
    """How many samples after a click's first sample the detector's window end crosses half."""
    if rate not in _delays:
        length = (rate + 50) // 100
        pcm = np.zeros(rate // 2)
        start = rate // 10
        k = np.arange(length)
        pcm[start:start + length] = CLICK_AMPLITUDE * np.sin(2 * np.pi * ((k * CLICK_HZ) % rate) / rate)
        magnitude, n = _magnitude(pcm, rate)
        i = int(np.flatnonzero(magnitude >= 0.5 * CLICK_AMPLITUDE * n / 2)[0])
        _delays[rate] = i + n - 1 - start
    return _delays[rate]


def recording_audio(folder, manifest):
    """Checks every segment's audio track against its manifest record and returns the
    segments' sound decoded one after another, with per-segment facts:
    [(file, duration_ts, expected)]."""
    pieces, facts = [], []
    for seg in manifest["segments"]:
        path = folder / seg["file"]
        streams = audio_stream(path)
        assert len(streams) == 1, f"{seg['file']}: {len(streams)} audio streams"
        a = streams[0]
        rate = int(a["sample_rate"])
        assert a["codec_name"] == "aac" and a.get("profile") == "LC", a
        assert a["time_base"] == f"1/{rate}", a
        duration = h.exact_duration(seg)
        expected = round(duration * rate)
        declared = int(a["duration_ts"])
        assert abs(declared - expected) <= 1, f"{seg['file']}: duration_ts {declared}, expected {expected} ± 1"
        assert seg["audio"]["sampleCount"] == declared, (seg["audio"], declared)
        assert seg["audio"]["sampleRate"] == rate
        pieces.append(decode(path, rate, declared))
        facts.append((seg["file"], declared, expected))
    return np.concatenate(pieces), rate, facts


def click_errors(folder, manifest, session_start_ns, duration_s):
    """Every click's onset in the joined sound against its whole session second, in
    samples: (errors, expected count, facts). The joined sound's sample 0 is the first
    segment's sessionStart; the microphone delivers the samples before sessionStart +
    duration, so a click at or after that second is never captured."""
    pcm, rate, facts = recording_audio(folder, manifest)
    first = manifest["segments"][0]["sessionStart"]
    origin = h.t(first)
    end = h.t(manifest["segments"][-1]["sessionEnd"])
    start = h.Fraction(session_start_ns, 10**9)
    onsets = click_onsets(pcm, rate)
    expected = []
    k = 1
    click = h.Fraction((rate + 50) // 100, rate)
    while start + k + click <= end and k < duration_s:
        expected.append((start + k - origin) * rate)
        k += 1
    assert len(onsets) == len(expected), f"{len(onsets)} clicks found, {len(expected)} expected: {onsets[:5]} vs {[float(e) for e in expected[:5]]}"
    return [float(o - e) for o, e in zip(onsets, expected)], len(expected), facts
