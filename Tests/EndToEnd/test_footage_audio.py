"""Footage sound (Docs/DESIGN.md "Audio", issue 27 item 3): `record --source FILE` records the
file's first audio stream as each segment's AAC-LC track, placed on the session clock by its
own timestamps and cut with the pictures. Footage is made with ffmpeg (testsrc2, a size change
by two H.264 streams one after the other, and a 1 kHz sine with a 10 ms 4 kHz click at every
whole second of the sound), and everything is read back with ffprobe, ffmpeg and MediaInfo."""
import re
import subprocess

import pytest

pytest.importorskip("numpy", reason="test_footage_audio.py reads the sound back with numpy (Debian: python3-numpy)")

import numpy as np  # noqa: E402

import audio_analysis as a  # noqa: E402  (needs numpy)
import e2e_helpers as h  # noqa: E402


def signal(rate, seconds=3):
    """The sound: the synthetic microphone's signal, on the footage's own clock."""
    return (f"aevalsrc=0.1*sin(2*PI*1000*t)+0.7079*sin(2*PI*4000*t)*lt(mod(t\\,1)\\,0.01):s={rate}:d={seconds}")


@pytest.fixture(scope="module")
def footage(tmp_path_factory):
    """Two H.264 streams one after the other (320x240 then 240x320, 1.5 s each at 30 fps, so
    the decoded size changes at 1.5 s), muxed with ffmpeg into each container with sound."""
    work = tmp_path_factory.mktemp("footage-audio")
    parts = []
    for i, size in enumerate(["320x240", "240x320"]):
        part = work / f"part{i}.h264"
        made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30:d=1.5", "-c:v", "libx264",
                      "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "h264", part])
        assert made.returncode == 0, made.stderr
        parts.append(part.read_bytes())
    video = work / "video.h264"
    video.write_bytes(b"".join(parts))
    made = {}

    def make(name, codec, rate=48000, extra=()):
        if name not in made:
            path = work / name
            run = h.run(["ffmpeg", "-v", "error", "-y", "-framerate", "30", "-i", video, "-f", "lavfi", "-i", signal(rate),
                         "-c:v", "copy", "-c:a", codec, *extra, "-shortest", path])
            assert run.returncode == 0, run.stderr
            made[name] = path
        return made[name]

    make.work = work
    return make


def record(binary, source, out, *extra):
    run = h.run([binary, "record", "--source", source, "--output", out, "--quiet", *extra])
    assert run.returncode == 0, run.stderr
    return h.load_manifest(out)


def reference_sound(source, rate):
    """ffmpeg's own reading of the footage's sound on its timestamps: sample i at input time
    i / rate (silence before the first sample, as `aresample=async=1:first_pts=0` places it)."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-copyts", "-i", str(source), "-map", "0:a:0", "-ac", "1", "-af",
                          f"aresample={rate}:async=1:first_pts=0", "-f", "f32le", "-"], capture_output=True)
    assert out.returncode == 0, out.stderr.decode()[:300]
    return np.frombuffer(out.stdout, dtype="<f4").astype(np.float64)


def tone_phase(pcm, start, rate, n=480):
    """The 1 kHz tone's phase (radians) over pcm[start:start+n], on the absolute sample index."""
    k = np.arange(start, start + n)
    return np.angle(np.sum(pcm[start:start + n] * np.exp(-2j * np.pi * 1000 * k / rate)))


def phase_step_at(pcm, cut, rate):
    """How far (in samples) the tone after `cut` is shifted against the tone before it: 0 for
    a join that loses and repeats nothing."""
    step = (tone_phase(pcm, cut, rate) - tone_phase(pcm, cut - 480, rate) + np.pi) % (2 * np.pi) - np.pi
    return step / (2 * np.pi) * rate / 1000


CONTAINERS = [
    # name, ffmpeg audio codec, sample rate, ffprobe codec name
    ("aac.mp4", "aac", 48000, "aac"),
    ("opus.mkv", "libopus", 48000, "opus"),
    ("mp3.mkv", "libmp3lame", 44100, "mp3"),
    ("pcm.mov", "pcm_s16le", 48000, "pcm_s16le"),
    ("aac.ts", "aac", 48000, "aac"),
    ("aac.flv", "aac", 44100, "aac"),
    ("mp3.flv", "libmp3lame", 44100, "mp3"),
]


@pytest.mark.parametrize("name,codec,rate,probed", CONTAINERS, ids=[c[0] for c in CONTAINERS])
def test_footage_sound_is_cut_with_the_pictures_continuous_and_in_sync(binary, footage, tmp_path, notes, name, codec, rate, probed):
    source = footage(name, codec, rate)
    (src,) = a.audio_stream(source)
    assert src["codec_name"] == probed
    out = tmp_path / "out"
    m = record(binary, source, out)
    assert [(s["width"], s["height"]) for s in m["segments"]] == [(320, 240), (240, 320)]
    # The manifest: the input's audio clock beside its video clock, the stream named in notes.
    audio_clock = next(d for d in m["devices"] if d["id"] == "inputAudio")
    assert audio_clock["timescale"] == int(src["time_base"].split("/")[1]) and audio_clock["driftPPM"] == 0
    assert any(n.startswith(f"input stream #1 (audio, {probed}) recorded as each segment's audio track") for n in m["notes"]), m["notes"]
    assert not any("audio" in n and "ignored" in n for n in m["notes"])
    # Every segment: one AAC-LC track holding exactly its [sessionStart, sessionEnd).
    pieces = []
    for seg in m["segments"]:
        streams = a.audio_stream(out / seg["file"])
        assert len(streams) == 1, streams
        (st,) = streams
        assert st["codec_name"] == "aac" and st["profile"] == "LC" and int(st["sample_rate"]) == rate
        assert st["time_base"] == f"1/{rate}"
        declared = int(st["duration_ts"])
        assert seg["audio"] == {"codec": "aac", "sampleRate": rate, "channels": 1, "sampleCount": declared}
        assert abs(declared - round(h.exact_duration(seg) * rate)) <= 1, (declared, h.exact_duration(seg))
        # MediaInfo (milliseconds) says the manifest's duration.
        info = h.run(["mediainfo", "--Inform=Audio;%Duration%", out / seg["file"]]).stdout.strip()
        assert abs(float(info) - declared * 1000 / rate) <= 1.0, (info, declared)
        pieces.append(a.decode(out / seg["file"], rate, declared))
    assert m["audio"]["written"] == sum(s["audio"]["sampleCount"] for s in m["segments"])
    assert m["audio"]["received"] >= m["audio"]["written"] - rate // 10
    joined = np.concatenate(pieces)
    # At the cut the tone goes on: no sample lost or repeated (a sample is 0.36 rad at 48 kHz).
    step = phase_step_at(joined, len(pieces[0]), rate)
    assert abs(step) < 1, f"the tone jumps {step:.2f} samples at the cut"
    # Every click sits where ffmpeg puts it on the footage's timestamps, within 1 ms.
    origin = h.t(m["segments"][0]["sessionStart"])
    shift = float(origin * rate)
    ours = [o + shift for o in a.click_onsets(joined, rate)]
    theirs = a.click_onsets(reference_sound(source, rate), rate)
    assert len(ours) == 2, ours  # the clicks at 1 s and 2 s of the sound
    errors = [min(abs(o - t) for t in theirs) for o in ours]
    assert max(errors) <= rate / 1000, f"clicks {ours} against ffmpeg's {theirs}"
    notes.append(f"footage audio {name}: cut step {step:+.3f} samples, click error {max(errors):.1f} samples at {rate} Hz, "
                 + ", ".join(f"{s['file']} {s['audio']['sampleCount']}" for s in m["segments"]))
    verify = h.run([binary, "verify", out])
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_footage_no_audio_records_none(binary, footage, tmp_path):
    source = footage("aac.mp4", "aac")
    heard = record(binary, source, tmp_path / "heard")
    assert [d["id"] for d in heard["devices"]] == ["input", "inputAudio"] and heard["audio"]["written"] > 0
    out = tmp_path / "silent"
    m = record(binary, source, out, "--no-audio")
    assert "audio" not in m and all("audio" not in s for s in m["segments"])
    assert [d["id"] for d in m["devices"]] == ["input"]
    assert all(a.audio_stream(out / s["file"]) == [] for s in m["segments"])
    assert any(n.startswith("input stream #1 (audio, aac) ignored") for n in m["notes"]), m["notes"]
    assert "--no-audio: the input's sound is not recorded" in m["notes"]


def test_footage_audio_only_input_is_an_error_naming_the_file(binary, footage, tmp_path):
    sound = footage.work / "sound-only.m4a"
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", signal(48000, 1), "-c:a", "aac", sound])
    assert made.returncode == 0, made.stderr
    run = h.run([binary, "record", "--source", sound, "--output", tmp_path / "none"])
    assert run.returncode == 65, run.stderr
    assert str(sound) in run.stderr and "no video stream" in run.stderr, run.stderr


def presentation_times(path, entries):
    """ffprobe's presentation times (seconds) of the first video stream, sorted: `packet` for
    every stored picture, `frame` for every decoded one."""
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", f"{entries}=pts_time", "-of", "csv=p=0", path])
    assert out.returncode == 0, out.stderr
    return sorted(float(line.split(",")[0]) for line in out.stdout.split() if line.split(",")[0] not in ("", "N/A"))


BFRAME_FOOTAGE = [
    # name, extra filter: frame durations that differ from the decode steps (Matroska's 1 ms
    # ticks; a variable rate in MP4 and MPEG-TS) and a plain constant rate
    ("cfr.mkv", None),
    ("vfr.mp4", "settb=1/90000,setpts=(N/30+0.006*mod(N\\,3))/TB"),
    ("vfr.ts", "settb=1/90000,setpts=(N/30+0.006*mod(N\\,3))/TB"),
    ("cfr.mp4", None),
]


@pytest.mark.parametrize("name,jitter", BFRAME_FOOTAGE, ids=[f[0] for f in BFRAME_FOOTAGE])
@pytest.mark.parametrize("interval", ["1", "0.3"], ids=["fragments-1s", "fragments-0.3s"])
def test_footage_with_sound_keeps_every_picture_s_time_through_b_frames_and_fragments(binary, footage, tmp_path, name, jitter, interval):
    """Sound beside B-frame pictures: the audio track cuts the crash-safe fragments between
    the pictures' decode and presentation order, and no picture's time may move for it. Every
    picture of every segment is presented at the input's own time (ffprobe on both), exactly as
    without sound, and `verify` agrees."""
    path = footage.work / f"bframes-{name}"
    if not path.exists():
        made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:d=3", "-f", "lavfi", "-i",
                      signal(48000), *(("-vf", jitter, "-fps_mode", "passthrough", "-enc_time_base:v", "1/90000") if jitter else ()), "-c:v", "libx264",
                      "-preset", "medium", "-bf", "3", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path])
        assert made.returncode == 0, made.stderr
    source = presentation_times(path, "frame")
    assert len(source) == 90
    steps = {round(b - a_, 6) for a_, b in zip(source, source[1:])}
    assert (len(steps) > 2) == (jitter is not None), steps
    reorder = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pict_type", "-of", "csv=p=0", path])
    assert "B" in reorder.stdout, "the footage must have B-frames"
    results = {}
    for sound in ("with", "without"):
        out = tmp_path / sound
        m = record(binary, path, out, "--fragment-interval", interval, *(() if sound == "with" else ("--no-audio",)))
        assert ("audio" in m["segments"][0]) == (sound == "with")
        times = []
        for seg in m["segments"]:
            times += [h.t(seg["sessionStart"]) + float(x) for x in presentation_times(out / seg["file"], "packet")]
        results[sound] = times
        verify = h.run([binary, "verify", out])
        assert verify.returncode == 0, verify.stdout + verify.stderr
    for sound, times in results.items():
        assert len(times) == len(source), (sound, len(times))
        errors = [abs((o - times[0]) - (i - source[0])) for o, i in zip(times, source)]
        worst = max(errors)
        assert worst < 0.0001, f"{sound} sound: picture {errors.index(worst)} is {worst * 1000:.3f} ms off the input's time (1 ms ticks in, 1/15360 s out)"
    assert max(abs(a_ - b_) for a_, b_ in zip(results["with"], results["without"])) < 1e-6


def shifted_footage(footage, name, shift):
    """3 s of 320x240 with PCM sound in Matroska whose timestamps after the first second move
    by `shift` seconds (a gap when positive, an overlap when negative)."""
    path = footage.work / name
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:d=3", "-f", "lavfi", "-i",
                  signal(48000), "-af", f"asetpts=PTS+{shift}/TB*gte(T\\,1)", "-c:v", "libx264", "-preset", "ultrafast",
                  "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le", path])
    assert made.returncode == 0, made.stderr
    return path


@pytest.mark.parametrize("shift", [0.5, -0.25], ids=["gap", "overlap"])
def test_footage_audio_gap_is_silence_and_overlap_is_trimmed(binary, footage, tmp_path, shift):
    source = shifted_footage(footage, f"shifted{shift}.mkv", shift)
    out = tmp_path / "out"
    m = record(binary, source, out)
    (seg,) = m["segments"]
    declared = seg["audio"]["sampleCount"]
    pcm = a.decode(out / seg["file"], 48000, declared)
    origin = float(h.t(seg["sessionStart"]) * 48000)
    # The click of the sound's second 2 sits at its shifted timestamp, within 1 ms.
    onsets = [o + origin for o in a.click_onsets(pcm, 48000)]
    assert any(abs(o - (2 + shift) * 48000) <= 48 for o in onsets), onsets
    warning = next(w for w in m["warnings"] if "audio timestamps leave gaps or overlap" in w)
    filled, trimmed = (float(x) for x in re.search(r"\(([\d.]+) s\) of silence filled in, \d+ samples \(([\d.]+) s\) trimmed", warning).groups())
    if shift > 0:
        # One gap of 0.5 s (the Matroska millisecond moves it by up to half of one).
        assert "overlap 1 time:" in warning and abs(filled - 0.5) <= 0.001 and trimmed == 0, warning
        # Silence where the timestamps leave the gap (after the frame that starts at or after 1 s).
        quiet = pcm[int(1.03 * 48000 - origin):int(1.48 * 48000 - origin)]
        assert np.max(np.abs(quiet)) < 0.01
    else:
        # ffmpeg's muxer clamps the overlapping packets to the last time it wrote (its
        # "Non-monotonous DTS" warning), so the overlap comes as several packets, each trimmed:
        # 0.25 s in all, give or take a packet (1024 samples).
        assert filled == 0 and 0.25 - 0.001 <= trimmed <= 0.25 + 1024 / 48000, warning
    assert abs(declared - round(h.exact_duration(seg) * 48000)) <= 1
    verify = h.run([binary, "verify", out])
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_footage_damaged_audio_packets_are_counted_and_the_recording_goes_on(binary, footage, tmp_path):
    """Garbage over the payload of some MPEG-TS packets of the sound: counted in
    frames.corruptPackets like damaged video packets, with a warning; every frame kept."""
    source = footage("aac.ts", "aac")
    data = bytearray(source.read_bytes())
    pids = {}
    for i in range(0, len(data) - 187, 188):
        pid = ((data[i + 1] & 0x1F) << 8) | data[i + 2]
        pids.setdefault(pid, []).append(i)
    video_pid, audio_pid = 0x100, 0x101
    assert audio_pid in pids and video_pid in pids, sorted(pids)
    damaged = 0
    for i in pids[audio_pid][len(pids[audio_pid]) // 3:len(pids[audio_pid]) // 3 + 6]:
        if data[i + 1] & 0x40:  # leave the packets that start a PES (their headers carry the times)
            continue
        data[i + 4:i + 188] = bytes((j * 91 + 17) % 256 for j in range(184))
        damaged += 1
    assert damaged > 0
    broken = tmp_path / "broken.ts"
    broken.write_bytes(bytes(data))
    clean = record(binary, source, tmp_path / "clean")
    m = record(binary, broken, tmp_path / "broken")
    assert clean["frames"].get("corruptPackets", 0) == 0
    assert m["frames"]["written"] == clean["frames"]["written"] == 90
    assert m["frames"]["corruptPackets"] >= 1, m["frames"]
    assert any(w.startswith("input audio damaged from packet") for w in m["warnings"]), m["warnings"]
    for seg in m["segments"]:
        assert abs(seg["audio"]["sampleCount"] - round(h.exact_duration(seg) * 48000)) <= 1
    verify = h.run([binary, "verify", tmp_path / "broken"])
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_footage_flv_restart_keeps_the_second_push_s_sound(binary, footage, tmp_path):
    """Two FLV pushes glued together (a live stream whose encoder started again: new AVC and
    AAC sequence headers, timestamps back at 0, a new size): the pictures continue one frame
    period after the last, the sound where it was (not trimmed as an overlap)."""
    pushes = []
    for i, size in enumerate(["320x240", "240x320"]):
        push = footage.work / f"push{i}.flv"
        made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30:d=2", "-f", "lavfi", "-i",
                      signal(44100, 2), "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", push])
        assert made.returncode == 0, made.stderr
        pushes.append(push.read_bytes())
    source = footage.work / "restart.flv"
    source.write_bytes(pushes[0] + pushes[1][13:])  # the second push without its FLV header
    out = tmp_path / "out"
    m = record(binary, source, out)
    assert [(s["width"], s["frameCount"]) for s in m["segments"]] == [(320, 60), (240, 60)]
    assert any(w.startswith("input audio timestamps jump") and "a restart at a new sequence header" in w for w in m["warnings"]), m["warnings"]
    pcm = np.concatenate([a.decode(out / s["file"], 44100, s["audio"]["sampleCount"]) for s in m["segments"]])
    origin = float(h.t(m["segments"][0]["sessionStart"]))
    clicks = [o / 44100 + origin for o in a.click_onsets(pcm, 44100)]
    second = float(h.t(m["segments"][1]["sessionStart"]))
    # Push 1's click at 1 s, push 2's at 0 s and 1 s: the second push's sound goes on, at its pace.
    assert len(clicks) == 3, clicks
    assert abs(clicks[2] - clicks[1] - 1) <= 0.001 and 0 <= clicks[1] - second <= 0.05, (clicks, second)
    for seg in m["segments"]:
        assert abs(seg["audio"]["sampleCount"] - round(h.exact_duration(seg) * 44100)) <= 1
