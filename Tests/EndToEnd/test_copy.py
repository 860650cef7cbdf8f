"""Issue 42, item 3: `record --copy` writes an encoded stream's packets as they were sent (no
decoding, no encoding): a new file at the first keyframe whose size (read by libavcodec's
parser) differs from the open file's, never at a parameter-set change that keeps the size;
every segment says `copied: true`, the manifest names no encoder, and `segrec verify` passes.
The packets are compared with the sender's NAL unit by NAL unit (the MP4 files' length-prefixed
packets turned back into Annex B by FFmpeg's h264_mp4toannexb). Senders are ffmpeg, on
127.0.0.1 only. On the build before, `--copy` was an unknown option (exit 64).
A copied live sender restarted mid-recording (UDP; SRT and RTMP pushed into `--listen`) is
reconnected: a new file at its first keyframe when its size or its parameter sets differ, the
same file otherwise, every packet as sent; on the build before (69606d9) `--copy` with
`--reconnect-for` exited 64."""
import re
import socket
import subprocess
import time

import pytest

import e2e_helpers as h
from test_live_sources import free_port, wait_for_port

PART_SECONDS = 2
RATE = 30


def nanoseconds(value):
    """A manifest time of `value` nanoseconds, as the manifest writes it."""
    return {"timescale": 1_000_000_000, "value": value}


def encode(path, size, extra=(), offset=None, tone=440, audio="aac"):
    """`PART_SECONDS` of testsrc2 at `size` and a tone, H.264 (keyframe every 15) + AAC (or `audio`) in MPEG-TS."""
    h.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate={RATE}", "-f", "lavfi", "-i",
           f"sine=frequency={tone}:beep_factor=4:sample_rate=48000", "-t", str(PART_SECONDS), "-c:v", "libx264", "-g", "15", *extra,
           "-c:a", audio, *(["-output_ts_offset", str(offset)] if offset is not None else []), "-f", "mpegts", str(path)])


def joined(tmp_path, first, second, first_extra=(), second_extra=()):
    """Two encodes concatenated into one MPEG-TS file, the second's timestamps after the first's."""
    a, b, ab = tmp_path / "a.ts", tmp_path / "b.ts", tmp_path / "ab.ts"
    encode(a, first, first_extra)
    encode(b, second, second_extra, offset=PART_SECONDS + 0.2, tone=660)
    ab.write_bytes(a.read_bytes() + b.read_bytes())
    return ab


def nal_units(annexb):
    """The NAL units of an Annex B byte stream (start codes and trailing zero bytes removed)."""
    return [unit.rstrip(b"\x00") for unit in re.split(b"\x00\x00\x01", annexb) if unit.rstrip(b"\x00")]


def source_units(path):
    return nal_units(subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-c", "copy", "-f", "h264", "-"],
                                    capture_output=True, check=True, timeout=60).stdout)


def segment_units(path):
    return nal_units(subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-c", "copy", "-bsf:v", "h264_mp4toannexb",
                                     "-f", "h264", "-"], capture_output=True, check=True, timeout=60).stdout)


def audio_hashes(path):
    """The MD5 of every audio packet's data, in order (ADTS turned into raw AAC frames, as MP4 stores them)."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:a:0", "-c", "copy", "-bsf:a", "aac_adtstoasc", "-f", "framemd5", "-"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return [line.split(",")[5].strip() for line in out.splitlines() if line and not line.startswith("#")]


def runs_in_order(parts, whole):
    """Where each part occurs as a contiguous run of `whole`, each after the one before; None when one does not."""
    positions, start = [], 0
    for part in parts:
        found = next((i for i in range(start, len(whole) - len(part) + 1) if whole[i:i + len(part)] == part), None)
        if found is None:
            return None
        positions.append(found)
        start = found + len(part)
    return positions


def packets(path):
    """(keyframe, size) of every video packet, in decode order."""
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags,size", "-of", "csv=p=0", str(path)]).stdout
    return [("K" in fields[1], int(fields[0])) for fields in (line.split(",") for line in out.split())]


def checked_recording(binary, out, *args):
    r = subprocess.run([binary, "record", "--copy", "--output", str(out), "--quiet", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    m = h.load_manifest(out)
    h.validate_manifest(m)
    assert m["encoder"] is None
    assert all(s.get("copied") is True for s in m["segments"]), m["segments"]
    for s in m["segments"]:
        probed = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                        "stream=width,height,nb_read_frames", "-of", "csv=p=0", str(out / s["file"])]).stdout.strip()
        assert probed == f"{s['width']},{s['height']},{s['frameCount']}", (s["file"], probed)
        first = packets(out / s["file"])[0]
        assert first[0], f"{s['file']} does not start with a keyframe"
        assert h.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                      str(out / s["file"])]).stdout.strip() == s["audio"]["codec"], f"{s['file']} has no sound"
    v = subprocess.run([binary, "verify", str(out)], capture_output=True, text=True, timeout=120)
    assert v.returncode == 0, v.stdout + v.stderr
    return m


def test_copy_splits_at_the_keyframe_of_a_new_size(binary, tmp_path):
    source = joined(tmp_path, "640x360", "360x640")
    m = checked_recording(binary, tmp_path / "out", "--source", str(source))
    got = [(s["width"], s["height"], s["frameCount"], s["startReason"]) for s in m["segments"]]
    frames = PART_SECONDS * RATE
    assert got == [(640, 360, frames, "recordingStarted"), (360, 640, frames, "dimensionsChanged")]
    assert m["frames"] == {"received": 2 * frames, "written": 2 * frames, "dropped": 0, "droppedReasons": {}}
    # Byte-identical: the files hold the sender's NAL units, in order, split where its second encode begins.
    sent = source_units(source)
    kept = [segment_units(tmp_path / "out" / s["file"]) for s in m["segments"]]
    assert kept[0] + kept[1] == sent
    assert kept[1] == source_units(tmp_path / "b.ts")
    # The sound is copied too (AAC: MP4 takes it): each file's packets are a run of the
    # sender's, byte for byte, in order; whole packets only, so a file's sound never
    # outlasts its span (a packet across the boundary is left out).
    sound = [audio_hashes(tmp_path / "out" / s["file"]) for s in m["segments"]]
    sent_sound = audio_hashes(source)
    assert all(sound) and runs_in_order(sound, sent_sound) is not None, "copied sound packets are not the sender's, in order"
    assert runs_in_order([sound[1]], audio_hashes(tmp_path / "b.ts")) is not None, "the second file's sound is not the second encode's"
    for s in m["segments"]:
        assert s["audio"]["codec"] == "aac" and s["audio"]["sampleCount"] == 1024 * len(audio_hashes(tmp_path / "out" / s["file"])), s["audio"]
        assert s["audio"]["sampleCount"] <= round((s["sessionEndSeconds"] - s["sessionStartSeconds"]) * 48000) + 1


@pytest.mark.parametrize("in_flight", ["1", "3", "16", "40"])
def test_copy_batches_keep_every_packet_whatever_the_queue_depth(binary, tmp_path, in_flight):
    """A copied stream's packets reach the writer in batches (up to 8 pictures or 0.25 s); a
    batch's pictures hold their queue slots, so it is capped at `--frames-in-flight`: at 1
    and 3 the recording neither hangs nor loses a packet, and every depth keeps the sender's
    NAL units byte for byte, in order, split at the new size's keyframe."""
    source = joined(tmp_path, "640x360", "360x640")
    m = checked_recording(binary, tmp_path / "out", "--source", str(source), "--frames-in-flight", in_flight)
    frames = PART_SECONDS * RATE
    assert [(s["width"], s["height"], s["frameCount"]) for s in m["segments"]] == [(640, 360, frames), (360, 640, frames)]
    assert m["frames"]["written"] == 2 * frames and m["frames"]["dropped"] == 0
    kept = [segment_units(tmp_path / "out" / s["file"]) for s in m["segments"]]
    assert kept[0] + kept[1] == source_units(source)


def test_copy_places_frames_on_the_session_clock_as_the_decoding_path_does(binary, tmp_path):
    # 90 kHz MPEG-TS at 30 fps: a frame lasts 3000 ticks, 33 333 333.3 ns. Each segment's
    # start and end are the device times converted (nearest ns), as when the footage is
    # decoded, not the start plus a rounded period (1 ns short before).
    # One encode: it starts at 1.4 s plus x264's B-frame delay (2 frames), a third of a tick
    # of the session clock away from whole nanoseconds, and ends its 60 frames later.
    source = tmp_path / "a.ts"
    encode(source, "640x360")
    copied = checked_recording(binary, tmp_path / "copy", "--source", str(source))
    r = subprocess.run([binary, "record", "--source", str(source), "--output", str(tmp_path / "decoded"), "--quiet", "--preset", "ultrafast"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    decoded = h.load_manifest(tmp_path / "decoded")
    spans = [[(s["sessionStart"], s["sessionEnd"], s["frameCount"]) for s in m["segments"]] for m in (copied, decoded)]
    assert spans[0] == spans[1]
    # 60 frames of 3000 ticks: the file lasts exactly 2 s, from 1.466666667 s (132000 ticks) to 3.466666667 s.
    assert spans[0] == [(nanoseconds(1_466_666_667), nanoseconds(3_466_666_667), 60)]


def test_copy_keeps_one_file_across_a_parameter_set_change_of_the_same_size(binary, tmp_path):
    # Baseline then High profile, other bit rates: a new SPS and PPS, the same 640x360.
    source = joined(tmp_path, "640x360", "640x360", ("-profile:v", "baseline", "-b:v", "400k"), ("-profile:v", "high", "-b:v", "1500k"))
    profiles = {h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile", "-of", "csv=p=0",
                       str(tmp_path / p)]).stdout.splitlines()[0] for p in ("a.ts", "b.ts")}
    assert profiles == {"Constrained Baseline", "High"}, profiles
    m = checked_recording(binary, tmp_path / "out", "--source", str(source))
    assert [(s["width"], s["height"], s["frameCount"]) for s in m["segments"]] == [(640, 360, 2 * PART_SECONDS * RATE)]
    assert segment_units(tmp_path / "out" / "segment-000.mp4") == source_units(source)


def test_copy_drops_pictures_before_the_first_keyframe(binary, tmp_path):
    # An MPEG-TS cut in the middle of a GOP: what comes before the next keyframe cannot start a file.
    source = joined(tmp_path, "640x360", "360x640")
    all_packets = packets(source)
    key_positions = [i for i, (key, _) in enumerate(all_packets) if key]
    cut = subprocess.run(["ffmpeg", "-v", "error", "-i", str(source), "-ss", "0.2", "-c", "copy", "-copyinkf", "-f", "mpegts", str(tmp_path / "cut.ts")],
                         capture_output=True, timeout=60)
    assert cut.returncode == 0
    cut_packets = packets(tmp_path / "cut.ts")
    leading = next(i for i, (key, _) in enumerate(cut_packets) if key)
    if leading == 0:
        pytest.skip(f"ffmpeg's cut started at a keyframe (keyframes at {key_positions[:3]})")
    m = checked_recording(binary, tmp_path / "out", "--source", str(tmp_path / "cut.ts"))
    assert m["frames"]["droppedReasons"] == {"beforeKeyframe": leading}
    assert m["frames"]["written"] == len(cut_packets) - leading


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_copy_of_a_live_udp_sender_splits_at_its_new_size(binary, tmp_path):
    source = joined(tmp_path, "640x360", "360x640")
    port = free_udp_port()
    out = tmp_path / "out"
    # --reconnect-for 0: the sender's end ends the recording (it is not waited for again).
    recorder = subprocess.Popen([binary, "record", "--copy", "--source", f"udp://127.0.0.1:{port}", "--io-timeout", "2", "--reconnect-for", "0",
                                 "--output", str(out), "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not any(int(line.split()[1].split(":")[1], 16) == port
                                                 for line in open("/proc/net/udp").readlines()[1:]):
            time.sleep(0.02)
        sender = subprocess.run(["ffmpeg", "-v", "error", "-re", "-i", str(source), "-c", "copy", "-f", "mpegts",
                                 f"udp://127.0.0.1:{port}?pkt_size=1316"], capture_output=True, text=True, timeout=60)
        assert sender.returncode == 0, sender.stderr
        _, stderr = recorder.communicate(timeout=60)
    finally:
        if recorder.poll() is None:
            recorder.kill()
    assert recorder.returncode == 0, stderr
    m = h.load_manifest(out)
    h.validate_manifest(m)
    assert [(s["width"], s["height"], s["copied"]) for s in m["segments"]] == [(640, 360, True), (360, 640, True)]
    v = subprocess.run([binary, "verify", str(out)], capture_output=True, text=True, timeout=120)
    assert v.returncode == 0, v.stdout + v.stderr
    sent = source_units(source)
    kept = [segment_units(out / s["file"]) for s in m["segments"]]
    # Every picture the sender sent after segrec listened, byte for byte; the split at its second encode.
    assert kept[0] + kept[1] == sent
    assert kept[1] == source_units(tmp_path / "b.ts")


def test_copy_cuts_a_duration_limit_at_the_first_keyframe_past_it(binary, tmp_path):
    # Keyframes every 15 frames (0.5 s): a 0.7 s limit is reached inside a GOP; the cut waits
    # for the keyframe at 1.0 s, and verify accepts the files' frames past the limit.
    source = joined(tmp_path, "640x360", "360x640")
    m = checked_recording(binary, tmp_path / "out", "--source", str(source), "--max-segment-duration", "0.7")
    got = [(s["width"], s["frameCount"], s["startReason"]) for s in m["segments"]]
    assert got == [(640, 30, "recordingStarted"), (640, 30, "maxSegmentDuration"), (360, 30, "dimensionsChanged"), (360, 30, "maxSegmentDuration")]
    kept = [segment_units(tmp_path / "out" / s["file"]) for s in m["segments"]]
    assert sum(kept, []) == source_units(source)


def listen_udp_then_send(binary, source, out, *args):
    """segrec --copy listening on a UDP port; once it is bound, ffmpeg sends `source` in real
    time. Returns (recorder process, sender process), both started."""
    port = free_udp_port()
    recorder = subprocess.Popen([binary, "record", "--copy", "--source", f"udp://127.0.0.1:{port}", "--io-timeout", "3", "--output", str(out),
                                 "--quiet", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and not any(int(line.split()[1].split(":")[1], 16) == port for line in open("/proc/net/udp").readlines()[1:]):
        time.sleep(0.02)
    sender = subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-i", str(source), "-c", "copy", "-f", "mpegts", f"udp://127.0.0.1:{port}?pkt_size=1316"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return recorder, sender


def test_copy_killed_mid_recording_is_recovered_and_verified(binary, tmp_path):
    # The copied segments are the same crash-safe fragmented files: kill -9 while the second
    # file is open, `recover` keeps every complete fragment, `verify` accepts the folder.
    source = joined(tmp_path, "640x360", "360x640")
    out = tmp_path / "out"
    recorder, sender = listen_udp_then_send(binary, source, out)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not list(out.glob("segment-001.mp4.partial")):
            time.sleep(0.05)
        time.sleep(1.2)  # a fragment (1 s) or more of the second file
    finally:
        recorder.kill()
        recorder.wait(timeout=30)
        sender.kill()
        sender.wait(timeout=30)
    assert list(out.glob("*.partial")), "the recording ended before it could be killed mid-file"
    r = subprocess.run([binary, "recover", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    m = h.load_manifest(out)
    h.validate_manifest(m)
    assert m["stopReason"] == "interrupted"
    assert all(s.get("copied") is True for s in m["segments"])
    assert [(s["width"], s["height"]) for s in m["segments"]][:1] == [(640, 360)]
    v = subprocess.run([binary, "verify", str(out)], capture_output=True, text=True, timeout=120)
    assert v.returncode == 0, v.stdout + v.stderr
    kept = sum((segment_units(out / s["file"]) for s in m["segments"]), [])
    sent = source_units(source)
    assert kept and kept == sent[:len(kept)], "the recovered files do not hold the sender's first NAL units, in order"


def test_copy_of_hevc_splits_at_the_keyframe_of_a_new_size(binary, tmp_path):
    a, b = tmp_path / "a.ts", tmp_path / "b.ts"
    for path, size, offset in ((a, "640x360", None), (b, "360x640", PART_SECONDS + 0.2)):
        h.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate={RATE}", "-t", str(PART_SECONDS), "-c:v", "libx265",
               "-x265-params", "keyint=15:log-level=error", *(["-output_ts_offset", str(offset)] if offset else []), "-f", "mpegts", str(path)])
    source = tmp_path / "ab.ts"
    source.write_bytes(a.read_bytes() + b.read_bytes())
    r = subprocess.run([binary, "record", "--copy", "--source", str(source), "--output", str(tmp_path / "out"), "--quiet"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    m = h.load_manifest(tmp_path / "out")
    h.validate_manifest(m)
    assert [(s["width"], s["height"], s["frameCount"], s["copied"]) for s in m["segments"]] == [(640, 360, 60, True), (360, 640, 60, True)]
    for s in m["segments"]:
        tag = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=codec_tag_string,width,height,nb_read_frames",
                     "-of", "csv=p=0", str(tmp_path / "out" / s["file"])]).stdout.strip()
        assert tag == f"hvc1,{s['width']},{s['height']},{s['frameCount']}", tag
    v = subprocess.run([binary, "verify", str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert v.returncode == 0, v.stdout + v.stderr


@pytest.mark.parametrize("audio_codec,container,recorded", [("libopus", "matroska", "opus"), ("pcm_s16le", "nut", "aac")])
def test_copy_copies_the_sound_mp4_takes_and_re_encodes_the_rest(binary, tmp_path, audio_codec, container, recorded):
    # Matroska with B-frames: its first packets have no decode time (counted back from the next).
    source = tmp_path / f"in.{container}"
    h.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size=640x360:rate={RATE}", "-f", "lavfi", "-i",
           "sine=frequency=440:beep_factor=4:sample_rate=48000", "-t", str(PART_SECONDS), "-c:v", "libx264", "-g", "15", "-c:a", audio_codec,
           "-f", container, str(source)])
    m = checked_recording(binary, tmp_path / "out", "--source", str(source))
    assert [(s["frameCount"], s["audio"]["codec"]) for s in m["segments"]] == [(PART_SECONDS * RATE, recorded)]
    codec = h.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                   str(tmp_path / "out" / "segment-000.mp4")]).stdout.strip()
    assert codec == recorded
    # The pictures' NAL units as sent (the parameter sets left aside: h264_mp4toannexb repeats
    # them in front of keyframes of a global-header input, on one side only).
    def pictures(units):
        return [u for u in units if u[0] & 0x1F not in (7, 8)]
    assert pictures(segment_units(tmp_path / "out" / "segment-000.mp4")) == pictures(source_units(source))


def test_copy_of_a_sender_restarting_at_time_zero_keeps_both_parts_with_sound(binary, tmp_path):
    # The second encode's timestamps start again where the first's did (a restarted sender):
    # its packets continue one frame after the last, and its sound is shifted with them.
    a, b, ab = tmp_path / "a.ts", tmp_path / "b.ts", tmp_path / "ab.ts"
    encode(a, "640x360")
    encode(b, "360x640", tone=660)
    ab.write_bytes(a.read_bytes() + b.read_bytes())
    m = checked_recording(binary, tmp_path / "out", "--source", str(ab))
    assert [(s["width"], s["height"], s["frameCount"]) for s in m["segments"]] == [(640, 360, 60), (360, 640, 60)]
    assert any("went back" in w for w in m["warnings"]), m["warnings"]
    kept = [segment_units(tmp_path / "out" / s["file"]) for s in m["segments"]]
    assert kept[0] + kept[1] == source_units(ab)
    sound = [audio_hashes(tmp_path / "out" / s["file"]) for s in m["segments"]]
    assert runs_in_order([sound[1]], audio_hashes(b)) is not None and len(sound[1]) >= 80, "the restarted sender's sound is missing"


@pytest.mark.parametrize("encoder,args,container,codec,tag", [
    ("libvpx-vp9", ["-deadline", "realtime", "-cpu-used", "8"], "webm", "vp9", "vp09"),
    ("libsvtav1", ["-preset", "12"], "matroska", "av1", "av01"),
])
def test_copy_of_vp9_and_av1_into_mp4(binary, tmp_path, encoder, args, container, codec, tag):
    # What the MP4 muxer takes beside H.264 and HEVC: the sample entry (vpcC, av1C) is made
    # from the stream's parameters, and the finished file decodes whole.
    if encoder not in h.run(["ffmpeg", "-hide_banner", "-encoders"]).stdout:
        pytest.skip(f"this ffmpeg has no {encoder}")
    source = tmp_path / f"in.{container}"
    h.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size=320x180:rate={RATE}", "-t", "1", "-c:v", encoder, *args, "-g", "15",
           "-f", container, str(source)])
    r = subprocess.run([binary, "record", "--copy", "--source", str(source), "--output", str(tmp_path / "out"), "--quiet"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    m = h.load_manifest(tmp_path / "out")
    h.validate_manifest(m)
    assert [(s["width"], s["height"], s["frameCount"], s["copied"]) for s in m["segments"]] == [(320, 180, RATE, True)]
    probed = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                    "stream=codec_name,codec_tag_string,nb_read_frames", "-of", "csv=p=0", str(tmp_path / "out" / "segment-000.mp4")]).stdout.strip()
    assert probed == f"{codec},{tag},{RATE}", probed
    v = subprocess.run([binary, "verify", str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert v.returncode == 0, v.stdout + v.stderr


def copy_across_a_restart(binary, tmp_path, scheme, second_size, second_extra=(), audio="aac", mid_gop=False):
    """segrec --copy of a live sender (UDP pulled, or SRT pushed into --listen) that sends
    a.ts (320x240), goes away, and comes back with b.ts (`second_size`, `second_extra`): the
    manifest, the liveSourceReconnected event, each segment's NAL units, the sent ones (a, b),
    and each file's and part's AAC packets (when the sound is AAC, copied). `mid_gop`: the
    second sender starts 0.2 s into b.ts, inside a GOP (b.ts is that cut)."""
    if scheme == "srt" and "srt" not in h.run(["ffmpeg", "-v", "error", "-protocols"]).stdout.split():
        pytest.skip("this ffmpeg has no SRT protocol (libsrt)")
    a, b = tmp_path / "a.ts", tmp_path / "b.ts"
    encode(a, "320x240", audio=audio)
    encode(b, second_size, second_extra, tone=660, audio=audio)
    if mid_gop:
        whole = tmp_path / "b-whole.ts"
        b.rename(whole)
        h.run(["ffmpeg", "-v", "error", "-i", str(whole), "-ss", "0.2", "-c", "copy", "-copyinkf", "-f", "mpegts", str(b)])
    port = free_port(socket.SOCK_STREAM if scheme == "rtmp" else socket.SOCK_DGRAM)
    url = f"{scheme}://127.0.0.1:{port}" + ("/live/cam" if scheme == "rtmp" else "")
    # UDP: silent for --io-timeout (1 s), then reopened; SRT, RTMP: the sender's close is the
    # outage (an SRT sender lingers until what it sent is delivered).
    args, sent_to = (["--io-timeout", "1"], url + "?pkt_size=1316") if scheme == "udp" else (["--listen", "--io-timeout", "2"], url + "?linger=3")
    if scheme == "rtmp":
        sent_to = url
    out = tmp_path / "out"
    started = time.time()
    recorder = subprocess.Popen([binary, "record", "--copy", "--source", url, *args, "--reconnect-for", "5", "--output", str(out), "--quiet"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for part in (a, b):
            wait_for_port(port, "tcp" if scheme == "rtmp" else "udp")  # bound (or listening) again for the next sender
            # -copyinkf: pictures before a part's first keyframe are sent too.
            r = subprocess.run(["ffmpeg", "-v", "error", "-re", "-i", str(part), "-c", "copy", "-copyinkf", "-f", "flv" if scheme == "rtmp" else "mpegts", sent_to], capture_output=True,
                               text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            time.sleep(2.5 if scheme == "udp" else 0.5)
        _, stderr = recorder.communicate(timeout=60)
    finally:
        if recorder.poll() is None:
            recorder.kill()
            recorder.wait(timeout=30)
    assert recorder.returncode == 0, stderr
    assert time.time() - started < 60
    m = h.load_manifest(out)
    h.validate_manifest(m)
    assert m["encoder"] is None and all(s.get("copied") is True for s in m["segments"]), m["segments"]
    v = subprocess.run([binary, "verify", str(out)], capture_output=True, text=True, timeout=120)
    assert v.returncode == 0, v.stdout + v.stderr
    events = [e for e in m.get("events", []) if e["kind"] == "liveSourceReconnected"]
    assert len(events) == 1, m.get("events")
    assert 0.5 < events[0]["durationSeconds"] < 30, events[0]
    leading = next(i for i, (key, _) in enumerate(packets(b)) if key)
    assert m["frames"]["received"] == len(packets(a)) + len(packets(b)), (m["frames"], m["warnings"])
    assert m["frames"]["droppedReasons"] == ({"beforeKeyframe": leading} if leading else {}), (m["frames"], m["warnings"])
    assert m["frames"]["written"] == m["frames"]["received"] - leading
    for s in m["segments"]:
        path = out / s["file"]
        assert packets(path)[0][0], f"{s['file']} does not start with a keyframe"
        # Every picture and sound packet decodes, with no error.
        decoded = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"], capture_output=True, text=True, timeout=60)
        assert decoded.returncode == 0 and not decoded.stderr.strip(), (s["file"], decoded.stderr)
    kept = [segment_units(out / s["file"]) for s in m["segments"]]
    if audio != "aac":
        return m, events[0], kept, [source_units(a), source_units(b)], None, None
    sound = [audio_hashes(out / s["file"]) for s in m["segments"]]
    return m, events[0], kept, [source_units(a), source_units(b)], sound, [audio_hashes(a), audio_hashes(b)]


@pytest.mark.parametrize("scheme", ["udp", "srt"])
def test_copy_of_a_live_sender_restarted_at_a_new_size_reconnects_into_a_new_file(binary, tmp_path, scheme):
    m, event, kept, sent, sound, sent_sound = copy_across_a_restart(binary, tmp_path, scheme, "640x360")
    frames = PART_SECONDS * RATE
    got = [(s["width"], s["height"], s["frameCount"], s["startReason"]) for s in m["segments"]]
    assert got == [(320, 240, frames, "recordingStarted"), (640, 360, frames, "dimensionsChanged")], (got, m["warnings"])
    # Byte-identical, split at the new sender's first keyframe.
    assert kept == sent
    # The new connection's first frame starts the second file, after the outage on the
    # session clock (its timestamps back at the start are placed after the first file's).
    assert event["frameIndex"] == m["segments"][1]["firstFrameIndex"] == frames
    assert event["sessionTime"] == m["segments"][1]["sessionStart"] == m["segments"][0]["sessionEnd"]
    assert m["segments"][1]["sessionStartSeconds"] > m["segments"][0]["sessionStartSeconds"] + PART_SECONDS + 0.5
    # Each file's copied sound is a run of its own sender's packets, byte for byte.
    for part, whole in zip(sound, sent_sound):
        assert len(part) >= 80 and runs_in_order([part], whole) is not None, (len(part), len(whole))


# RTMP (FLV): the parameter sets travel only out of band, in the sequence header the file's
# sample description is made from.
@pytest.mark.parametrize("scheme", ["udp", "srt", "rtmp"])
def test_copy_of_a_live_sender_restarted_at_the_same_size_goes_on_in_the_same_file(binary, tmp_path, scheme):
    # The same encoder settings give the same parameter sets: the file's sample description
    # describes the new sender's packets too, so the copy goes on in the open file.
    m, event, kept, sent, sound, sent_sound = copy_across_a_restart(binary, tmp_path, scheme, "320x240")
    frames = PART_SECONDS * RATE
    assert [(s["width"], s["height"], s["frameCount"]) for s in m["segments"]] == [(320, 240, 2 * frames)], m["warnings"]
    assert kept == [sent[0] + sent[1]]
    assert event["frameIndex"] == frames
    assert m["segments"][0]["sessionStartSeconds"] + PART_SECONDS + 0.5 < event["sessionTime"]["value"] / 1e9 < m["segments"][0]["sessionEndSeconds"]
    # Both senders' sound, in order (the second's from its first picture on).
    assert runs_in_order([sent_sound[0][-40:], sent_sound[1][10:50]], sound[0]) is not None, "the sound of both senders is not in the file"
    assert len(sound[0]) >= len(sent_sound[0]) + len(sent_sound[1]) - 20, (len(sound[0]), len(sent_sound[0]), len(sent_sound[1]))
    # The outage lasts whole frames: the packets stay on the 30 fps grid, so the rate FFmpeg
    # guesses from the timestamps (and decodes at) is still the sender's.
    rate = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0",
                  str(tmp_path / "out" / m["segments"][0]["file"])]).stdout.strip()
    assert rate == "30/1", rate


@pytest.mark.parametrize("scheme", ["udp", "rtmp"])
def test_copy_of_a_live_sender_restarted_at_the_same_size_with_other_parameter_sets_starts_a_new_file(binary, tmp_path, scheme):
    # Another profile: other parameter sets, which the open file's sample description does not
    # hold; the new sender's first keyframe starts a new file (startReason streamParametersChanged).
    m, event, kept, sent, sound, sent_sound = copy_across_a_restart(binary, tmp_path, scheme, "320x240", ["-profile:v", "baseline"])
    frames = PART_SECONDS * RATE
    got = [(s["width"], s["height"], s["frameCount"], s["startReason"]) for s in m["segments"]]
    assert got == [(320, 240, frames, "recordingStarted"), (320, 240, frames, "streamParametersChanged")], (got, m["warnings"])
    assert kept == sent
    assert event["sessionTime"] == m["segments"][1]["sessionStart"]
    for part, whole in zip(sound, sent_sound):
        assert len(part) >= 80 and runs_in_order([part], whole) is not None, (len(part), len(whole))


def test_copy_of_a_live_sender_with_sound_mp4_does_not_take_re_encodes_it_across_the_restart(binary, tmp_path):
    # MP2 (MPEG-TS's default) is decoded and encoded to AAC: the new connection's sound is
    # placed by the pictures' offset, the outage silence, and each file has its sound.
    m, event, kept, sent, _, _ = copy_across_a_restart(binary, tmp_path, "udp", "640x360", audio="mp2")
    assert [(s["width"], s["startReason"]) for s in m["segments"]] == [(320, "recordingStarted"), (640, "dimensionsChanged")]
    assert kept == sent
    assert event["sessionTime"] == m["segments"][1]["sessionStart"]
    for s in m["segments"]:
        probed = h.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,duration", "-of", "csv=p=0",
                        str(tmp_path / "out" / s["file"])]).stdout.strip().split(",")
        assert probed[0] == "aac" and s["audio"]["codec"] == "aac" and float(probed[1]) >= PART_SECONDS - 0.1, (s["file"], probed)


def test_copy_of_a_live_sender_restarted_inside_a_gop_starts_its_file_at_its_first_keyframe(binary, tmp_path):
    # The new sender's pictures before its first keyframe cannot start a file: dropped
    # beforeKeyframe (counted, as at the start); the second file begins at that keyframe.
    m, event, kept, sent, sound, sent_sound = copy_across_a_restart(binary, tmp_path, "udp", "640x360", mid_gop=True)
    leading = next(i for i, (key, _) in enumerate(packets(tmp_path / "b.ts")) if key)
    if leading == 0:
        pytest.skip("ffmpeg's cut started at a keyframe")
    assert [(s["width"], s["startReason"]) for s in m["segments"]] == [(320, "recordingStarted"), (640, "dimensionsChanged")]
    assert m["segments"][1]["frameCount"] == len(packets(tmp_path / "b.ts")) - leading
    assert kept[0] == sent[0] and kept[1] == sent[1][-len(kept[1]):], "the second file is not the new sender's stream from its first keyframe on"
    # The event is the new connection's first frame written (its keyframe), after the dropped ones' indexes.
    assert event["frameIndex"] == m["segments"][1]["firstFrameIndex"] == 2 * PART_SECONDS * RATE // 2 + leading
    assert event["sessionTime"] == m["segments"][1]["sessionStart"]
