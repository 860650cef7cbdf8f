"""A multi-file HLS export plays every frame in VLC 3, GStreamer's playbin and mpv (issue 46
item 2).

VLC 3 stopped every multi-file export at the first EXT-X-DISCONTINUITY: its HLS parser keeps
only the playlist's first EXT-X-MAP, and at a discontinuity its adaptive demuxer ends the MP4
demuxer and opens a new one on the next media segment without sending an initialization
section again (`mp4 stream error: no moov before mdat and the stream is not seekable`,
`adaptive demux error: Failed to create demuxer`, then EOF): 2 of 91 and 2 of 154 pictures
decoded. The export now writes no EXT-X-DISCONTINUITY by default (the files' timestamps,
tracks and format continue; `--hls-discontinuities` adds the tags for browsers), and VLC's
one MP4 demuxer reads every file's fragments.

Two recordings with sound: rapid-flips (30 files, 720x1280 and 1280x720 in turn, 91 frames)
and the Duo sample individual-open-close (3 files, 2160x3840, 1080x1920, 2160x3840 across
two camera switches, 154 frames). Each player must decode every frame the manifest counts.
"""
import shutil
import subprocess

import pytest

import e2e_helpers as h
import players

RECORDINGS = {"rapid-flips": h.SAMPLE_STREAMS / "rapid-flips.json",
              "duo-individual-open-close": h.SAMPLE_STREAMS / "duo" / "individual-open-close.json"}


@pytest.fixture(scope="module", params=list(RECORDINGS))
def exported(request, binary):
    folder = players.shared_folder("segrec-hls-players-")
    rec = folder / "rec"
    made = h.run([binary, "record", "--source", "synthetic", "--scenario", RECORDINGS[request.param], "--output", rec,
                  "--preset", "ultrafast", "--quiet"])
    assert made.returncode == 0, made.stderr[-400:]
    out = h.run([binary, "export", rec, "--hls", folder / "hls"])
    assert out.returncode == 0, out.stderr[-400:]
    players.open_to_all(folder)
    m = h.load_manifest(rec)
    assert len(m["segments"]) >= 3 and all(s.get("audio") for s in m["segments"]), request.param
    yield request.param, folder, folder / "hls" / "index.m3u8", m
    shutil.rmtree(folder, ignore_errors=True)


def expected_sizes(m):
    return [(s["width"], s["height"]) for s in m["segments"] for _ in range(s["frameCount"])]


def test_the_playlist_has_a_map_per_file_and_no_discontinuity(exported):
    name, folder, playlist, m = exported
    lines = playlist.read_text().splitlines()
    assert sum(l.startswith("#EXT-X-MAP:") for l in lines) == len(m["segments"]) and "#EXT-X-DISCONTINUITY" not in lines


@players.needs_vlc
def test_vlc_decodes_every_frame(exported):
    name, folder, playlist, m = exported
    decoded, log = players.vlc_decoded_frames(playlist, folder)
    stopped = "its MP4 demuxer failed (no moov)" if "Failed to create demuxer" in log else ""
    assert decoded == m["frames"]["written"] and not stopped, f"{name}: cvlc decoded {decoded} of {m['frames']['written']} pictures {stopped}"


@players.needs_gst
def test_gstreamer_playbin_shows_every_frame(exported):
    name, folder, playlist, m = exported
    try:
        shown, code, log = players.playbin_frames(playlist)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: gst-launch-1.0 playbin did not finish within 120 s")
    assert code == 0 and shown == m["frames"]["written"], (name, code, shown, log[-300:])


@players.needs_mpv
def test_mpv_decodes_every_frame_at_its_files_size(exported):
    name, folder, playlist, m = exported
    sizes, log = players.mpv_frame_sizes(playlist)
    assert players.runs(sizes) == players.runs(expected_sizes(m)), (name, players.runs(sizes)[:6], log[-300:])


def test_ffprobe_reads_every_frame(exported):
    name, folder, playlist, m = exported
    out = h.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                 "-of", "csv=p=0", playlist])
    # The HLS demuxer's program lists the stream again: every count the same.
    counts = {int(x) for x in out.stdout.split()}
    assert out.returncode == 0 and counts == {m["frames"]["written"]}, (name, out.stdout, out.stderr[-300:])


def test_hls_discontinuities_writes_the_tags_for_browsers(exported, binary):
    """`--hls-discontinuities`: the same files with EXT-X-DISCONTINUITY before each file after
    the first (Chromium's native HLS needs them: Scripts/browser-test via test_export_report.py)."""
    name, folder, playlist, m = exported
    out = h.run([binary, "export", folder / "rec", "--hls", folder / "tagged", "--hls-discontinuities"])
    assert out.returncode == 0 and f"{len(m['segments']) - 1} discontinuities" in out.stdout, out.stdout + out.stderr[-300:]
    lines = (folder / "tagged" / "index.m3u8").read_text().splitlines()
    assert lines.count("#EXT-X-DISCONTINUITY") == len(m["segments"]) - 1
    assert [l for l in lines if l != "#EXT-X-DISCONTINUITY"] == playlist.read_text().splitlines()
    alone = h.run([binary, "export", folder / "rec", "--concat", folder / "x.ffconcat", "--hls-discontinuities"])
    assert alone.returncode == 64 and "--hls-discontinuities needs --hls" in alone.stderr, alone.stderr
