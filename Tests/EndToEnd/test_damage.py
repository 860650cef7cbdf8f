"""Pictures lost to damage, counted once in every container: 150-frame intra-only clips in
seven containers with 20 000 bytes zeroed or cut at the 76th packet (from just before its
data, so the demuxer meets the damage in a header): segrec writes exactly the frames ffprobe
decodes, received is the source's 150 and the rest is dropped `corrupt`, counted once (not
once per rejected packet and again per gap), with one damage warning; the same through a
named pipe; the same on three runs (libavcodec's frame threads report concealment
differently from run to run). An AVI cut short is still exit 65 naming the frames kept; a
clean timestamp jump is not a loss."""
import os
import subprocess

import pytest

import e2e_helpers as h

CONTAINERS = {"mkv": ("matroska", "libx264", 4), "webm": ("webm", "libvpx", 4), "flv": ("flv", "libx264", 8),
              "mp4": ("mp4", "libx264", 0), "avi": ("avi", "libx264", 8), "mpg": ("mpeg", "mpeg2video", 8),
              "nut": ("nut", "libx264", 8)}
# mp4 cut: the sample table then points past the data: not this kind of damage
DAMAGE = [(ext, how) for ext in CONTAINERS for how in ("zeroed", "cut") if not (ext == "mp4" and how == "cut")]


def positions(path):
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos", "-of", "csv=p=0", path])
    return [int(x) for x in out.stdout.split() if x.strip().lstrip("-").isdigit()]


class Damage:
    def __init__(self, binary, work):
        self.binary, self.work = binary, work
        self.clean, self.files, self.damaged = {}, {}, {}

    def make(self, name, fmt, codec, *vf):
        path = self.work / name
        extra = ["-b:v", "1M"] if codec == "libvpx" else []
        h.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "150",
               "-c:v", codec, *extra, "-g", "1", *vf, "-f", fmt, path])
        return path

    def record(self, source, name):
        out = self.work / name
        proc = subprocess.run([self.binary, "record", "--source", str(source), "--output", str(out),
                               "--force", "--json", "--preset", "ultrafast"], capture_output=True, text=True, timeout=120)
        return proc, out, h.manifest_from_stdout(proc.stdout)

    def clean_file(self, ext):
        if ext not in self.clean:
            fmt, codec, _ = CONTAINERS[ext]
            self.clean[ext] = self.make(f"clean.{ext}", fmt, codec)
        return self.clean[ext]

    def damaged_file(self, ext, how):
        """(path, k): the damaged clip and the frames ffprobe decodes from it."""
        if (ext, how) not in self.files:
            self.files[(ext, how)] = self._damage(ext, how)
        return self.files[(ext, how)]

    def _damage(self, ext, how):
        clean = self.clean_file(ext)
        pos = positions(clean)
        assert len(pos) == 150, f"ffprobe lists {len(pos)} packets, not 150"
        data = clean.read_bytes()
        at = pos[75] - CONTAINERS[ext][2]
        path = self.work / f"{how}.{ext}"
        path.write_bytes(data[:at] + (bytes(20000) if how == "zeroed" else b"") + data[at + 20000:])
        k = h.count_frames(path)
        assert 100 < k < 150, f"the damage loses pictures (ffprobe decodes {k})"
        return path, k

    def result(self, ext, how):
        """(k, runs, last manifest, out): 3 recordings for mkv and flv, 1 otherwise."""
        if (ext, how) not in self.damaged:
            path, k = self.damaged_file(ext, how)
            runs = []
            for attempt in range(3 if ext in ("mkv", "flv") else 1):
                proc, out, m = self.record(path, f"{how}-{ext}-{attempt}")
                if attempt == 0:
                    first = (m, out)
                f = (m or {}).get("frames", {})
                runs.append((proc.returncode, f.get("received"), f.get("written"), f.get("dropped"),
                             f.get("droppedReasons", {}).get("corrupt")))
            self.damaged[(ext, how)] = (k, runs, *first)
        return self.damaged[(ext, how)]


@pytest.fixture(scope="module")
def damage(binary, tmp_path_factory):
    return Damage(binary, tmp_path_factory.mktemp("damage-counts"))


damage_cases = pytest.mark.parametrize("ext,how", DAMAGE, ids=[f"{e}-{w}" for e, w in DAMAGE])


@damage_cases
def test_damage_exit_0_writes_the_frames_ffprobe_decodes_received_150_rest_dropped_corrupt(damage, ext, how):
    k, runs, _, _ = damage.result(ext, how)
    assert runs[0] == (0, 150, k, 150 - k, 150 - k), f"{runs[0]} (ffprobe decodes {k})"


@damage_cases
def test_damage_the_same_counts_on_every_run(damage, ext, how):
    _, runs, _, _ = damage.result(ext, how)
    assert len(set(runs)) == 1, runs


@damage_cases
def test_damage_one_damage_warning_saying_pictures_lost(damage, ext, how):
    k, _, m, _ = damage.result(ext, how)
    assert m, "no manifest on stdout"
    warnings = [w for w in m["warnings"] if "input damaged" in w]
    assert len(warnings) == 1 and f"{150 - k} pictures lost" in warnings[0], warnings


@damage_cases
def test_damage_ffprobe_decodes_the_written_frames_of_the_segment(damage, ext, how):
    k, _, m, out = damage.result(ext, how)
    assert m and m["segments"], "no segment"
    assert h.count_frames(out / m["segments"][0]["file"]) == k


@pytest.mark.parametrize("ext", ["mkv", "flv"])
def test_damage_over_a_named_pipe_received_150_written_as_ffprobe(damage, ext):
    """The probing window and the resync are the same without a file size."""
    path, k = damage.damaged_file(ext, "zeroed")
    fifo = damage.work / f"fifo.{ext}"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat '{path}' > '{fifo}'"])
    proc, _, m = damage.record(fifo, f"pipe-{ext}")
    writer.wait(timeout=30)
    f = (m or {}).get("frames", {})
    assert proc.returncode == 0 and f.get("received") == 150 and f.get("written") == k, f"exit {proc.returncode} {f}"


@pytest.fixture(scope="module")
def short_avi(damage):
    data = damage.clean_file("avi").read_bytes()
    cut = damage.work / "short.avi"
    cut.write_bytes(data[:len(data) * 6 // 10])
    return damage.record(cut, "short-avi")


def test_avi_cut_short_exit_65_truncated_after_n_of_its_150_frames(short_avi):
    proc, _, _ = short_avi
    assert proc.returncode == 65 and "of its 150 frames" in proc.stderr and "truncated" in proc.stderr, \
        f"exit {proc.returncode}: {proc.stderr[-300:]}"


def test_avi_cut_short_the_frames_kept_decode(short_avi):
    _, out, m = short_avi
    assert m and m["segments"], "no segment"
    assert h.count_frames(out / m["segments"][0]["file"]) == m["frames"]["written"]


def test_a_container_on_standard_input_exit_65_says_stdin_is_y4m_use_a_file_or_named_pipe(damage, binary):
    """A Matroska file on standard input (read as YUV4MPEG2)."""
    with open(damage.clean_file("mkv"), "rb") as stdin:
        proc = subprocess.run([binary, "record", "--source", "-", "--output", str(damage.work / "stdin-mkv"), "--force"],
                              stdin=stdin, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 65 and "standard input is read as YUV4MPEG2" in proc.stderr and "named pipe" in proc.stderr, \
        f"exit {proc.returncode}: {proc.stderr[-300:]}"


def test_a_clean_timestamp_jump_nothing_lost_no_damage_warning(damage):
    """A clean one-second jump in the timestamps (a still period)."""
    gap = damage.make("gap.mkv", "matroska", "libx264", "-vf", "setpts='if(gte(N,75),PTS+30,PTS)'")
    proc, _, m = damage.record(gap, "gap")
    f = (m or {}).get("frames", {})
    assert proc.returncode == 0 and (f.get("received"), f.get("written"), f.get("dropped")) == (150, 150, 0) \
        and not any("input damaged" in w for w in (m or {}).get("warnings", [])), f"exit {proc.returncode} {f}"
