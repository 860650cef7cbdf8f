"""Footage whose pictures stay in the decoder's buffers on their way to the encoder (issue 28:
no copy from libavcodec's frame to x264): the pixels must arrive exactly as decoded. Each
input is recorded losslessly (`--crf 0`, x264's lossless mode) and ffmpeg's `framemd5` of
every picture in the segment must equal ffmpeg's own decode of the input (cropped to even
dimensions where the input is odd, converted losslessly to yuv420p where it is NV12):
yuv420p Y4M (the demuxer's packet referenced as the frame), an odd size, raw NV12, and
H.264 with B-frames and a long GOP (the decoder's pooled reference pictures, which it
keeps reading while segrec holds them)."""
import pytest

import e2e_helpers as h


def md5s(args):
    out = h.run(["ffmpeg", "-v", "error"] + args + ["-f", "framemd5", "-"])
    assert out.returncode == 0, out.stderr[-400:]
    return [line.split(",")[-1].strip() for line in out.stdout.splitlines() if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("zero-copy")


def make(work, name, args):
    path = work / name
    made = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=353x289:rate=30", "-frames:v", "40"] + args + [path])
    assert made.returncode == 0, made.stderr[-400:]
    return path


INPUTS = {
    # name: (ffmpeg encode args, segrec source args, ffmpeg reference decode args)
    "odd-yuv420p.y4m": (["-pix_fmt", "yuv420p"], [], ["-vf", "crop=352:288:0:0"]),
    "even-yuv420p.y4m": (["-vf", "crop=352:288:0:0", "-pix_fmt", "yuv420p"], [], []),
    "raw.nv12": (["-vf", "crop=352:288:0:0", "-pix_fmt", "nv12", "-f", "rawvideo"],
                 ["--video-size", "352x288", "--pixel-format", "nv12", "--framerate", "30"], []),
    "bframes.mp4": (["-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-refs", "4", "-g", "250", "-pix_fmt", "yuv420p"],
                    [], ["-vf", "crop=352:288:0:0"]),
}
RAW_INPUT = {"raw.nv12": ["-f", "rawvideo", "-pix_fmt", "nv12", "-s", "352x288", "-r", "30"]}


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("in_flight", ["1", "6"])
def test_lossless_recording_of_decoded_pictures_is_pixel_exact(binary, work, name, in_flight):
    make_args, source_args, reference_args = INPUTS[name]
    path = work / name
    if not path.exists():
        make(work, name, make_args)
    out = work / f"rec-{name}-{in_flight}"
    rec = h.run([binary, "record", "--source", path, *source_args, "--output", out, "--crf", "0", "--preset", "ultrafast",
                 "--frames-in-flight", in_flight, "--force", "--quiet"])
    assert rec.returncode == 0, (rec.stdout + rec.stderr)[-600:]
    m = h.load_manifest(out)
    assert [s["frameCount"] for s in m["segments"]] == [40] and (m["segments"][0]["width"], m["segments"][0]["height"]) == (352, 288), m["segments"]
    expected = md5s(RAW_INPUT.get(name, []) + ["-i", str(path)] + reference_args + ["-pix_fmt", "yuv420p"])
    got = md5s(["-i", str(out / "segment-000.mp4"), "-pix_fmt", "yuv420p"])
    assert len(expected) == 40 and len(got) == 40, (len(expected), len(got))
    wrong = [i for i, (a, b) in enumerate(zip(expected, got)) if a != b]
    assert not wrong, f"pictures {wrong[:10]} differ from ffmpeg's decode of {name}"
    verify = h.run([binary, "verify", out])
    assert verify.returncode == 0, verify.stdout[-400:]
