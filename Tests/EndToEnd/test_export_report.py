"""`segrec export --hls / --concat` and `segrec report` on the shared recordings (issue 16):
both exports decode (ffmpeg) to the manifest's total frame count with every frame's size and
index stamp in order; the playlist's tags are right (version 7, an EXT-X-MAP per file, with
--hls-discontinuities a discontinuity at every change, exact EXTINF, TARGETDURATION = ceil of the longest); the
fMP4 copies the packets (no re-encode); the report's HTML has a bar per segment with the
manifest's sizes, a poster (JPEG written by libavcodec, checked by ffprobe) and a <video>
per segment and no network reference; then Scripts/browser-test checks the pages and three
playlists in headless Chromium."""
import functools
import math
import pathlib
import re
import subprocess
from fractions import Fraction
from html.parser import HTMLParser

import pytest

import e2e_helpers as h
import recordings as catalog

# (key, stamped): every frame carries the frame-index stamp in all of them.
EXPORT_KEYS = ([f"{s.stem}/segment" for s in catalog.SCENARIOS] + ["built-in/segment", "rapid-flips/stop-on-change",
               "export/rapid-flips-hevc", "export/park_joy+early-completion", "export/park_joy-pass-through"])
STAMPED = {k: True for k in EXPORT_KEYS}
BROWSER_HLS = ("rapid-flips/segment", "export/park_joy+early-completion", "export/rapid-flips-hevc")
WALL_CLOCK = "2026-11-30T08:00:00.000Z"


class Export:
    def __init__(self, rec, work, binary):
        self.rec, self.folder = rec, rec.out
        self.manifest = rec.manifest
        self.segments = self.manifest["segments"]
        self.hls_dir = work / "hls"
        self.ffconcat = work / "lists" / "all.ffconcat"
        self.work, self.binary = work, binary
        # With the discontinuity tags: the form Chromium's native HLS plays (browser-test below).
        self.proc = h.run([binary, "export", self.folder, "--hls", self.hls_dir, "--concat", self.ffconcat,
                           "--wall-clock", WALL_CLOCK, "--hls-discontinuities"])
        self._report = None
        self._decoded = {}

    def ok(self):
        assert self.proc.returncode == 0, f"export exited {self.proc.returncode}: {self.proc.stderr.strip()[-500:]}"
        return self

    @functools.cached_property
    def lines(self):
        return (self.hls_dir / "index.m3u8").read_text().splitlines()

    @functools.cached_property
    def extinf(self):
        return [Fraction(l.split(":")[1].split(",")[0]) for l in self.lines if l.startswith("#EXTINF:")]

    def decoded(self, kind):
        if kind not in self._decoded:
            args = {"hls": ["-i", str(self.hls_dir / "index.m3u8")],
                    "concat": ["-f", "concat", "-safe", "0", "-i", str(self.ffconcat)]}[kind]
            self._decoded[kind] = h.read_stamps(args)
        return self._decoded[kind]

    def report(self):
        if self._report is None:
            self._report = h.run([self.binary, "report", self.folder])
        assert self._report.returncode == 0, f"report exited {self._report.returncode}: {self._report.stderr.strip()[-500:]}"
        return (self.folder / "report.html").read_text()


@pytest.fixture(scope="module")
def exports(recordings, binary, tmp_path_factory):
    base = tmp_path_factory.mktemp("exports")
    done = {}

    def get(key):
        if key not in done:
            rec = recordings.ok(key)
            work = base / key.replace("/", "_").replace("+", "-")
            work.mkdir()
            done[key] = Export(rec, work, binary)
        return done[key]
    return get


keyed = pytest.mark.parametrize("key", EXPORT_KEYS)
EXPORT_ONLY = [k for k in EXPORT_KEYS if k.startswith("export/")]


@pytest.mark.parametrize("key", EXPORT_ONLY)
def test_export_recording_exits_0(recordings, key):
    """The recordings made for export and report only (the others are checked in test_recordings.py)."""
    rec = recordings.get(key)
    assert rec.returncode == 0, rec.stderr.strip()[-400:]


@keyed
def test_export_hls_concat_exits_0(exports, key):
    exports(key).ok()


@keyed
def test_hls_header_vod_version_7_endlist(exports, key):
    lines = exports(key).ok().lines
    assert lines[:2] == ["#EXTM3U", "#EXT-X-VERSION:7"] and "#EXT-X-PLAYLIST-TYPE:VOD" in lines \
        and lines[-1] == "#EXT-X-ENDLIST", lines[:6]


@keyed
def test_hls_extinf_of_each_file_adds_up_to_its_exact_duration(exports, key):
    """A file's media segments (`segment-000-0.m4s`, `-1`, ...) last its exact duration together."""
    e = exports(key).ok()
    uris = [l for l in e.lines if l and not l.startswith("#")]
    per_file = {}
    for uri, extinf in zip(uris, e.extinf):
        per_file.setdefault(uri.rsplit("-", 1)[0], []).append(extinf)
    got = [sum(per_file.get(s["file"].rsplit(".", 1)[0], [])) for s in e.segments]
    expected = [h.exact_duration(s) for s in e.segments]
    assert got == expected and len(uris) == len(e.extinf), f"{got[:4]} vs {expected[:4]}"


@keyed
def test_hls_targetduration_is_ceil_of_max_extinf(exports, key):
    e = exports(key).ok()
    target = int(next(l for l in e.lines if l.startswith("#EXT-X-TARGETDURATION:")).split(":")[1])
    assert target == max(1, math.ceil(max(e.extinf))), target


@keyed
def test_hls_an_ext_x_map_per_file(exports, key):
    e = exports(key).ok()
    maps = [l for l in e.lines if l.startswith("#EXT-X-MAP:")]
    assert len(maps) == len(e.segments), f"{len(maps)} maps"


@keyed
def test_hls_discontinuity_at_each_size_or_camera_change(exports, key):
    e = exports(key).ok()
    segments = e.segments
    # Every change (size or camera) is preceded by a discontinuity: walk the tags in order.
    disc_before, pending = [], False
    for l in e.lines:
        if l == "#EXT-X-DISCONTINUITY":
            pending = True
        elif l and not l.startswith("#"):
            if l.endswith("-0.m4s"):  # a file's first media segment
                disc_before.append(pending)
            else:
                assert not pending, f"a discontinuity inside a file, before {l}"
            pending = False
    changes = [i for i in range(1, len(segments)) if (segments[i]["width"], segments[i]["height"], segments[i].get("camera"))
               != (segments[i - 1]["width"], segments[i - 1]["height"], segments[i - 1].get("camera"))]
    assert all(disc_before[i] for i in changes) and not disc_before[0], f"{len(changes)} changes: {disc_before}"


@keyed
def test_hls_program_date_time_per_segment_from_wall_clock(exports, key):
    e = exports(key).ok()
    pdt = [l.split(":", 1)[1] for l in e.lines if l.startswith("#EXT-X-PROGRAM-DATE-TIME:")]
    assert len(pdt) == len(e.segments) and pdt[0] == WALL_CLOCK, pdt[:2]


def packets(path):
    p = h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size,flags",
               "-of", "csv=p=0", path])
    return [tuple(l.split(",")[:2]) for l in p.stdout.split()]


@keyed
def test_hls_last_file_remuxed_not_reencoded(exports, key):
    """Per file, packets of the fMP4 pair equal the MP4's (same count; same bytes except
    keyframes, which gain in-band parameter sets)."""
    e = exports(key).ok()
    seg0 = e.segments[-1]
    stem = seg0["file"].rsplit(".", 1)[0]
    pair = e.work / "pair.mp4"
    parts = sorted(e.hls_dir.glob(f"{stem}-[0-9]*.m4s"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    pair.write_bytes((e.hls_dir / f"{stem}-init.mp4").read_bytes() + b"".join(p.read_bytes() for p in parts))
    a, b = packets(e.folder / seg0["file"]), packets(pair)
    assert len(a) == len(b) == seg0["frameCount"] and \
        [x for x in a if "K" not in x[1]] == [x for x in b if "K" not in x[1]], f"{seg0['file']}: {len(a)} vs {len(b)}"


@pytest.mark.parametrize("kind", ["hls", "concat"])
@keyed
def test_export_decodes_manifest_total_frames(exports, key, kind):
    e = exports(key).ok()
    total = sum(s["frameCount"] for s in e.segments)
    sizes, _, whole = e.decoded(kind)
    assert len(sizes) == total and whole, f"{len(sizes)} decoded of {total}, raw complete {whole}"


@pytest.mark.parametrize("kind", ["hls", "concat"])
@keyed
def test_export_every_frame_size_in_manifest_order(exports, key, kind):
    e = exports(key).ok()
    expected = h.expected_frames(e.manifest)
    sizes, _, _ = e.decoded(kind)
    assert sizes == [x[0] for x in expected], \
        f"first difference at {next((i for i, (x, y) in enumerate(zip(sizes, expected)) if x != y[0]), len(sizes))}"


@pytest.mark.parametrize("kind", ["hls", "concat"])
@keyed
def test_export_every_frame_index_stamp_in_order(exports, key, kind):
    assert STAMPED[key]
    e = exports(key).ok()
    expected = h.expected_frames(e.manifest)
    _, indices, _ = e.decoded(kind)
    assert indices == [x[1] for x in expected], f"{indices[:8]}... vs {[x[1] for x in expected][:8]}..."


@keyed
def test_second_export_without_force_exits_73(exports, binary, key):
    e = exports(key).ok()
    before = (e.hls_dir / "index.m3u8").read_bytes()
    again = h.run([binary, "export", e.folder, "--hls", e.hls_dir])
    assert again.returncode == 73 and (e.hls_dir / "index.m3u8").read_bytes() == before, \
        f"exit {again.returncode}: {again.stderr.strip()}"


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.bars, self.videos, self.sources, self.images, self.urls = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "rect" and "segment" in (a.get("class") or "").split():
            self.bars.append(a)
        if tag == "video":
            self.videos.append(a)
        if tag == "source":
            self.sources.append(a)
        if tag == "img":
            self.images.append(a)
        for k in ("src", "href", "poster"):
            if a.get(k):
                self.urls.append(a[k])


def page_of(e):
    html = e.report()
    page = Page()
    page.feed(html)
    return html, page


@keyed
def test_report_exits_0(exports, key):
    exports(key).report()


@keyed
def test_report_one_bar_per_segment_with_manifest_width_height_frames(exports, key):
    e = exports(key)
    _, page = page_of(e)
    assert [(int(b["data-width"]), int(b["data-height"]), int(b["data-frames"])) for b in page.bars] == \
        [(s["width"], s["height"], s["frameCount"]) for s in e.segments], f"{len(page.bars)} bars"


@keyed
def test_report_bar_widths_proportional_to_durations(exports, key):
    e = exports(key)
    _, page = page_of(e)
    widths = [float(b["width"]) for b in page.bars]
    durations = [float(h.exact_duration(s)) for s in e.segments]
    scale = sum(widths) / sum(durations)
    assert all(abs(w - d * scale) <= 0.05 for w, d in zip(widths, durations)), widths[:4]


@keyed
def test_report_a_video_per_segment_src_relative_and_one_for_the_whole_recording(exports, key):
    e = exports(key)
    _, page = page_of(e)
    assert [s["src"] for s in page.sources] == ["report-hls/index.m3u8"] + [s["file"] for s in e.segments] \
        and len(page.videos) == len(e.segments) + 1 and all(v.get("preload") == "none" for v in page.videos), \
        [s.get("src") for s in page.sources][:3]
    total = sum(s["frameCount"] for s in e.segments)
    counted = h.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                     "stream=nb_read_frames", "-of", "csv=p=0", e.folder / "report-hls" / "index.m3u8"]).stdout.split()
    assert counted and int(counted[0].split(",")[0]) == total, counted
    # The page's playlist is the browsers' form: a discontinuity before each file after the first.
    tags = (e.folder / "report-hls" / "index.m3u8").read_text().splitlines().count("#EXT-X-DISCONTINUITY")
    assert tags == len(e.segments) - 1, tags


@keyed
def test_report_self_contained_no_network_url(exports, key):
    e = exports(key)
    html, page = page_of(e)
    assert not any(re.match(r"^[a-z]+:", u) and not u.startswith("data:") for u in page.urls) \
        and "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html, \
        [u for u in page.urls if ":" in u][:3]


@keyed
def test_report_a_jpeg_poster_per_segment_with_its_aspect(exports, key):
    e = exports(key)
    _, page = page_of(e)
    posters = [e.folder / i["src"] for i in page.images]
    ok = len(posters) == len(e.segments)
    for p, s in zip(posters, e.segments):
        probe = h.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", p])
        codec, w, hh = (probe.stdout.strip().split(",") + ["", "", ""])[:3]
        sw, sh = (s["height"], s["width"]) if (s.get("rotationDegrees") or 0) % 180 == 90 else (s["width"], s["height"])
        ok = ok and codec == "mjpeg" and w.isdigit() and abs(int(w) / int(hh) - sw / sh) < 0.05  # upright
    assert ok, posters[:2]


def test_browser_test_headless_chromium_passes(exports):
    """Scripts/browser-test on every report page made here and on three HLS playlists."""
    reports, playlists = [], []
    for key in EXPORT_KEYS:
        if any(not pathlib.Path(p).exists() for p in catalog.SPECS[key].needs):
            continue  # footage absent: its recording is skipped elsewhere
        e = exports(key)
        if e.proc.returncode != 0:
            continue
        try:
            e.report()
        except AssertionError:
            continue
        reports.append(e.folder)
        if key in BROWSER_HLS:
            playlists.append(f"{e.hls_dir / 'index.m3u8'}@{e.manifest['frames']['written']}")
    browser = subprocess.run([str(h.ROOT / "Scripts" / "browser-test"), *map(str, reports), "--hls", *playlists],
                             capture_output=True, text=True)
    print(browser.stdout.rstrip())
    if browser.stderr.strip():
        print(browser.stderr.strip()[-1500:])
    assert browser.returncode == 0, browser.stdout.strip().splitlines()[-1:]


@keyed
def test_report_says_under_every_hevc_player_that_chromium_plays_its_sound_only(exports, key):
    """Issue 46 item 8: Chromium may call HEVC playable and then play the sound alone (no picture,
    no error), so every HEVC segment's card says so, whatever the browser answers, and names the
    H.264 export; H.264 cards say nothing of it. (The page's script also marks a video that
    loads with no picture, videoWidth 0, unplayable.)"""
    e = exports(key)
    html, _ = page_of(e)
    cards = re.findall(r'<section class="segment-card".*?</section>', html, re.S)
    codecs = [h.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                     e.folder / s["file"]]).stdout.strip() for s in e.segments]
    noted = ['class="hevc-note"' in c and "sound" in c and "export DIR --mp4" in c for c in cards]
    assert len(cards) == len(e.segments) and noted == [c == "hevc" for c in codecs], (codecs, noted)
    assert "videoWidth === 0" in html
