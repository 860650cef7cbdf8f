"""Issue 44, item 8: `--realtime` paces by the producer's own timestamps. A live producer on
standard input sends 60 frames at 30 fps, pauses 3 s, then 150 more at 30 fps; the
recorder is idle during the pause, so nothing after it is late. On the build before, the
pace ran on a clock started once: 148 of the 150 frames after the pause were dropped
`late`. Every written frame is read back with ffprobe."""
import subprocess
import threading
import time

import e2e_helpers as h


def produce(stdin, width=64, height=48):
    """YUV4MPEG2 in real time: 60 frames, a 3 s pause, 150 frames (frame i is grey level i)."""
    stdin.write(f"YUV4MPEG2 W{width} H{height} F30:1 Ip A1:1 C420jpeg\n".encode())
    start = time.monotonic()
    for i in range(210):
        due = start + i / 30 + (3 if i >= 60 else 0)
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        stdin.write(b"FRAME\n" + bytes([i % 200 + 16]) * (width * height) + bytes([128]) * (width * height // 2))
        stdin.flush()
    stdin.close()


def test_a_producer_that_pauses_loses_nothing_after_the_pause(binary, tmp_path):
    out = tmp_path / "rec"
    proc = subprocess.Popen([binary, "record", "--source", "-", "--realtime", "--preset", "ultrafast", "--output", str(out), "--quiet"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    producer = threading.Thread(target=produce, args=(proc.stdin,))
    producer.start()
    producer.join(timeout=60)
    proc.stdin = None  # closed by the producer
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr.decode()
    m = h.load_manifest(out)
    assert m["frames"]["received"] == 210
    late = m["frames"]["droppedReasons"].get("late", 0)
    # The recorder keeps up with 64x48 at 30 fps: at most a scheduling hiccup's worth late.
    assert late <= 2, m["frames"]
    written = sum(h.count_frames(out / s["file"]) for s in m["segments"])
    assert written == m["frames"]["written"] == 210 - m["frames"]["dropped"]
