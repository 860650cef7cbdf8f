"""Two SIGINTs 50 ms apart (issue 44 item 9): the second one exits at once (130) only while
the stop is still finishing files; once every segment file is finished it is ignored, the
manifest's last rewrite is made, the lock released, and the exit is the recording's (0).

A 30-frame YUV4MPEG2 clip is written to `record --source -` and the pipe kept open; 1 s
later SIGINT, 50 ms later SIGINT again, eight times. Each run must end either complete
(exit 0, `stopReason: requested`, the segment decoded by ffprobe to the manifest's frame
count, no lock, no `.partial`) or cut short (exit 130 with a `.partial` still there or no
`stopReason`): never exit 130 with every file finished. The build before exited 130 with
the recording complete in about 1 run in 8 (the second signal landed after the files were
finished, during the manifest's last rewrite), leaving `recording.lock` behind."""
import json
import signal
import subprocess
import time

import e2e_helpers as h


def test_a_second_sigint_after_the_files_are_finished_does_not_fail_the_recording(binary, tmp_path):
    clip = tmp_path / "clip.y4m"
    r = h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30", "-frames:v", "30",
               "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", clip])
    assert r.returncode == 0, r.stderr
    data = clip.read_bytes()
    outcomes = []
    for i in range(8):
        out = tmp_path / f"rec-{i}"
        p = subprocess.Popen([binary, "record", "--source", "-", "--output", str(out)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdin.write(data)
        p.stdin.flush()
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        time.sleep(0.05)
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
        m = json.loads((out / "manifest.json").read_text())
        names = sorted(x.name for x in out.iterdir())
        finished = m["stopReason"] == "requested" and not any(n.endswith(".partial") for n in names)
        outcomes.append((p.returncode, m["stopReason"], names))
        if p.returncode == 130:
            assert not finished, f"run {i}: exit 130 though every file was finished: {names}"
        else:
            assert p.returncode == 0 and finished and "recording.lock" not in names, outcomes[-1]
            h.load_manifest(out)
            assert [h.count_frames(out / s["file"]) for s in m["segments"]] == [s["frameCount"] for s in m["segments"]]
