"""Raw frame streams read by segrec's own reader (issue 45): YUV4MPEG2 and headerless raw video,
from a file and from standard input, read straight into pooled pictures. Each input is recorded
losslessly (`--crf 0`, x264's lossless mode) and ffmpeg's `framemd5` of every picture in the
segment must equal ffmpeg's own decoding of the source, taken through the conversion segrec
makes (cropped to an even size, libswscale bicubic + accurate rounding + full chroma input to
NV12): the pixels arrive bit for bit whatever the format. Gray keeps its luma (compared alone:
its chroma is neutral). Also: frame times are the frame index / rate, FRAME lines with
parameters, and a header with an absurd size refused with exit 65 naming the file and field."""
import os
import subprocess
import threading

import pytest

import e2e_helpers as h

SWS = "scale=flags=bicubic+accurate_rnd+full_chroma_inp"


def md5s(args):
    out = h.run(["ffmpeg", "-v", "error"] + args + ["-f", "framemd5", "-"])
    assert out.returncode == 0, out.stderr[-400:]
    return [line.split(",")[-1].strip() for line in out.stdout.splitlines() if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("raw-reader")


def frame_times(path):
    """Every frame's presentation time in frame periods at 30 fps (rounded to 1/1000), by ffprobe."""
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", str(path)])
    assert out.returncode == 0, out.stderr[-300:]
    return [round(float(t.strip(",")) * 30, 3) for t in out.stdout.split() if t.strip(",")]


def make(work, name, size, fmt, frames=12, container=None):
    """testsrc2 through RGB, so that odd sizes stay odd in 4:2:0 (testsrc2 rounds them down itself)."""
    path = work / name
    if not path.exists():
        args = ["-f", "rawvideo"] if container == "raw" else []
        made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30,format=rgb24", "-frames:v", str(frames),
                      "-pix_fmt", fmt, "-strict", "-1", *args, path])
        assert made.returncode == 0, made.stderr[-400:]
    return path


# name: (size, pixel format, container)
CASES = {
    "yuv420p-352x288.y4m": ("352x288", "yuv420p", "y4m"),
    "yuv420p-353x289.y4m": ("353x289", "yuv420p", "y4m"),
    "yuv422p-352x288.y4m": ("352x288", "yuv422p", "y4m"),
    "yuv444p-66x50.y4m": ("66x50", "yuv444p", "y4m"),
    "yuv420p10le-354x290.y4m": ("354x290", "yuv420p10le", "y4m"),  # (an odd size: FFmpeg's muxer and demuxer disagree)
    "yuv444p12le-64x48.y4m": ("64x48", "yuv444p12le", "y4m"),
    "gray-353x289.y4m": ("353x289", "gray", "y4m"),
    "yuv422p-67x35.y4m": ("67x35", "yuv422p", "y4m"),
    "nv12-352x288.yuv": ("352x288", "nv12", "raw"),
    "yuv420p-352x288.yuv": ("352x288", "yuv420p", "raw"),
    "yuv420p-65x49.yuv": ("65x49", "yuv420p", "raw"),
    "yuyv422-352x288.yuv": ("352x288", "yuyv422", "raw"),
    "yuv444p-130x66.yuv": ("130x66", "yuv444p", "raw"),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_lossless_recording_of_a_raw_frame_stream_equals_ffmpegs_decoding(binary, work, name, stdin):
    size, fmt, container = CASES[name]
    path = make(work, name, size, fmt, container=container)
    w, hh = map(int, size.split("x"))
    raw_args = ["--video-size", size, "--pixel-format", fmt, "--framerate", "30"] if container == "raw" else []
    out = work / f"rec-{name}-{stdin}"
    source = ["--source", "-"] if stdin else ["--source", path]
    with open(path, "rb") as data:
        rec = subprocess.run([binary, "record", *source, *raw_args, "--output", out, "--crf", "0", "--preset", "ultrafast", "--force",
                              "--quiet"], stdin=data if stdin else subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert rec.returncode == 0, (rec.stdout + rec.stderr)[-600:]
    m = h.load_manifest(out)
    assert [(s["width"], s["height"], s["frameCount"]) for s in m["segments"]] == [(w & ~1, hh & ~1, 12)], m["segments"]
    ffmpeg_input = (["-f", "rawvideo", "-pix_fmt", fmt, "-s", size, "-r", "30"] if container == "raw" else []) + ["-i", str(path)]
    chain = f"crop={w & ~1}:{hh & ~1}:0:0,{SWS}" + (":in_range=pc:out_range=tv" if fmt == "gray" else "") + ",format=nv12,format=yuv420p"
    expected = md5s(ffmpeg_input + ["-vf", chain + (",extractplanes=y" if fmt == "gray" else "")])
    # (the gray segment is tagged full range: a format filter would convert its range)
    got = md5s(["-i", str(out / "segment-000.mp4"), "-vf", "extractplanes=y" if fmt == "gray" else "format=yuv420p"])
    assert len(expected) == 12 and len(got) == 12, (len(expected), len(got))
    wrong = [i for i, (a, b) in enumerate(zip(expected, got)) if a != b]
    assert not wrong, f"pictures {wrong[:10]} differ from ffmpeg's decoding of {name}"
    times = frame_times(out / "segment-000.mp4")
    assert times == list(range(12)), times


def test_frame_lines_with_parameters_keep_every_picture_at_its_index(binary, work):
    base = make(work, "params-base.y4m", "96x64", "yuv420p", frames=20)
    head, rest = base.read_bytes().split(b"\n", 1)
    path = work / "params.y4m"
    path.write_bytes(head + b"\n" + rest.replace(b"FRAME\n", b"FRAME Ip A1:1 XFOO=bar\n"))
    out = work / "rec-params"
    rec = h.run([binary, "record", "--source", path, "--output", out, "--crf", "0", "--preset", "ultrafast", "--force", "--quiet"])
    assert rec.returncode == 0, rec.stderr[-400:]
    assert md5s(["-i", str(out / "segment-000.mp4"), "-pix_fmt", "yuv420p"]) == md5s(["-i", str(base)])
    times = frame_times(out / "segment-000.mp4")
    assert times == list(range(20)), times


@pytest.mark.parametrize("header,field,expected", [
    (b"YUV4MPEG2 W100000 H100000 F30:1\n", "YUV4MPEG2 header W, H", "allowed: width and height 1"),
    (b"YUV4MPEG2 W16385 H16 F30:1\n", "YUV4MPEG2 header W, H", "allowed: width and height 1\u201316384"),
    (b"YUV4MPEG2 W0 H10 F30:1 C420jpeg\n", "YUV4MPEG2 header W, H", "Picture size 0x10 is invalid"),
    (b"YUV4MPEG2 W64 H48 Cxyz\n", "YUV4MPEG2 header", "allowed: C420jpeg"),
    (b"YUV4MPEG2 W64 H48 Im\n", "YUV4MPEG2 header", "allowed: Ip, It, Ib, I?"),
    (b"YUV4MPEG2 W64 " + b"X" * 100 + b"\n", "YUV4MPEG2 header", "at most 96 bytes"),
])
def test_a_header_segrec_cannot_read_exits_65_naming_file_field_and_what_is_allowed(binary, work, header, field, expected):
    path = work / "bad.y4m"
    path.write_bytes(header + b"FRAME\n" + bytes(1000))
    out = work / "rec-bad"
    rec = h.run([binary, "record", "--source", path, "--output", out, "--force"])
    assert rec.returncode == 65 and f"{path}: {field}: " in rec.stderr and expected in rec.stderr and not out.exists(), rec.stderr[-400:]


@pytest.mark.parametrize("kind", ["y4m", "mkv"])
def test_a_named_pipe_is_probed_by_its_first_bytes_and_loses_none(binary, work, kind):
    """YUV4MPEG2 in a named pipe is read by segrec's reader; anything else goes on to libavformat
    through the same descriptor with the bytes already looked at: every picture arrives."""
    source = make(work, "pipe-src.y4m", "96x64", "yuv420p", frames=20)
    if kind == "mkv":
        mkv = work / "pipe-src.mkv"
        made = h.run(["ffmpeg", "-v", "error", "-y", "-i", source, "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast", mkv])
        assert made.returncode == 0, made.stderr[-300:]
        source = mkv
    fifo = work / f"in-{kind}.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(source.read_bytes()))
    writer.start()
    out = work / f"rec-pipe-{kind}"
    rec = h.run([binary, "record", "--source", fifo, "--output", out, "--crf", "0", "--preset", "ultrafast", "--force", "--quiet"])
    writer.join(timeout=30)
    assert rec.returncode == 0, rec.stderr[-400:]
    assert md5s(["-i", str(out / "segment-000.mp4"), "-pix_fmt", "yuv420p"]) == md5s(["-i", str(source), "-pix_fmt", "yuv420p"])
