"""Footage faults from ../shared/cases/ and their kind, end to end with the release binary,
read back with ffprobe (and mediainfo where it says something): damage is gone past and
counted, HLS size changes split, attached pictures are refused, conversions are named,
names with a colon work, truncated Y4M/raw say what was left over, and a sweep of tiny
sizes x pixel formats (Y4M, raw RGB, MKV, MP4, IVF) under MALLOC_CHECK_=3 ends in the
right result or a clean exit 65, never an abort or a hang."""
import concurrent.futures
import json
import os
import signal
import subprocess
import time

import pytest

import e2e_helpers as h

needs_cases = pytest.mark.skipif(not h.CASES.exists(), reason="input cases: ../shared/cases/ not found")

# glibc >= 2.34 honours MALLOC_CHECK_ only with its debugging malloc preloaded.
MALLOC_ENV = dict(os.environ, MALLOC_CHECK_="3")
DEBUG_MALLOC = [p for p in ("/lib/x86_64-linux-gnu/libc_malloc_debug.so.0", "/lib/aarch64-linux-gnu/libc_malloc_debug.so.0",
                            "/usr/lib64/libc_malloc_debug.so.0") if os.path.exists(p)]
if DEBUG_MALLOC:
    MALLOC_ENV["LD_PRELOAD"] = DEBUG_MALLOC[0]


class Inputs:
    def __init__(self, binary, work):
        self.binary, self.work, self.done = binary, work, {}

    def record(self, source, name, *extra, env=None, timeout=60):
        out = self.work / name
        proc = subprocess.run([self.binary, "record", "--source", str(source), "--output", str(out), "--force",
                               "--json", "--preset", "ultrafast", *map(str, extra)],
                              capture_output=True, text=True, env=env, timeout=timeout)
        return proc, out, h.manifest_from_stdout(proc.stdout)

    def once(self, name, make):
        """`make()` run once per module under `name` (a recording shared by several tests)."""
        if name not in self.done:
            self.done[name] = make()
        return self.done[name]


@pytest.fixture(scope="module")
def inputs(binary, tmp_path_factory):
    return Inputs(binary, tmp_path_factory.mktemp("input-cases"))


def probe_count(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                 "stream=width,height,nb_read_frames", "-of", "json", path])
    s = json.loads(out.stdout or "{}").get("streams", [{}])[0]
    return s.get("width"), s.get("height"), int(s.get("nb_read_frames", -1))


def sizes(m):
    return [(s["width"], s["height"], s["frameCount"]) for s in (m or {}).get("segments", [])]


# ---- damage: a TS with lost packets, an HLS playlist whose size changes after damage ----
DAMAGED_CASES = {"p01_ts_3_packets_lost.ts": [(320, 240, 150)],
                 "p15_hls/mixed.m3u8": [(240, 136, 60), (320, 180, 60)]}


def damaged_case(inputs, name):
    return inputs.once(name, lambda: inputs.record(h.CASES / name, name.replace("/", "_")))


@needs_cases
@pytest.mark.parametrize("name", list(DAMAGED_CASES))
def test_case_exit_0_every_frame_ffmpeg_decodes(inputs, name):
    proc, _, m = damaged_case(inputs, name)
    assert proc.returncode == 0 and sizes(m) == DAMAGED_CASES[name], f"exit {proc.returncode}, {sizes(m)}: {proc.stderr[-300:]}"


@needs_cases
@pytest.mark.parametrize("name", list(DAMAGED_CASES))
def test_case_corrupt_packets_counted_one_damage_warning(inputs, name):
    _, _, m = damaged_case(inputs, name)
    assert m, "no manifest"
    assert (m["frames"].get("corruptPackets") or 0) >= 1 and sum("input damaged" in w for w in m["warnings"]) == 1, \
        f"{m['frames']} {m['warnings']}"


@needs_cases
@pytest.mark.parametrize("name", list(DAMAGED_CASES))
def test_case_ffprobe_reads_the_segments_back(inputs, name):
    _, out, m = damaged_case(inputs, name)
    assert m, "no manifest"
    probed = [probe_count(out / s["file"]) for s in m["segments"]]
    assert probed == DAMAGED_CASES[name]


# ---- other damage points of the same kind: zeroed and removed bytes at 30 %, 60 %, 85 % ----
TS_DAMAGE = [(f, how) for f in (0.3, 0.6, 0.85) for how in ("zeroed", "cut")]


def ts_damage(inputs, fraction, how):
    def make():
        data = (h.CASES / "p01_ts_3_packets_lost.ts").read_bytes()
        at = int(len(data) * fraction) // 188 * 188 + 50
        path = inputs.work / f"p01_{how}_{int(fraction * 100)}.ts"
        path.write_bytes(data[:at] + (bytes(188 * 4) if how == "zeroed" else b"") + data[at + 188 * 4:])
        _, _, reference = probe_count(path)
        return (reference, *inputs.record(path, path.stem))
    return inputs.once(f"ts-{how}-{fraction}", make)


ts_cases = pytest.mark.parametrize("fraction,how", TS_DAMAGE, ids=[f"4-packets-{how}-at-{int(f * 100)}pc" for f, how in TS_DAMAGE])


@needs_cases
@ts_cases
def test_ts_damage_exit_0_keeps_the_frames_ffprobe_decodes(inputs, fraction, how):
    reference, proc, _, m = ts_damage(inputs, fraction, how)
    written = (m or {}).get("frames", {}).get("written", -1)
    assert proc.returncode == 0 and written == reference, \
        f"exit {proc.returncode}, written {written} of {reference}: {proc.stderr[-300:]}"


@needs_cases
@ts_cases
def test_ts_damage_segment_decodes_to_the_written_frames(inputs, fraction, how):
    _, _, out, m = ts_damage(inputs, fraction, how)
    assert m and m["segments"], "no segment"
    assert probe_count(out / m["segments"][0]["file"])[2] == m["frames"]["written"]


# ---- MP4 and MKV with one damaged packet (bytes inside a frame overwritten) ----
@needs_cases
@pytest.mark.parametrize("container", ["mkv", "mp4"])
def test_container_with_a_damaged_packet_exit_0_frames_as_ffprobe(inputs, container):
    source = inputs.work / "clean.mkv"
    inputs.once("clean.mkv", lambda: h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30",
                                            "-frames:v", "60", "-c:v", "libx264", "-preset", "ultrafast", "-g", "15", source]))
    clean = inputs.work / f"clean2.{container}"
    h.run(["ffmpeg", "-v", "error", "-y", "-i", source, "-c", "copy", clean])
    raw = bytearray(clean.read_bytes())
    mid = len(raw) // 2
    raw[mid:mid + 400] = bytes(400)
    path = inputs.work / f"damaged.{container}"
    path.write_bytes(bytes(raw))
    _, _, reference = probe_count(path)
    proc, _, m = inputs.record(path, f"damaged_{container}")
    written = (m or {}).get("frames", {}).get("written", -1)
    assert proc.returncode == 0 and written == reference, \
        f"exit {proc.returncode}, written {written} of {reference}: {proc.stderr[-300:]}"


# ---- attached picture, alpha, interlace, pixel-format changes ----
@needs_cases
def test_case_p13_mp3_with_cover_exit_65_no_video_stream_names_the_attached_picture(inputs):
    proc, _, _ = inputs.record(h.CASES / "p13_audio_with_cover.mp3", "p13")
    assert proc.returncode == 65 and "attached picture" in proc.stderr, f"exit {proc.returncode}: {proc.stderr[-300:]}"


def p12(inputs):
    return inputs.once("p12", lambda: inputs.record(h.CASES / "p12_rgba_png_160x120.mkv", "p12"))


@needs_cases
def test_case_p12_rgba_10_frames_alpha_warning(inputs):
    proc, _, m = p12(inputs)
    assert proc.returncode == 0 and sizes(m) == [(160, 120, 10)] and any("alpha" in w for w in (m or {}).get("warnings", [])), \
        f"{sizes(m)} {(m or {}).get('warnings')}"


@needs_cases
def test_case_p12_the_transparent_half_is_black_not_the_hidden_red(inputs):
    _, out, m = p12(inputs)
    assert m and m["segments"], "no segment"
    pix = subprocess.run(["ffmpeg", "-v", "error", "-i", str(out / m["segments"][0]["file"]), "-frames:v", "1",
                          "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"], capture_output=True).stdout
    left_luma = [pix[y * 160 + x] for y in range(8, 112, 8) for x in range(4, 72, 8)]
    left_cr = [pix[160 * 120 + 80 * 60 + y * 80 + x] for y in range(4, 56, 4) for x in range(2, 36, 4)]
    assert max(left_luma) <= 24 and all(abs(c - 128) <= 8 for c in left_cr), f"Y {max(left_luma)}, Cr {left_cr[:6]}"


@needs_cases
def test_case04_90_frames_yuv444p_and_yuv420p10le_conversions_named_in_notes(inputs):
    proc, out, m = inputs.record(h.CASES / "case04_h264_420_to_444_to_420p10.ts", "case04")
    notes = " | ".join((m or {}).get("notes", []))
    assert sizes(m) == [(320, 240, 90)] and "yuv444p" in notes and "yuv420p10le" in notes \
        and "10 to 8 bits" in notes and "bicubic" in notes, notes[:400]


def p10(inputs):
    return inputs.once("p10", lambda: inputs.record(h.CASES / "p10_interlaced_tff_720x480.ts", "p10"))


@needs_cases
def test_case_p10_interlaced_30_frames_a_note_says_the_field_order_is_kept(inputs):
    _, _, m = p10(inputs)
    notes = " | ".join((m or {}).get("notes", []))
    assert sizes(m) == [(720, 480, 30)] and "field order top field first kept" in notes, notes[:400]


@needs_cases
def test_case_p10_the_segment_is_interlaced_top_field_first(inputs):
    """ffprobe tt, mediainfo TFF."""
    _, out, m = p10(inputs)
    assert m and m["segments"], "no segment"
    path = out / m["segments"][0]["file"]
    order = h.run(["ffprobe", "-v", "error", "-show_entries", "stream=field_order", "-of", "csv=p=0", path]).stdout.strip()
    scan = h.run(["mediainfo", "--Inform=Video;%ScanType%/%ScanOrder%", path]).stdout.strip()
    assert order == "tt" and scan in ("MBAFF/TFF", "Interlaced/TFF"), f"ffprobe {order!r}, mediainfo {scan!r}"


@needs_cases
def test_case_fuzz_2x48_yuv444p_5_frames_no_abort(inputs):
    proc, _, m = inputs.record(h.CASES / "fuzz_crash_2x48_yuv444p.y4m", "fuzz", env=MALLOC_ENV)
    assert proc.returncode == 0 and sizes(m) == [(2, 48, 5)], f"exit {proc.returncode}, {sizes(m)}: {proc.stderr[-200:]}"


# ---- names: a relative name with a colon, and the file: prefix FFmpeg suggests ----
@pytest.mark.parametrize("prefix", ["", "file:"], ids=["plain", "file-prefix"])
def test_input_named_with_a_colon_recorded_12_frames(inputs, binary, prefix):
    clip = inputs.work / "cam1:2024-05-01.ivf"
    inputs.once("colon-clip", lambda: h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=30",
                                             "-frames:v", "12", "-c:v", "libvpx", clip]))
    given = prefix + clip.name
    proc = subprocess.run([binary, "record", "--source", given, "--output", str(inputs.work / f"named{prefix[:-1]}"),
                           "--force", "--json"], capture_output=True, text=True, cwd=inputs.work)
    m = h.manifest_from_stdout(proc.stdout) if proc.returncode == 0 else None
    assert sizes(m) == [(64, 48, 12)], f"{given!r}: exit {proc.returncode}: {proc.stderr[-200:]}"


# ---- truncated YUV4MPEG2 (file and stdin) and raw video: whole frames kept, bytes left over named, exit 65 ----
def ten_y4m(inputs):
    whole = inputs.work / "ten.y4m"
    inputs.once("ten.y4m", lambda: h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25",
                                          "-frames:v", "10", "-pix_fmt", "yuv420p", whole]))
    return whole.read_bytes()


def test_truncated_y4m_9_whole_frames_kept_3614_bytes_left_over_exit_65(inputs):
    cut = inputs.work / "cut.y4m"
    cut.write_bytes(ten_y4m(inputs)[:-1000])
    proc, _, m = inputs.record(cut, "cut_y4m")
    assert proc.returncode == 65 and sizes(m) == [(64, 48, 9)] and (m or {}).get("stopReason") == "error" \
        and "3614 bytes left over" in proc.stderr, f"exit {proc.returncode}, {sizes(m)}: {proc.stderr[-300:]}"


def test_truncated_y4m_on_stdin_exit_65_naming_the_bytes_left_over(inputs, binary):
    proc = subprocess.run([binary, "record", "--source", "-", "--output", str(inputs.work / "cut_stdin"), "--force", "--json"],
                          input=ten_y4m(inputs)[:-1000], capture_output=True)
    assert proc.returncode == 65 and b"3614 bytes left over" in proc.stderr, proc.stderr[-300:].decode(errors="replace")


def test_raw_video_not_a_whole_number_of_frames_7_kept_100_bytes_left_over_exit_65(inputs):
    rawfile = inputs.work / "cut.yuv"
    rawfile.write_bytes(bytes(64 * 48 * 3 // 2 * 7 + 100))
    proc, _, m = inputs.record(rawfile, "cut_raw", "--video-size", "64x48")
    assert proc.returncode == 65 and sizes(m) == [(64, 48, 7)] and "100 bytes left over" in proc.stderr, \
        f"exit {proc.returncode}, {sizes(m)}: {proc.stderr[-300:]}"


def test_named_pipe_left_open_without_data_sigterm_ends_the_recording_stop_reason_requested(inputs, binary):
    """A blocked read on a named pipe ends on SIGTERM, keeping what arrived."""
    data = ten_y4m(inputs)
    fifo = inputs.work / "live.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen([binary, "record", "--source", str(fifo), "--output", str(inputs.work / "fifo"), "--force",
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writer = open(fifo, "wb")
    try:
        writer.write(data[:len(data) * 5 // 10])  # header and 4 whole frames, then silence
        writer.flush()
        time.sleep(1.5)
        proc.send_signal(signal.SIGTERM)
        try:
            stdout, stderr = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            pytest.fail("still running 10 s after SIGTERM")
        m = h.manifest_from_stdout(stdout.decode()) or {}
        assert proc.returncode == 0 and m.get("stopReason") == "requested" and 1 <= m["frames"]["written"] <= 4, \
            f"exit {proc.returncode}, {m.get('frames')}: {stderr[-300:]}"
    finally:
        writer.close()


# ---- memory safety sweep: tiny sizes x pixel formats, under glibc's MALLOC_CHECK_=3, with a timeout ----
PLANES = {"gray": ("mono", 0, 0, 1), "yuv420p": ("420jpeg", 1, 1, 1), "yuv422p": ("422", 1, 0, 1),
          "yuv444p": ("444", 0, 0, 1), "yuv420p10le": ("420p10", 1, 1, 2)}
SWEEP = [(w, hh, fmt, "y4m") for fmt in ["gray", "yuv420p", "yuv422p", "yuv444p", "yuv420p10le", "rgb24"]
         for w in range(1, 9) for hh in (1, 3, 48, 100)
         if fmt != "rgb24" or (w >= 2 and hh >= 2)]  # raw sizes under 2x2 are usage errors (64)
SWEEP += [(w, hh, fmt, c) for c in ("mkv", "mp4", "ivf") for fmt in ("yuv444p", "yuv422p", "gray")
          for w, hh in ((2, 48), (2, 100), (3, 7), (4, 2))]


def test_tiny_size_sweep_under_malloc_check_right_frames_or_clean_exit_65_no_abort_no_hang(inputs):
    # 140-odd inputs: 1..8 x 1..100, 6 pixel formats as Y4M / raw RGB, and MKV/MP4/IVF; with
    # libc_malloc_debug preloaded where glibc has it.
    work = inputs.work

    def make_input(w, hh, fmt, n=3):
        if fmt == "rgb24":
            path = work / f"sweep_{w}x{hh}_{fmt}.yuv"
            path.write_bytes(bytes((i * 37) % 256 for i in range(w * hh * 3 * n)))
            return path, ["--video-size", f"{w}x{hh}", "--pixel-format", "rgb24"]
        tag, sw, sh, bps = PLANES[fmt]
        cw, ch = -(-w // (1 << sw)), -(-hh // (1 << sh))
        chroma = 0 if fmt == "gray" else 2 * cw * ch
        frame = bytes((x * 7) % 200 + 16 for x in range(w * hh)) + bytes([128]) * chroma
        if bps == 2:
            frame = b"".join(bytes([v * 4 % 256, v * 4 // 256]) for v in frame)
        path = work / f"sweep_{w}x{hh}_{fmt}.y4m"
        path.write_bytes(f"YUV4MPEG2 W{w} H{hh} F30:1 Ip A1:1 C{tag}\n".encode() + (b"FRAME\n" + frame) * n)
        return path, []

    def sweep_one(item):
        w, hh, fmt, container = item
        if container == "y4m":
            path, extra = make_input(w, hh, fmt)
        else:
            path = work / f"sweep_{w}x{hh}_{fmt}.{container}"
            codec = {"mkv": ["-c:v", "ffv1"], "mp4": ["-c:v", "libx264", "-preset", "ultrafast"],
                     "ivf": ["-c:v", "libvpx-vp9", "-deadline", "realtime"]}[container]
            made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc=size={w}x{hh}:rate=30", "-frames:v",
                          "3", "-pix_fmt", fmt, *codec, path])
            if made.returncode != 0:
                return item, None, "ffmpeg cannot make it"
            extra = []
        try:
            proc, out, m = inputs.record(path, f"sweep_{w}x{hh}_{fmt}_{container}", *extra, env=MALLOC_ENV, timeout=30)
        except subprocess.TimeoutExpired:
            return item, None, "hung (killed after 30 s)"
        return item, proc, m

    bad = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for item, proc, m in pool.map(sweep_one, SWEEP):
            w, hh, fmt, container = item
            if proc is None:
                if m != "ffmpeg cannot make it":
                    bad.append(f"{item}: {m}")
                continue
            if w < 2 or hh < 2:
                if not (proc.returncode == 65 and "too small" in proc.stderr):
                    bad.append(f"{item}: exit {proc.returncode} {proc.stderr[-160:]}")
            elif proc.returncode != 0 or sizes(m) != [(w & ~1, hh & ~1, 3)]:
                bad.append(f"{item}: exit {proc.returncode} {sizes(m)} {proc.stderr[-160:]}")
    assert not bad, "; ".join(bad[:8])


# ---- interlaced pictures at any height; frame rates that leave the session clock ----

def y4m_with_header(work, name, size, frames, replace):
    """A Y4M from ffmpeg's testsrc2 with header fields replaced ({"Ip": "It", ...})."""
    path = work / name
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30", "-frames:v", str(frames),
                  "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"], text=False)
    head, rest = made.stdout.split(b"\n", 1)
    fields = [replace.get(f.decode(), f.decode()) for f in head.split(b" ")]
    fields = [replace.get(f[0] + "*", f) if f[0] == "F" else f for f in fields]
    path.write_bytes(" ".join(fields).encode() + b"\n" + rest)
    return path


@pytest.mark.parametrize("size,interlaced", [("66x34", False), ("66x38", False), ("130x66", False), ("64x36", True), ("320x240", True)])
@pytest.mark.parametrize("order", ["It", "Ib"])
def test_interlaced_input_of_any_height_is_recorded(inputs, size, interlaced, order):
    """x264 encodes interlaced only at heights divisible by 4: other heights are encoded
    progressive (fields woven, said in a note), never an encoder error."""
    source = y4m_with_header(inputs.work, f"interlaced_{size}_{order}.y4m", size, 20, {"Ip": order})
    proc, out, m = inputs.record(source, f"interlaced_{size}_{order}")
    assert proc.returncode == 0, proc.stderr
    w, hh = map(int, size.split("x"))
    assert probe_count(out / "segment-000.mp4") == (w, hh, 20)
    field = json.loads(h.run(["ffprobe", "-v", "error", "-show_entries", "stream=field_order", "-of", "json",
                              out / "segment-000.mp4"]).stdout)["streams"][0].get("field_order")
    if interlaced:
        assert field == ("tt" if order == "It" else "bb")
        scan = h.run(["mediainfo", "--Inform=Video;%ScanType% %ScanOrder%", out / "segment-000.mp4"]).stdout.split()
        assert scan == ["MBAFF", "TFF" if order == "It" else "BFF"], scan
    else:
        assert field in (None, "progressive"), field
        assert any("encoded progressive" in n and f"{hh} lines high" in n for n in m["notes"]), m["notes"]
    assert h.run([inputs.binary, "verify", out]).returncode == 0


@pytest.mark.parametrize("rate", ["1:2147483647", "1:1000000000", "1:4294967295"])
def test_a_frame_rate_beyond_the_session_clock_ends_with_a_named_error(inputs, rate):
    """Frames a manifest could not place (more than 2^62 ns from the start) end the recording
    with exit 65 naming the file and `timestamps`; the segments before stay, the manifest
    reads back in `verify` (which reports the failure) and holds only times in range."""
    source = y4m_with_header(inputs.work, f"rate_{rate.replace(':', '_')}.y4m", "64x48", 12, {"F*": "F" + rate})
    proc, out, m = inputs.record(source, f"rate_{rate.replace(':', '_')}")
    if proc.returncode == 0:  # every frame fits: nothing to refuse
        assert h.run([inputs.binary, "verify", out]).returncode == 0
        return
    assert proc.returncode == 65 and str(source) in proc.stderr and "timestamps" in proc.stderr, proc.stderr
    v = h.run([inputs.binary, "verify", out])
    assert "out of range" not in v.stderr and "the manifest says the recording failed" in v.stdout, v.stdout + v.stderr
    on_disk = h.load_manifest(out)
    for s in on_disk["segments"]:
        assert abs(s["sessionEnd"]["value"]) <= 2**62
        assert probe_count(out / s["file"])[2] == s["frameCount"]
