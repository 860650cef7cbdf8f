"""A recording folder is not trusted: whatever its manifest names and whatever sits at its
file names, no command reads, writes or deletes anything outside the folder, follows a link,
waits on a FIFO or traps on a number.

Each case starts from a copy of one real recording placed in its own parent folder beside a
"bait" folder of files an attacker would like touched (`../victim.mp4`, `.partial`, `.tmp`,
a file the lock could be hard-linked to, a poster-named file); after every command the bait's
bytes and names must be exactly as before."""
import json
import os
import shutil
import subprocess

import pytest

import e2e_helpers as h

COMMANDS = {
    "verify": lambda rec, out: ["verify", rec],
    "recover": lambda rec, out: ["recover", rec],
    "export-concat": lambda rec, out: ["export", rec, "--concat", out / "list.ffconcat"],
    "export-hls": lambda rec, out: ["export", rec, "--hls", out / "hls"],
    "report": lambda rec, out: ["report", rec],
    "report-force": lambda rec, out: ["report", rec, "--force"],
}


@pytest.fixture(scope="module")
def base(binary, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile") / "base"
    r = h.run([binary, "record", "--source", "synthetic", "--scenario", h.ROOT / "SampleStreams" / "rapid-flips.json",
               "--output", folder, "--preset", "ultrafast", "--quiet"])
    assert r.returncode == 0, r.stderr
    assert len(h.load_manifest(folder)["segments"]) >= 3
    return folder


class Case:
    """A copy of the base recording at WORK/parent/rec, bait files at WORK/parent and WORK/bait."""

    def __init__(self, base, work):
        self.parent = work / "parent"
        self.rec = self.parent / "rec"
        self.bait = work / "bait"
        self.out = work / "out"
        shutil.copytree(base, self.rec)
        self.bait.mkdir()
        self.out.mkdir()
        for name in ["victim.mp4", "victim.mp4.partial", "victim.mp4.tmp", "segment-000.jpg", "lock-target"]:
            for where in (self.parent, self.bait):
                (where / name).write_bytes(b"user data " + name.encode())
        shutil.copy(self.rec / "segment-000.mp4", self.bait / "outside.mp4")
        self.before = self.digest()

    def digest(self):
        """Names and bytes of everything outside the recording folder (and the export output)."""
        state = {}
        for top in (self.parent, self.bait):
            for p in sorted(top.rglob("*")):
                if self.rec in p.parents or p == self.rec:
                    continue
                state[str(p)] = p.read_bytes() if p.is_file() and not p.is_symlink() else os.path.islink(p)
        return state

    def manifest(self):
        return json.loads((self.rec / "manifest.json").read_text())

    def edit(self, change):
        m = self.manifest()
        change(m)
        (self.rec / "manifest.json").write_text(json.dumps(m))

    def run(self, binary, command, timeout=30):
        args = COMMANDS[command](self.rec, self.out)
        try:
            r = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"segrec {command} still running after {timeout} s (blocked?)")
        assert r.returncode >= 0, f"segrec {command} died of signal {-r.returncode}: {r.stderr}"
        assert self.digest() == self.before, f"segrec {command} touched files outside the recording folder"
        return r


@pytest.fixture
def case(base, tmp_path):
    return Case(base, tmp_path)


def interrupted(m):
    m["stopReason"] = None


NAMES = {
    "parent": "../victim.mp4",
    "absolute": None,  # the bait folder's absolute path, filled in per case
    "subfolder": "sub/segment-000.mp4",
    "dot-dot-inside": "segment-000.mp4/../../victim.mp4",
    "not-segrec-pattern": "victim.mp4",
    "empty": "",
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name", list(NAMES))
@pytest.mark.parametrize("journal", [False, True], ids=["finished", "interrupted"])
def test_a_foreign_segment_name_is_refused_and_nothing_outside_is_touched(binary, case, name, command, journal):
    file = NAMES[name] if NAMES[name] is not None else str(case.bait / "victim.mp4")

    def change(m):
        m["segments"][0]["file"] = file
        if journal:
            interrupted(m)

    case.edit(change)
    if journal:
        # The journal's partial, as a killed recording would leave it.
        os.rename(case.rec / "segment-000.mp4", case.rec / "segment-000.mp4.partial")
    r = case.run(binary, command)
    assert r.returncode == 65, r.stderr
    assert "segments[0].file" in r.stderr and "segment-NNN.mp4" in r.stderr, r.stderr


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_name_listed_twice_is_refused(binary, case, command):
    case.edit(lambda m: m["segments"][1].update(file=m["segments"][0]["file"]))
    r = case.run(binary, command)
    assert r.returncode == 65 and "segments[1].file" in r.stderr, r.stderr


@pytest.mark.parametrize("command", ["verify", "export-concat", "export-hls", "report", "report-force"])
def test_a_symlinked_segment_is_not_followed(binary, case, command):
    os.unlink(case.rec / "segment-000.mp4")
    os.symlink(case.bait / "outside.mp4", case.rec / "segment-000.mp4")
    r = case.run(binary, command)
    assert r.returncode != 0, f"segrec {command} accepted a segment that is a symbolic link out of the folder"
    assert "symbolic link" in r.stderr + r.stdout, r.stderr + r.stdout


@pytest.mark.parametrize("command", ["verify", "recover", "export-concat", "export-hls", "report", "report-force"])
def test_a_fifo_segment_blocks_nothing(binary, case, command):
    os.unlink(case.rec / "segment-001.mp4")
    os.mkfifo(case.rec / "segment-001.mp4")
    r = case.run(binary, command, timeout=20)
    if command == "recover":
        assert r.returncode == 0, r.stderr  # a finished recording: nothing to recover, nothing opened
        return
    assert r.returncode != 0
    assert "FIFO" in r.stderr + r.stdout, r.stderr + r.stdout


def test_a_fifo_manifest_blocks_nothing(binary, case):
    os.unlink(case.rec / "manifest.json")
    os.mkfifo(case.rec / "manifest.json")
    for command in COMMANDS:
        r = case.run(binary, command, timeout=20)
        assert r.returncode == 65 and "FIFO" in r.stderr, (command, r.stderr)


@pytest.mark.parametrize("command", ["recover", "record-force", "record-fresh"])
def test_a_hard_linked_lock_never_writes_its_other_name(binary, case, command, tmp_path):
    target = case.bait / "lock-target"
    if command == "record-fresh":
        folder = tmp_path / "fresh"
        folder.mkdir()
    else:
        folder = case.rec
        if command == "recover":
            case.edit(interrupted)
    os.link(target, folder / "recording.lock")
    args = {"recover": ["recover", folder],
            "record-force": ["record", "--source", "synthetic", "--scenario", h.ROOT / "SampleStreams" / "rapid-flips.json", "--force", "--output", folder],
            "record-fresh": ["record", "--source", "synthetic", "--scenario", h.ROOT / "SampleStreams" / "rapid-flips.json", "--output", folder]}[command]
    r = h.run([binary, *args])
    assert target.read_bytes() == b"user data lock-target", r.stderr
    assert r.returncode == 73 and "recording.lock" in r.stderr and "hard link" in r.stderr, r.stderr
    assert case.digest() == case.before


@pytest.mark.parametrize("force", [False, True], ids=["report", "report-force"])
def test_a_symlinked_poster_folder_is_not_followed(binary, case, force):
    os.symlink(case.bait, case.rec / "report-posters")
    r = case.run(binary, "report-force" if force else "report")
    assert r.returncode == 73 and "report-posters" in r.stderr and "symbolic link" in r.stderr, r.stderr
    assert not (case.rec / "report.html").exists()


@pytest.mark.parametrize("force", [False, True], ids=["report", "report-force"])
def test_a_symlinked_report_hls_folder_is_not_followed(binary, case, force):
    """The report's HLS export (its whole-recording player) goes only into a folder of its own."""
    os.symlink(case.bait, case.rec / "report-hls")
    r = case.run(binary, "report-force" if force else "report")
    assert r.returncode == 73 and "report-hls" in r.stderr and "symbolic link" in r.stderr, r.stderr
    assert not (case.rec / "report.html").exists() and not list(case.bait.glob("*.m4s"))


# Numbers `verify` refuses: every command refuses them alike, naming the field.
OUT_OF_RANGE = {
    "frameCount-2^63-1": (lambda m: m["segments"][0].update(frameCount=2**63 - 1), "segments[0].frameCount"),
    "frameCount-negative": (lambda m: m["segments"][0].update(frameCount=-1), "segments[0].frameCount"),
    "frames.written-huge": (lambda m: m["frames"].update(written=2**62), "frames.written"),
    "width-0": (lambda m: m["segments"][0].update(width=0), "segments[0].width"),
    "height-huge": (lambda m: m["segments"][1].update(height=10**6), "segments[1].height"),
    "byteCount-negative": (lambda m: m["segments"][0].update(byteCount=-5), "segments[0].byteCount"),
    "sessionEnd-2^62+1": (lambda m: m["segments"][0]["sessionEnd"].update(value=2**62 + 1), "segments[0].sessionEnd.value"),
    "firstFrameIndex-negative": (lambda m: m["segments"][2].update(firstFrameIndex=-3), "segments[2].firstFrameIndex"),
    "formatVersion-2": (lambda m: m.update(formatVersion=2), "formatVersion"),
    "1e30": (lambda m: m["frames"].update(received=1e30), "frames.received"),
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("mutation", list(OUT_OF_RANGE))
def test_every_command_refuses_what_verify_refuses(binary, case, mutation, command):
    change, field = OUT_OF_RANGE[mutation]
    case.edit(change)
    r = case.run(binary, command)
    assert r.returncode == 65, f"segrec {command}: exit {r.returncode}: {r.stderr}"
    assert field in r.stderr, r.stderr


# ---- recover never trades a partial's frames for a finished file it cannot trust ----

@pytest.fixture(scope="module")
def killed(binary, tmp_path_factory):
    """A real-time 320x240 Y4M recording killed with -9 after 2.5 s: a journal and a .partial."""
    work = tmp_path_factory.mktemp("killed")
    clip = work / "clip.y4m"
    h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "20", "-pix_fmt", "yuv420p", clip])
    foreign = work / "foreign.mp4"
    h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "0.7", "-pix_fmt", "yuv420p",
           "-c:v", "libx264", foreign])
    folder = work / "rec"
    proc = subprocess.Popen([binary, "record", "--source", str(clip), "--realtime", "--output", str(folder), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import time
    time.sleep(2.5)
    proc.kill()
    proc.wait()
    assert (folder / "segment-000.mp4.partial").exists()
    reference = work / "reference"
    shutil.copytree(folder, reference)
    r = h.run([binary, "recover", reference])
    assert r.returncode == 0, r.stderr
    frames = h.load_manifest(reference)["segments"][0]["frameCount"]
    assert frames > 10
    return folder, reference, foreign, frames


@pytest.mark.parametrize("planted", ["truncated-finished-file", "foreign-finished-file", "partial-hard-linked-to-foreign"])
def test_recover_keeps_the_partials_frames_over_an_untrustworthy_file(binary, killed, tmp_path, planted):
    folder, reference, foreign, frames = killed
    rec = tmp_path / "rec"
    shutil.copytree(folder, rec)
    if planted == "truncated-finished-file":
        (rec / "segment-000.mp4").write_bytes((reference / "segment-000.mp4").read_bytes()[:20000])
    elif planted == "foreign-finished-file":
        shutil.copy(foreign, rec / "segment-000.mp4")
    else:
        os.unlink(rec / "segment-000.mp4.partial")
        os.link(foreign, rec / "segment-000.mp4.partial")
    before = foreign.read_bytes()
    r = h.run([binary, "recover", rec])
    assert r.returncode == 0, r.stderr
    assert foreign.read_bytes() == before
    m = h.load_manifest(rec)
    if planted == "partial-hard-linked-to-foreign":
        assert m["segments"] == [] or all(s["width"] == 320 for s in m["segments"]), m["segments"]
        assert (rec / "segment-000.mp4.partial.unrecoverable").exists()
    else:
        assert [s["frameCount"] for s in m["segments"]] == [frames], m["segments"]
        assert (rec / "segment-000.mp4.unrecoverable").exists()
        v = h.run([binary, "verify", rec])
        assert v.returncode == 0, v.stdout + v.stderr
