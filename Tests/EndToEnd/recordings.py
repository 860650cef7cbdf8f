"""The recordings several tests share: each is described once here by a key (its test id)
and made by `Recordings.get(key)` the first time a test asks for it in a session."""
import json
import pathlib
import subprocess

import pytest

import e2e_helpers as h


class Spec:
    def __init__(self, key, args, mode="segment", needs=(), stdin=None, recording_checks=True):
        self.key = key
        self.args = args            # (work folder) -> arguments after `segrec record`, without --output
        self.mode = mode            # segment or stop-on-change: what check_recording-style tests expect
        self.needs = list(needs)    # files that must exist (shared footage): the tests skip without them
        self.stdin = stdin          # a file given on standard input
        self.recording_checks = recording_checks


SPECS = {}


def spec(key, args, **kw):
    SPECS[key] = Spec(key, args, **kw)


class Recording:
    def __init__(self, key, out, proc):
        self.key, self.out, self.proc = key, out, proc
        self.stdout = proc.stdout.decode(errors="replace")
        self.stderr = proc.stderr.decode(errors="replace")
        self.returncode = proc.returncode
        self._manifest = None

    @property
    def manifest(self):
        if self._manifest is None:
            self._manifest = h.load_manifest(self.out)
        return self._manifest

    @property
    def segments(self):
        return self.manifest["segments"]

    def segment(self, index):
        segs = self.segments
        assert index < len(segs), (f"{self.key} has {len(segs)} segments, segment_layout.json lists more "
                                   f"(rerun with --update-layout -k test_segment_layout if that is intended)")
        return segs[index]


class Recordings:
    def __init__(self, binary, base):
        self.binary, self.base, self.done = binary, pathlib.Path(base), {}

    def get(self, key):
        """The recording `key` (made now if this is the first use); skips when its footage is absent."""
        s = SPECS[key]
        missing = [str(p) for p in s.needs if not pathlib.Path(p).exists()]
        if missing:
            pytest.skip(f"{', '.join(missing)} absent (../shared is not here)")
        if key not in self.done:
            slug = key.replace("/", "_").replace("+", "-").replace(" ", "-")
            work = self.base / slug
            work.mkdir(parents=True, exist_ok=True)
            out = work / "out"
            stdin = open(s.stdin, "rb") if s.stdin else subprocess.DEVNULL
            try:
                proc = subprocess.run([self.binary, "record", *map(str, s.args(work)), "--output", str(out)],
                                      capture_output=True, stdin=stdin)
            finally:
                if s.stdin:
                    stdin.close()
            self.done[key] = Recording(key, out, proc)
        return self.done[key]

    def ok(self, key):
        """The recording `key`, which must have exited 0."""
        rec = self.get(key)
        assert rec.returncode == 0, f"segrec record for {key} exited {rec.returncode}: {rec.stderr.strip()[-600:]}"
        return rec


# ---- SampleStreams scenarios in both modes, and the built-in default (synthetic source) ----
SCENARIOS = sorted(h.SAMPLE_STREAMS.glob("*.json"))
MODES = ("segment", "stop-on-change")
SCENARIO_NAMES = [s.stem for s in SCENARIOS] + ["built-in"]
for _name in SCENARIO_NAMES:
    for _mode in MODES:
        _scenario = [] if _name == "built-in" else ["--scenario", h.SAMPLE_STREAMS / f"{_name}.json"]
        spec(f"{_name}/{_mode}", lambda work, a=_scenario, m=_mode: ["--source", "synthetic", *a, "--mode", m,
                                                                     "--preset", "ultrafast", "--quiet"], mode=_mode)
SCENARIO_KEYS = [f"{n}/{m}" for n in SCENARIO_NAMES for m in MODES]

# ---- real footage from ../shared/samples ----
spec("phone+tap-to-rotate", lambda work: ["--source", h.PHONE, "--scenario", h.SAMPLE_STREAMS / "tap-to-rotate.json",
                                          "--stamp-frame-index", "--preset", "ultrafast", "--quiet"], needs=[h.PHONE])
spec("phone-pass-through", lambda work: ["--source", h.PHONE, "--preset", "ultrafast", "--quiet"], needs=[h.PHONE])
spec("bus-raw-yuv", lambda work: ["--source", h.BUS, "--video-size", "352x288", "--pixel-format", "yuv420p",
                                  "--framerate", "30", "--preset", "ultrafast", "--quiet"], needs=[h.BUS])
spec("park_joy-y4m-on-stdin", lambda work: ["--source", "-", "--preset", "ultrafast", "--quiet"], needs=[h.PARK],
     stdin=h.PARK)
FOOTAGE_KEYS = ["phone+tap-to-rotate", "phone-pass-through", "bus-raw-yuv", "park_joy-y4m-on-stdin"]

# ---- recorded for export / report only (veryfast) ----
spec("export/rapid-flips-hevc", lambda work: ["--source", "synthetic", "--scenario", h.SAMPLE_STREAMS / "rapid-flips.json",
                                              "--codec", "hevc", "--preset", "veryfast", "--quiet"], recording_checks=False)
spec("export/park_joy+early-completion",
     lambda work: ["--source", h.PARK, "--scenario", h.SAMPLE_STREAMS / "early-completion.json", "--stamp-frame-index",
                   "--preset", "veryfast", "--quiet"], needs=[h.PARK], recording_checks=False)
spec("export/park_joy-pass-through", lambda work: ["--source", h.PARK, "--stamp-frame-index", "--preset", "veryfast",
                                                   "--quiet"], needs=[h.PARK], recording_checks=False)

# ---- the Duo cameras ----
DUO = sorted((h.SAMPLE_STREAMS / "duo").glob("*.json"))
for _p in DUO:
    spec(f"duo/{_p.stem}", lambda work, p=_p: ["--scenario", p, "--preset", "ultrafast", "--mirror", "auto", "--quiet"])
DUO_KEYS = [f"duo/{p.stem}" for p in DUO]
spec("duo/footage", lambda work: ["--scenario", h.SAMPLE_STREAMS / "duo" / "flip-to-back.json", "--source", h.PARK,
                                  "--camera-source", f"back={h.PARK}", "--stamp-frame-index", "--preset", "ultrafast",
                                  "--quiet"], needs=[h.PARK])

# ---- orientation and formats ----
ORIENTATION = sorted((h.SAMPLE_STREAMS / "orientation").glob("*.json"))
for _p in ORIENTATION:
    spec(f"orientation/{_p.stem}", lambda work, p=_p: ["--scenario", p, "--preset", "ultrafast", "--quiet"])
ORIENTATION_KEYS = [f"orientation/{p.stem}" for p in ORIENTATION]
spec("orientation/rate-change",
     lambda work: ["--scenario", h.write_json(work / "rate-change.json", {
         "device": {"format": 1920, "fps": 60, "initialAspectRatio": "16x9"},
         "durationSeconds": 0.6, "events": [{"atSeconds": 0.2, "activeFormat": 3840}]}),
         "--preset", "ultrafast", "--quiet"])
spec("orientation/--split-on-rotation",
     lambda work: ["--scenario", h.SAMPLE_STREAMS / "orientation" / "rotated-group-selfie.json", "--split-on-rotation",
                   "--preset", "ultrafast", "--quiet"])


def _rate_scenario(fps):
    return {"device": {"format": 1280, "fps": fps, "initialAspectRatio": "16x9",
                       "clock": {"timescale": 24000000, "offsetSeconds": 1.5, "driftPPM": 10}},
            "sessionStartSeconds": 2.0, "durationSeconds": max(2.0, 20 / fps),
            "events": [{"atSeconds": max(1.0, 10 / fps), "setDynamicAspectRatio": "4x3"}]}


# ---- HEVC at low frame rates ----
spec("hevc/smart-framing-15-fps", lambda work: ["--scenario", h.SAMPLE_STREAMS / "smart-framing-group-selfie.json",
                                                "--codec", "hevc", "--preset", "veryfast", "--quiet"],
     recording_checks=False)
HEVC_KEYS = ["hevc/smart-framing-15-fps"]
for _fps in (2, 7, 15, 18):
    spec(f"hevc/{_fps}-fps", lambda work, f=_fps: ["--scenario", h.write_json(work / f"rate-{f}.json", _rate_scenario(f)),
                                                   "--codec", "hevc", "--preset", "veryfast", "--quiet"],
         recording_checks=False)
    HEVC_KEYS.append(f"hevc/{_fps}-fps")

# Every recording the check_recording-style tests read back (test_recordings.py).
RECORDING_KEYS = [k for k, s in SPECS.items() if s.recording_checks]
