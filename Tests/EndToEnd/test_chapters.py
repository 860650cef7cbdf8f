"""Issue 46 item 9: segrec's session events are chapters every player lists. Each segment
file of an iPhone Duo recording (`SampleStreams/duo/individual-open-close.json`: postures,
facings, camera switches) carries an MP4 chapter per session event in its span, at the
event's session time less the file's start, within one frame, titled by the event's kind,
plus its start (titled by its start reason) when no event is there; the `export --mp4`
file carries them all on its own timeline. Read back with `ffprobe -show_chapters`; the
build before wrote no chapters."""
import json
import subprocess

import pytest

import e2e_helpers as h

SCENARIO = h.SAMPLE_STREAMS / "duo" / "individual-open-close.json"


@pytest.fixture(scope="module")
def recording(binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("chapters")
    out = work / "rec"
    r = subprocess.run([binary, "record", "--source", "synthetic", "--scenario", str(SCENARIO), "--output", str(out), "--preset", "ultrafast",
                        "--quiet"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-600:]
    return work, out, h.load_manifest(out)


def chapters_of(path):
    out = h.run(["ffprobe", "-v", "error", "-show_chapters", "-of", "json", path])
    assert out.returncode == 0, out.stderr
    return [(float(c["start_time"]), c["tags"]["title"]) for c in json.loads(out.stdout)["chapters"]]


def frame_period(seg):
    return float(h.exact_duration(seg)) / seg["frameCount"]


def test_each_file_lists_the_session_events_in_its_span(recording):
    work, out, m = recording
    events = m["events"]
    assert len(events) >= 4, "the scenario no longer has events to test"
    listed = 0
    for seg in m["segments"]:
        start, end = seg["sessionStartSeconds"], seg["sessionEndSeconds"]
        inside = [e for e in events if start <= e["sessionTimeSeconds"] < end]
        got = chapters_of(out / seg["file"])
        expected = [(e["sessionTimeSeconds"] - start, e["kind"]) for e in inside]
        if not inside or inside[0]["sessionTimeSeconds"] > start + 1e-9:
            expected.insert(0, (0.0, seg["startReason"]))
        assert len(got) == len(expected), (seg["file"], got, expected)
        for (t, title), (want_t, kind) in zip(got, expected):
            assert title.split(" ")[0] == kind, (seg["file"], title, kind)
            assert abs(t - want_t) <= frame_period(seg), (seg["file"], title, t, want_t)
        listed += len(inside)
    assert listed == len([e for e in events if e["sessionTimeSeconds"] < m["segments"][-1]["sessionEndSeconds"]])


def test_the_one_file_export_lists_every_event_on_its_timeline(recording, binary):
    work, out, m = recording
    mp4 = work / "one.mp4"
    r = h.run([binary, "export", out, "--mp4", mp4])
    assert r.returncode == 0, r.stderr[-400:]
    first = m["segments"][0]["sessionStartSeconds"]
    got = chapters_of(mp4)
    kinds = [title.split(" ")[0] for _, title in got]
    for e in m["events"]:
        if e["sessionTimeSeconds"] >= m["segments"][-1]["sessionEndSeconds"]:
            continue
        near = [t for t, title in got if title.split(" ")[0] == e["kind"] and abs(t - (e["sessionTimeSeconds"] - first)) <= 1 / 30]
        assert near, (e["kind"], e["sessionTimeSeconds"] - first, got)
    assert kinds.count("cameraSwitched") == len([e for e in m["events"] if e["kind"] == "cameraSwitched"])
