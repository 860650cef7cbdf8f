"""Exports that are interrupted or replaced leave nothing behind that blocks or confuses the
next run (issue 46 item 6's kind of fault, for every export, not only `--mp4`).

- An `export --hls` (or a concat list's copies) interrupted with Ctrl-C, SIGTERM or kill -9
  leaves no truncated file under the name a playlist or list uses: every file is written as
  `NAME.partial` and renamed once all are whole, then the playlist is written. The next export
  to the same place removes the `.partial` files and runs, with or without `--force`. The
  build before left truncated `segment-*.m4s` and init sections under their own names, and
  every rerun without `--force` exited 73.
- `--force` over an earlier, larger export removes the files the replaced playlist or list
  named that the new one does not write (the build before left them behind).
- An option that belongs to an output, given without any output, names the output it needs.
- A tagged export (`--hls-discontinuities`) warns that VLC 3 stops at the first tag.
"""
import signal
import subprocess
import time

import pytest

import e2e_helpers as h


@pytest.fixture(scope="module")
def recordings(binary, tmp_path_factory):
    """(work folder, {name: recording folder}): a 3-file recording of 1,798 frames (its HLS
    export takes long enough to be interrupted), a 30-file one, and the 30-file one in HEVC
    (its concat list needs in-band copies)."""
    work = tmp_path_factory.mktemp("export-rerun")
    made = {}
    for name, scenario, extra in [("long", "long-recording-drift.json", []), ("flips", "rapid-flips.json", []),
                                  ("hevc", "rapid-flips.json", ["--codec", "hevc"])]:
        out = work / name
        r = h.run([binary, "record", "--source", "synthetic", "--scenario", h.SAMPLE_STREAMS / scenario, "--output", out,
                   "--preset", "ultrafast", "--quiet"] + extra)
        assert r.returncode == 0, r.stderr[-400:]
        made[name] = out
    return work, made


def interrupted(binary, args, folder, how):
    """Runs `segrec export ARGS`, stops it with `how` once a file appears in `folder`;
    returns (exit code, names in `folder`, whether it was stopped before it finished)."""
    p = subprocess.Popen([str(binary), "export"] + [str(a) for a in args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None and not (folder.exists() and any(folder.iterdir())):
        time.sleep(0.001)
    stopped_early = p.poll() is None
    p.send_signal(how)
    p.communicate(timeout=60)
    return p.returncode, sorted(x.name for x in folder.iterdir()) if folder.exists() else [], stopped_early


def frames_read(path):
    """Pictures ffprobe decodes from a playlist or list (its first video stream; an HLS
    playlist is listed once per program)."""
    out = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                 "stream=nb_read_frames", "-of", "csv=p=0", str(path)])
    return int(out.stdout.split()[0]) if out.stdout.split() else -1


def playlist_names(playlist):
    lines = playlist.read_text().splitlines()
    names = [l for l in lines if l and not l.startswith("#")]
    names += [l.split('URI="')[1].split('"')[0] for l in lines if l.startswith("#EXT-X-MAP:")]
    return names


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["sigint", "sigterm", "kill-9"])
@pytest.mark.parametrize("force", [False, True], ids=["rerun", "rerun-force"])
def test_an_interrupted_hls_export_leaves_no_half_file_and_blocks_no_rerun(recordings, binary, how, force):
    work, made = recordings
    out = work / f"hls-{how.name}-{force}"
    code, left, early = interrupted(binary, [made["long"], "--hls", out], out, how)
    if early:
        assert code != 0, left
        # Nothing under a name the playlist uses: only whole-export-pending .partial files.
        assert left and all(n.endswith(".partial") for n in left), left
    again = h.run([binary, "export", made["long"], "--hls", out] + (["--force"] if force else []))
    assert again.returncode == 0, (again.returncode, again.stderr[-400:])
    playlist = out / "index.m3u8"
    names = playlist_names(playlist)
    assert sorted(x.name for x in out.iterdir()) == sorted(names + ["index.m3u8"])
    assert frames_read(playlist) == 1798


def test_an_interrupted_concat_export_leaves_no_half_copy(recordings, binary):
    work, made = recordings
    folder = work / "concat-killed"
    folder.mkdir()
    code, left, early = interrupted(binary, [made["hevc"], "--concat", folder / "l.ffconcat"], folder / "l-files", signal.SIGKILL)
    if early:
        assert all(n.endswith(".partial") for n in left), left
        assert not (folder / "l.ffconcat").exists()
    again = h.run([binary, "export", made["hevc"], "--concat", folder / "l.ffconcat"])
    assert again.returncode == 0, (again.returncode, again.stderr[-400:])
    assert sorted(x.name for x in (folder / "l-files").iterdir()) == [f"segment-{i:03d}.mp4" for i in range(30)]
    assert frames_read(folder / "l.ffconcat") == 91


def test_force_over_a_larger_hls_export_removes_what_it_no_longer_names(recordings, binary):
    work, made = recordings
    out = work / "replaced-hls"
    first = h.run([binary, "export", made["flips"], "--hls", out])
    assert first.returncode == 0 and len(list(out.iterdir())) == 61, first.stderr[-300:]
    before = set(playlist_names(out / "index.m3u8"))
    second = h.run([binary, "export", made["long"], "--hls", out, "--force"])
    assert second.returncode == 0, second.stderr[-300:]
    names = playlist_names(out / "index.m3u8")
    assert sorted(x.name for x in out.iterdir()) == sorted(names + ["index.m3u8"])
    stale = before - set(names)
    assert len(stale) == 54  # 60 files, of which 3 init sections and 3 first media segments keep their names
    assert f"; {len(stale)} file(s) of the replaced export it no longer names removed" in second.stdout, second.stdout
    assert frames_read(out / "index.m3u8") == 1798
    # A file of somebody else's beside the playlist, not named by it, is never touched.
    (out / "notes.txt").write_text("mine")
    third = h.run([binary, "export", made["flips"], "--hls", out, "--force"])
    assert third.returncode == 0 and (out / "notes.txt").read_text() == "mine", third.stderr[-300:]
    assert sorted(x.name for x in out.iterdir()) == sorted(playlist_names(out / "index.m3u8") + ["index.m3u8", "notes.txt"])


def test_force_over_a_concat_list_with_copies_removes_the_copies_it_no_longer_names(recordings, binary):
    work, made = recordings
    folder = work / "replaced-concat"
    first = h.run([binary, "export", made["hevc"], "--concat", folder / "l.ffconcat"])
    assert first.returncode == 0 and len(list((folder / "l-files").iterdir())) == 30, first.stderr[-300:]
    second = h.run([binary, "export", made["long"], "--concat", folder / "l.ffconcat", "--force"])
    # The new list reaches the other recording's 3 files through links of the same names
    # (a `../` path is not safe for the concat demuxer), which replace 3 of the 30 copies.
    assert second.returncode == 0 and "27 file(s) of the replaced list it no longer names removed" in second.stdout, second.stdout
    assert sorted(x.name for x in (folder / "l-files").iterdir()) == [f"segment-{i:03d}.mp4" for i in range(3)]
    assert all((folder / "l-files" / f"segment-{i:03d}.mp4").is_symlink() for i in range(3))
    assert frames_read(folder / "l.ffconcat") == 1798


@pytest.mark.parametrize("option", [["--hls-discontinuities"], ["--wall-clock", "2026-11-30T08:00:00Z"], ["--hls-segment-duration", "2"]],
                         ids=["discontinuities", "wall-clock", "segment-duration"])
def test_an_hls_option_without_any_output_names_hls(recordings, binary, option):
    work, made = recordings
    r = h.run([binary, "export", made["flips"]] + option)
    assert r.returncode == 64 and f"{option[0]} needs --hls" in r.stderr, r.stderr
    c = h.run([binary, "export", made["flips"], "--canvas", "640x480"])
    assert c.returncode == 64 and "--canvas needs --mp4" in c.stderr, c.stderr


def test_a_tagged_export_warns_that_vlc_3_stops_at_the_first_tag(recordings, binary):
    work, made = recordings
    tagged = h.run([binary, "export", made["flips"], "--hls", work / "tagged", "--hls-discontinuities"])
    assert tagged.returncode == 0 and "29 EXT-X-DISCONTINUITY tag(s) written" in tagged.stderr and "VLC 3 stops" in tagged.stderr, tagged.stderr
    plain = h.run([binary, "export", made["flips"], "--hls", work / "plain"])
    assert plain.returncode == 0 and "VLC" not in plain.stderr, plain.stderr


# ---- found by trying the exports cold (stop 51) ----

@pytest.mark.parametrize("output", ["--mp4", "--concat", "--hls"])
def test_force_never_replaces_a_fifo(recordings, binary, tmp_path, output):
    """An export writes regular files only: a FIFO (like a device: `--mp4 /dev/null --force`
    replaced the real /dev/null as root in the build before) is refused, --force or not,
    and stays what it was."""
    import os
    import stat
    work, made = recordings
    target = tmp_path / {"--mp4": "x.mp4", "--concat": "x.ffconcat", "--hls": "x.m3u8"}[output]
    os.mkfifo(target)
    for force in ([], ["--force"]):
        r = h.run([binary, "export", made["flips"], output, target] + force)
        assert r.returncode == 73 and "is a FIFO" in r.stderr and "regular files only" in r.stderr, (r.returncode, r.stderr)
        assert stat.S_ISFIFO(os.lstat(target).st_mode)


def test_an_interrupted_concat_export_with_links_and_copies_blocks_no_rerun(binary, tmp_path):
    """A list outside its recording folder whose files turn differently needs both links
    (plain files) and in-band copies (turned ones) in LIST-files/: the links are staged as
    `.partial` like the copies, so a kill leaves nothing under a listed name (the build
    before left a link that made every rerun without --force exit 73)."""
    rec = tmp_path / "rot"
    r = h.run([binary, "record", "--source", "synthetic", "--scenario", h.SAMPLE_STREAMS / "orientation" / "rotated-group-selfie.json",
               "--output", rec, "--preset", "ultrafast", "--quiet"])
    assert r.returncode == 0, r.stderr[-300:]
    full = h.run([binary, "export", rec, "--concat", tmp_path / "whole" / "l.ffconcat"])
    assert full.returncode == 0 and "through symbolic links" in full.stdout and "with their turn in band" in full.stdout, full.stdout
    folder = tmp_path / "killed"
    code, left, early = interrupted(binary, [rec, "--concat", folder / "l.ffconcat"], folder / "l-files", signal.SIGKILL)
    if early:
        assert all(n.endswith(".partial") for n in left), left
    else:
        # The export finished before the kill: model what a kill between the link and the copy leaves.
        (folder / "l.ffconcat").unlink()
        for entry in (folder / "l-files").iterdir():
            entry.rename(entry.with_name(entry.name + ".partial"))
    again = h.run([binary, "export", rec, "--concat", folder / "l.ffconcat"])
    assert again.returncode == 0, (again.returncode, again.stderr[-400:])
    assert sorted(x.name for x in (folder / "l-files").iterdir()) == sorted(x.name for x in (tmp_path / "whole" / "l-files").iterdir())
    m = h.load_manifest(rec)
    assert frames_read(folder / "l.ffconcat") == m["frames"]["written"]


def test_force_never_replaces_another_recordings_files(recordings, binary, tmp_path):
    """A folder named LIST-files that holds another recording (its manifest.json) keeps its
    segments: the build before replaced them with links to the exported recording's files."""
    import shutil
    work, made = recordings
    shutil.copytree(made["flips"], tmp_path / "z-files")
    before = h.tree_digest(tmp_path / "z-files")
    r = h.run([binary, "export", made["long"], "--concat", tmp_path / "z.ffconcat", "--force"])
    assert r.returncode == 73 and "is a file of the recording in" in r.stderr, (r.returncode, r.stderr)
    assert h.tree_digest(tmp_path / "z-files") == before
    assert not (tmp_path / "z.ffconcat").exists()


def test_force_over_a_list_of_links_removes_the_links_it_no_longer_names(recordings, binary, tmp_path):
    work, made = recordings
    first = h.run([binary, "export", made["flips"], "--concat", tmp_path / "l.ffconcat"])
    assert first.returncode == 0 and "30 file(s) listed through symbolic links" in first.stdout, first.stdout
    second = h.run([binary, "export", made["long"], "--concat", tmp_path / "l.ffconcat", "--force"])
    assert second.returncode == 0 and "27 file(s) of the replaced list it no longer names removed" in second.stdout, second.stdout
    assert sorted(x.name for x in (tmp_path / "l-files").iterdir()) == [f"segment-{i:03d}.mp4" for i in range(3)]
    assert frames_read(tmp_path / "l.ffconcat") == 1798


@pytest.mark.parametrize("name", ["my list.m3u8", "café.m3u8", "50%.m3u8"])
def test_a_playlist_name_that_needs_escaping_still_plays_in_ffmpeg(recordings, binary, tmp_path, name):
    """FFmpeg's hls demuxer (ffprobe, mpv) opens a relative URI as written, without
    percent-decoding: the files beside a playlist are named so that no URI needs escaping
    (the build before wrote `my%20list-…` and ffprobe read no frame)."""
    work, made = recordings
    playlist = tmp_path / name
    r = h.run([binary, "export", made["flips"], "--hls", playlist])
    assert r.returncode == 0, r.stderr[-300:]
    assert all("%" not in n for n in playlist_names(playlist)), playlist_names(playlist)
    assert frames_read(playlist) == 91
    mpv = h.run(["mpv", "--no-config", "--vo=null", "--ao=null", "--frames=200", "--msg-level=all=error", str(playlist)])
    assert mpv.returncode == 0, mpv.stderr[-300:]


@pytest.mark.parametrize("outputs", [
    ("--hls", "same.out", "--concat", "./same.out"), ("--concat", "same.out", "--mp4", "same.out"), ("--hls", "same.out", "--mp4", "same.out"),
    ("--hls", "d", "--concat", "d/segment-000-init.mp4"), ("--hls", "p.m3u8", "--mp4", "p-segment-003-0.m4s"),
    ("--mp4", "z.mp4", "--concat", "z.mp4.partial"), ("--concat", "l.ffconcat", "--mp4", "l-files/segment-000.mp4"),
], ids=["hls-concat", "concat-mp4", "hls-folder-mp4", "list-on-an-init-section", "mp4-on-a-media-segment", "list-on-a-partial",
        "mp4-in-list-files"])
def test_two_outputs_never_write_the_same_file(recordings, binary, tmp_path, outputs):
    """Neither output's paths may be a file the other writes or stages (the build before
    checked nothing: the second output replaced the first's init section, media segment or
    partial file and both summaries said they were written)."""
    work, made = recordings
    a, pa, b, pb = outputs
    r = h.run([binary, "export", made["flips"], a, tmp_path / pa, b, tmp_path / pb, "--force"])
    assert r.returncode == 64 and "would write the same file" in r.stderr, (r.returncode, r.stderr)
    assert list(tmp_path.iterdir()) == []


def test_mp4_force_keeps_the_earlier_file_until_the_new_one_is_whole(recordings, binary, tmp_path):
    """`--mp4 FILE --force` writes and finishes under FILE.export and renames it over FILE
    at the end (the build before removed FILE first: a stopped or failed export lost it)."""
    work, made = recordings
    out = tmp_path / "m.mp4"
    assert h.run([binary, "export", made["flips"], "--mp4", out]).returncode == 0
    before = out.read_bytes()
    p = subprocess.Popen([str(binary), "export", str(made["long"]), "--mp4", str(out), "--force"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None and out.exists() and not (tmp_path / "m.mp4.export.partial").exists():
        time.sleep(0.001)
    time.sleep(0.2)
    assert p.poll() is None, "the export finished before it could be stopped"
    p.send_signal(signal.SIGINT)
    p.wait(timeout=60)
    assert out.read_bytes() == before
    again = h.run([binary, "export", made["long"], "--mp4", out, "--force"])
    assert again.returncode == 0, again.stderr[-300:]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["m.mp4"]
    assert frames_read(out) == 1798


@pytest.mark.parametrize("kind", ["hls", "concat"])
def test_a_replacement_stopped_while_renaming_blocks_no_rerun(recordings, binary, tmp_path, kind):
    """A forced replacement sets the earlier playlist (list) aside at its `.partial` name
    before it renames its files, so a stop during the renames leaves no playlist naming a
    mix of earlier and new files; the next export, without --force, finishes the job. The
    state is made by hand: the earlier playlist set aside, some files already replaced."""
    work, made = recordings
    if kind == "hls":
        main, arg = tmp_path / "o" / "index.m3u8", tmp_path / "o"
        first = h.run([binary, "export", made["long"], "--hls", arg])
        named = [main.parent / n for n in playlist_names(main)]
    else:
        main = arg = tmp_path / "c.ffconcat"
        first = h.run([binary, "export", made["hevc"], "--concat", arg])
        named = sorted((tmp_path / "c-files").iterdir())
    assert first.returncode == 0, first.stderr[-300:]
    main.rename(main.with_name(main.name + ".partial"))
    named[0].write_bytes(b"already replaced by the new export")
    source = made["flips"] if kind == "hls" else made["long"]
    again = h.run([binary, "export", source, f"--{kind}", arg])
    assert again.returncode == 0, (again.returncode, again.stderr[-300:])
    assert not list(main.parent.rglob("*.partial"))
    expected = 91 if kind == "hls" else 1798
    assert frames_read(main) == expected
    if kind == "hls":
        assert sorted(x.name for x in main.parent.iterdir()) == sorted(playlist_names(main) + ["index.m3u8"])
    else:
        # The earlier list's 30 HEVC copies are gone; the new list names 3 links.
        assert sorted(x.name for x in (tmp_path / "c-files").iterdir()) == [f"segment-{i:03d}.mp4" for i in range(3)]


def test_report_of_a_segment_cut_short_is_a_data_error(recordings, binary, tmp_path):
    import shutil
    work, made = recordings
    rec = tmp_path / "cut"
    shutil.copytree(made["flips"], rec)
    with open(rec / "segment-007.mp4", "r+b") as f:
        f.truncate(1000)
    r = h.run([binary, "report", rec])
    assert r.returncode == 65 and "segment-007.mp4" in r.stderr and "cut short" in r.stderr, (r.returncode, r.stderr)
    c = h.run([binary, "export", rec, "--concat", tmp_path / "l.ffconcat"])
    assert c.returncode == 65 and "byteCount" in c.stderr and not (tmp_path / "l.ffconcat").exists(), (c.returncode, c.stderr)


@pytest.mark.parametrize("text", ["2026-02-30T08:00:00Z", "2026-11-30T24:00:00Z", "2026-11-31T08:00:00+01:00"])
def test_a_wall_clock_that_does_not_exist_is_refused(recordings, binary, tmp_path, text):
    work, made = recordings
    r = h.run([binary, "export", made["flips"], "--hls", tmp_path / "h", "--wall-clock", text])
    assert r.returncode == 64 and "--wall-clock" in r.stderr, (r.returncode, r.stderr)
    ok = h.run([binary, "export", made["flips"], "--hls", tmp_path / "h", "--wall-clock", "2024-02-29T23:59:59-08:00"])
    assert ok.returncode == 0 and "#EXT-X-PROGRAM-DATE-TIME:2024-03-01T07:59:59.000Z" in (tmp_path / "h" / "index.m3u8").read_text()


def test_a_report_replaced_with_force_and_killed_leaves_the_earlier_report_whole(recordings, binary, tmp_path):
    """`report --force` stopped midway keeps the earlier page and every earlier poster (the
    build before removed the page and the posters first: a kill left a folder without its
    page and with some posters missing)."""
    import shutil
    work, made = recordings
    rec = tmp_path / "flips"
    shutil.copytree(made["flips"], rec)
    first = h.run([binary, "report", rec])
    assert first.returncode == 0, first.stderr[-300:]
    page = (rec / "report.html").read_bytes()
    posters = {p.name: p.read_bytes() for p in (rec / "report-posters").iterdir()}
    assert len(posters) == 30
    p = subprocess.Popen([str(binary), "report", str(rec), "--force"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    # Killed once it has begun replacing: a poster written, or the page gone.
    while (time.time() < deadline and p.poll() is None and (rec / "report.html").exists()
           and not any(x.name.endswith(".partial") for x in (rec / "report-posters").iterdir())):
        time.sleep(0.0005)
    assert p.poll() is None, "the report finished before it could be stopped"
    p.kill()
    p.wait(timeout=60)
    assert (rec / "report.html").read_bytes() == page
    assert {x.name: x.read_bytes() for x in (rec / "report-posters").iterdir() if not x.name.endswith(".partial")} == posters
    again = h.run([binary, "report", rec, "--force"])
    assert again.returncode == 0, again.stderr[-300:]
    assert sorted(x.name for x in (rec / "report-posters").iterdir()) == sorted(posters)


@pytest.mark.parametrize("output", ["--hls", "--mp4"])
def test_a_segment_cut_short_after_recording_is_named_with_the_check_to_run(recordings, binary, tmp_path, output):
    """A segment file cut short after recording (its sound gone) is a data error (65) that
    says the file was damaged and which command checks the recording (the build before said
    only that the file holds 0 sample frames)."""
    import shutil
    work, made = recordings
    rec = tmp_path / "cut"
    shutil.copytree(made["flips"], rec)
    with open(rec / "segment-003.mp4", "r+b") as f:
        f.truncate(100_000)
    r = h.run([binary, "export", rec, output, tmp_path / ("out.mp4" if output == "--mp4" else "hls")])
    assert r.returncode == 65 and "segment-003.mp4" in r.stderr and "cut short" in r.stderr and "segrec verify" in r.stderr, r.stderr


def test_a_replacement_stopped_after_its_playlist_is_in_place_leaves_nothing_stale(recordings, binary, tmp_path):
    """Stopped after the new playlist is in place but before the earlier one (set aside at
    `index.m3u8.partial`) is read and removed: the next forced export removes the files the
    set-aside playlist named as well (the build of the first fix read only the playlist in
    place, and 16 of the earlier export's media segments stayed for good). Made by hand."""
    import shutil
    work, made = recordings
    o, new = tmp_path / "o", tmp_path / "new"
    assert h.run([binary, "export", made["long"], "--hls", o]).returncode == 0
    shutil.copy(o / "index.m3u8", o / "index.m3u8.partial")
    assert h.run([binary, "export", made["flips"], "--hls", new]).returncode == 0
    for f in new.iterdir():
        shutil.copy(f, o / f.name)
    again = h.run([binary, "export", made["flips"], "--hls", o, "--force"])
    assert again.returncode == 0, again.stderr[-300:]
    assert sorted(x.name for x in o.iterdir()) == sorted(playlist_names(o / "index.m3u8") + ["index.m3u8"])
    assert frames_read(o / "index.m3u8") == 91


@pytest.mark.parametrize("other", [("--hls", "o.mp4.ex.m3u8"), ("--hls", "o.mp4.export.m3u8"), ("--concat", "o.mp4.export.ffconcat")])
def test_names_that_only_begin_like_the_mp4_files_are_not_a_clash(recordings, binary, tmp_path, other):
    work, made = recordings
    r = h.run([binary, "export", made["flips"], "--mp4", tmp_path / "o.mp4", other[0], tmp_path / other[1]])
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert frames_read(tmp_path / other[1]) == 91 and frames_read(tmp_path / "o.mp4") == 91
