"""An ffconcat list outside the recording folder plays in ffmpeg, mpv and VLC without
`safe=0` (issue 46 item 4). FFmpeg's concat demuxer (which mpv and VLC 3 use) refuses, with
its default safe=1, any path that is absolute or has a component starting with `.` or
holding anything but letters, digits, `_`, `-` and `.`: the `../rec/segment-000.mp4` the
build before wrote. The list now names such files through relative symbolic links in a
folder beside it (`my_rec-files/`, its name made safe too).

The recording: SampleStreams/duo/individual-open-close.json (3 files, 2160x3840, 1080x1920,
2160x3840). Read back: ffprobe -f concat (no -safe), mpv (every frame through showinfo) and
cvlc (its demuxer's frames remuxed to Matroska). VLC 3 leaves out the very last frame of the
stream (a single file remuxed the same way keeps all of them; measured: 49 + 87 + 17 of
49 + 87 + 18), so its last file may be one short."""
import re
import shutil

import pytest

import e2e_helpers as h
import players

DUO = h.SAMPLE_STREAMS / "duo" / "individual-open-close.json"


def ffmpeg_safe(path):
    """libavformat/concatdec.c safe_filename()."""
    return all(re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*", part) for part in path.split("/"))


@pytest.fixture(scope="module")
def exported(binary):
    folder = players.shared_folder("segrec-concat-")
    rec = folder / "rec"
    made = h.run([binary, "record", "--scenario", DUO, "--output", rec, "--quiet"])
    assert made.returncode == 0, made.stderr[-400:]
    (folder / "lists").mkdir()
    listed = folder / "lists" / "my rec.ffconcat"
    export = h.run([binary, "export", rec, "--concat", listed])
    players.open_to_all(folder)
    yield folder, listed, h.load_manifest(rec), export
    shutil.rmtree(folder, ignore_errors=True)


def expected_runs(m):
    return [((s["width"], s["height"]), s["frameCount"]) for s in m["segments"]]


def test_every_listed_path_is_safe_for_the_concat_demuxer(exported):
    _, listed, m, export = exported
    assert export.returncode == 0, export.stderr[-400:]
    paths = re.findall(r"^file '(.*)'$", listed.read_text(), re.M)
    assert len(paths) == len(m["segments"]) and all(ffmpeg_safe(p) for p in paths), paths
    assert all((listed.parent / p).resolve().samefile(listed.parent.parent / "rec" / s["file"])
               for p, s in zip(paths, m["segments"])), paths


def test_ffprobe_reads_every_frame_without_safe_0(exported):
    _, listed, m, _ = exported
    out = h.run(["ffprobe", "-v", "error", "-f", "concat", "-select_streams", "v:0", "-count_frames",
                 "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", listed])
    read = re.match(r"\d+", out.stdout.strip())
    assert out.returncode == 0 and read and int(read[0]) == m["frames"]["written"], (out.stdout, out.stderr[-300:])


@players.needs_mpv
def test_mpv_plays_every_frame_without_safe_0(exported):
    _, listed, m, _ = exported
    sizes, log = players.mpv_frame_sizes(listed)
    assert players.runs(sizes) == expected_runs(m), f"{players.runs(sizes)}; {log[-400:]}"


@players.needs_vlc
def test_vlc_plays_every_file_without_safe_0(exported):
    folder, listed, m, _ = exported
    sizes, log = players.vlc_remuxed_sizes(listed, folder)
    got, want = players.runs(sizes), expected_runs(m)
    assert len(got) == len(want) and got[:-1] == want[:-1] and got[-1][0] == want[-1][0] \
        and want[-1][1] - 1 <= got[-1][1] <= want[-1][1], f"VLC read {got}, manifest {want}; {log[-400:]}"
