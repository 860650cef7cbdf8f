"""Issue 42, item 4: a pipe that keeps a change of picture size. YUV4MPEG2 has one header,
one size (ffmpeg scales every later picture to it), so the documented pipe for a source whose
size changes is MPEG-TS into a named pipe: each writer's stream (a restarted encoder, a camera
switched to another mode) arrives with its own size, and segrec starts a new segment at the
first picture of the new size, the sound with it (Docs/footage.md, "Pipes that change size").
Read back with ffprobe."""
import os
import subprocess

import e2e_helpers as h


def test_mpegts_into_a_named_pipe_keeps_a_size_change_and_its_sound(binary, tmp_path):
    fifo = tmp_path / "cam.fifo"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    proc = subprocess.Popen([binary, "record", "--source", str(fifo), "--output", str(out), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with open(fifo, "wb") as pipe:
        for size in ("320x240", "640x360"):
            r = subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=s={size}:r=30:d=2", "-f", "lavfi",
                                "-i", "sine=f=440:r=48000:d=2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                                "-f", "mpegts", "-"], stdout=pipe, stderr=subprocess.PIPE, timeout=60)
            assert r.returncode == 0, r.stderr
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    m = h.load_manifest(out)
    got = []
    for s in m["segments"]:
        probed = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                        "stream=width,height,nb_read_frames", "-of", "csv=p=0", str(out / s["file"])]).stdout.strip()
        audio = h.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name",
                       "-of", "csv=p=0", str(out / s["file"])]).stdout.strip()
        got.append((probed, audio))
    assert got == [("320,240,60", "aac"), ("640,360,60", "aac")], got
    assert m["segments"][1]["startReason"] == "dimensionsChanged"
    assert m["frames"]["written"] == 120 and not m["frames"].get("corruptPackets"), m["frames"]
    assert subprocess.run([binary, "verify", str(out)], capture_output=True, timeout=60).returncode == 0
