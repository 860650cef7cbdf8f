"""Issue 44 item 7 (second half): a report killed or failed before its page leaves its
posters and its HLS export; the next `report` replaces them without --force (they are the
report's own names, and the page is written last), while a finished report still needs
--force to be replaced. On the build before, the rerun exited 73."""
import signal
import subprocess
import time

import e2e_helpers as h


def recording(binary, tmp_path):
    rec = tmp_path / "rec"
    r = h.run([binary, "record", "--output", rec, "--preset", "ultrafast", "--quiet"])
    assert r.returncode == 0, r.stderr[-600:]
    return rec, h.load_manifest(rec)


def test_a_report_killed_before_its_page_blocks_no_rerun(binary, tmp_path):
    rec, m = recording(binary, tmp_path)
    p = subprocess.Popen([str(binary), "report", str(rec)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    posters = rec / "report-posters"
    deadline = time.time() + 60
    while time.time() < deadline and not any(posters.glob("*.jpg")) and p.poll() is None:
        time.sleep(0.005)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)
    # Finished before the kill: what a kill before the page would have left.
    (rec / "report.html").unlink(missing_ok=True)
    assert any(posters.glob("*.jpg")), "no poster was written before the kill"
    r = h.run([binary, "report", rec])
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert (rec / "report.html").is_file()
    assert sorted(x.name for x in posters.iterdir()) == sorted(s["file"].replace(".mp4", ".jpg") for s in m["segments"])
    assert (rec / "report-hls").is_dir() and any((rec / "report-hls").glob("*.m3u8"))


def test_a_finished_report_still_needs_force(binary, tmp_path):
    rec, _ = recording(binary, tmp_path)
    assert h.run([binary, "report", rec]).returncode == 0
    again = h.run([binary, "report", rec])
    assert again.returncode == 73 and "--force" in again.stderr, (again.returncode, again.stderr)
    assert h.run([binary, "report", rec, "--force"]).returncode == 0
