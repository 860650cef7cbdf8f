"""The power-cut model (issue 25): a real-time recording on PowerFS (../shared/tools/powerfs.py,
a FUSE loopback whose durable/ folder holds only what was fsynced, plus every name at once),
the FUSE daemon killed at a random moment (the power cut), the recorder killed with it, then
`segrec recover` and `segrec verify` on what durable/ holds (the disk after the reboot).

Used by test_power_cut.py (a few cuts) and by hand for the 20-cut figures:

    /usr/bin/python3 Tests/EndToEnd/power_cut.py --cuts 20 [--kind synthetic|stdin] [--binary PATH]

For every cut it reports: recover's and verify's exit codes; whether every segment the
journal (before recover) counted as finished (byteCount > 0) holds on disk exactly the
frames the journal counts; whether every segment the recovered manifest keeps holds exactly
its frameCount (ffprobe, counting packets); and the seconds lost (time from spawn to the cut
minus the recovered span, so start-up counts as lost)."""
import json
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
POWERFS = ROOT.parent / "shared" / "tools" / "powerfs.py"
# PowerFS with positional reads (see its docstring): the daemon this model mounts.
LAUNCHER = pathlib.Path(__file__).resolve().parent / "powerfs_launcher.py"
SYSTEM_PYTHON = "/usr/bin/python3"
# Seconds a cut may cost: one fragment interval (1 s), two frames at 30 fps, 0.5 s of start-up
# (spawn to first frame) and 0.25 s of fsync lag.
LOST_BOUND = 1.0 + 2 / 30 + 0.5 + 0.25


def unavailable():
    """Why the model cannot run here, or None."""
    if not POWERFS.exists():
        return f"{POWERFS} is absent (the shared PowerFS tool)"
    if not os.path.exists("/dev/fuse"):
        return "/dev/fuse is absent"
    if subprocess.run([SYSTEM_PYTHON, "-c", "import fusepy"], capture_output=True).returncode != 0:
        return f"{SYSTEM_PYTHON} cannot import fusepy (Debian python3-fusepy; Scripts/install-deps --test)"
    if os.geteuid() != 0 and shutil.which("fusermount3") is None:
        return "neither root nor fusermount3 (Debian fuse3) to mount PowerFS"
    return None


def packets(path):
    """Packets ffprobe reads from the first video stream of `path` (0 when unreadable)."""
    probe = subprocess.run(["ffprobe", "-v", "quiet", "-select_streams", "v:0", "-count_packets",
                            "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", str(path)],
                           capture_output=True, text=True)
    try:
        return int(probe.stdout.strip().splitlines()[0])
    except (ValueError, IndexError):
        return 0


def seconds(t):
    return t["value"] / t["timescale"]


def switching_scenario(path):
    """A 1280 square camera at 30 fps, a ratio change every second for 30 s."""
    path.write_text(json.dumps({
        "device": {"format": 1280, "fps": 30, "initialAspectRatio": "16x9"},
        "sessionStartSeconds": 1.0, "durationSeconds": 30.0,
        "events": [{"atSeconds": float(s), "setDynamicAspectRatio": ["9x16", "1x1", "4x3", "16x9"][s % 4]}
                   for s in range(1, 30)]}))
    return path


def unmount(mnt):
    for command in (["fusermount3", "-u", "-z", str(mnt)], ["umount", "-l", str(mnt)]):
        if shutil.which(command[0]) and subprocess.run(command, capture_output=True).returncode == 0:
            return


def mount(work):
    """PowerFS over work/backing at work/mnt (both created); returns (daemon, None) once
    mounted, or (None, why)."""
    backing, mnt = work / "backing", work / "mnt"
    backing.mkdir(parents=True)
    mnt.mkdir()
    log = open(work / "powerfs.log", "wb")
    fs = subprocess.Popen([SYSTEM_PYTHON, str(LAUNCHER), str(POWERFS), str(backing), str(mnt)], stdout=log, stderr=log)
    deadline = time.monotonic() + 15
    while not os.path.ismount(mnt):
        if time.monotonic() > deadline or fs.poll() is not None:
            fs.kill()
            return None, f"PowerFS did not mount: {(work / 'powerfs.log').read_text()[-300:]}"
        time.sleep(0.05)
    return fs, None


def one_cut(binary, work, kind, wait, scenario):
    """One power cut `wait` seconds after the recorder is spawned; returns a dict of figures."""
    backing, mnt = work / "backing", work / "mnt"
    fs, why = mount(work)
    if why:
        return dict(error=why)
    feeder = None
    common = ["--output", str(mnt / "rec"), "--realtime", "--preset", "ultrafast", "--quiet"]
    if kind == "synthetic":
        args, stdin = ["--source", "synthetic", "--scenario", str(scenario)], subprocess.DEVNULL
    else:
        feeder = subprocess.Popen(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
                                   "-frames:v", "900", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        args, stdin = ["--source", "-", "--stamp-frame-index"], feeder.stdout
    started = time.monotonic()
    rec = subprocess.Popen([binary, "record", *args, *common], stdin=stdin, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    if feeder:
        feeder.stdout.close()
    time.sleep(wait)
    fs.send_signal(signal.SIGKILL)  # the power cut: only durable/ survives
    elapsed = time.monotonic() - started
    rec.send_signal(signal.SIGKILL)
    rec.wait()
    fs.wait()
    if feeder:
        feeder.kill()
        feeder.wait()
    unmount(mnt)
    disk = backing / "durable" / "rec"
    result = dict(kind=kind, wait=round(wait, 3), elapsed=round(elapsed, 3))
    if not disk.is_dir():
        return dict(result, error="no recording folder on disk")
    listing = sorted(p.name for p in disk.iterdir())
    journal = json.loads((disk / "manifest.json").read_text()) if (disk / "manifest.json").exists() else None
    # A journal never counts as finished a file whose frames the disk lacks.
    claims = []
    for seg in (journal or {}).get("segments", []):
        if seg.get("byteCount", 0) > 0:
            claims.append((seg["file"], seg["frameCount"], packets(disk / seg["file"])))
    on_disk = {p.name: packets(p) for p in disk.iterdir() if p.name.startswith("segment-")}
    recover = subprocess.run([binary, "recover", str(disk)], capture_output=True, text=True)
    verify = subprocess.run([binary, "verify", str(disk)], capture_output=True, text=True)
    after = json.loads((disk / "manifest.json").read_text()) if (disk / "manifest.json").exists() else {}
    kept = [(s["file"], s["frameCount"], packets(disk / s["file"])) for s in after.get("segments", [])]
    span = seconds(after["segments"][-1]["sessionEnd"]) - seconds(after["segments"][0]["sessionStart"]) if kept else 0.0
    return dict(result, listing=listing, on_disk=on_disk, journal_claims=claims,
                journal_claims_ok=all(c[1] == c[2] for c in claims),
                recover=recover.returncode, recover_output=(recover.stdout + recover.stderr)[-400:],
                verify=verify.returncode, verify_output=verify.stdout[-400:],
                kept=kept, kept_ok=all(k[1] == k[2] and k[2] > 0 for k in kept),
                frames=after.get("frames"), lost=round(max(0.0, elapsed - span), 3))


def run(binary, cuts, kinds, seed=20261202, keep=None):
    rng = random.Random(seed)
    results = []
    base = pathlib.Path(keep or tempfile.mkdtemp(prefix="segrec-power-cut-"))
    base.mkdir(parents=True, exist_ok=True)
    scenario = switching_scenario(base / "switching.json")
    for kind in kinds:
        for n in range(cuts):
            work = base / f"{kind}-{n}"
            results.append(dict(one_cut(binary, work, kind, rng.uniform(1.5, 5.0), scenario), n=n))
            if keep is None:
                shutil.rmtree(work, ignore_errors=True)
    if keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return results


if __name__ == "__main__":
    import argparse
    import statistics
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cuts", type=int, default=20)
    parser.add_argument("--kind", choices=["synthetic", "stdin", "both"], default="both")
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "segrec"))
    parser.add_argument("--keep", help="keep every cut's folders under this path")
    options = parser.parse_args()
    if (why := unavailable()):
        sys.exit(f"power-cut model cannot run: {why}")
    kinds = ["synthetic", "stdin"] if options.kind == "both" else [options.kind]
    results = run(options.binary, options.cuts, kinds, keep=options.keep)
    for r in results:
        print(json.dumps({k: v for k, v in r.items() if k not in ("recover_output", "verify_output", "listing")}))
    for kind in kinds:
        rs = [r for r in results if r.get("kind") == kind]
        ok = [r for r in rs if r.get("recover") == 0 and r.get("verify") == 0 and r.get("kept_ok") and r.get("journal_claims_ok")
              and r.get("lost", 99) <= LOST_BOUND]
        lost = [r["lost"] for r in rs if "lost" in r]
        print(f"{kind}: {len(ok)}/{len(rs)} cuts recovered and verified, every kept frame on disk, no journal claim beyond the disk, "
              f"at most {LOST_BOUND:.2f} s lost; "
              f"lost median {statistics.median(lost) if lost else float('nan'):.2f} s, max {max(lost) if lost else float('nan'):.2f} s")
