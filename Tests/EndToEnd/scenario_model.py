"""An independent exact model of Docs/DESIGN.md's timing rules, and a random scenario generator.

Written from DESIGN.md's text alone ("Time and clocks", "Dynamic aspect ratio", "Recorders",
"Cameras: iPhone Duo and switching", "Scenario files"), never from segrec's Swift code, so that
`Scripts/model-check` and test_scenario_model.py compare two readings of the contract. All time
arithmetic is on integers and fractions.Fraction: no float ever touches a time.

predict(scenario) -> Prediction: every delivered frame (delivery index, producing camera and its
position in `cameras`, grid index, device time, session time in ns, dimensions), the segments
(first frame index, count, size, exact sessionStart/sessionEnd, startReason, camera, change), the
stop-on-change stop, the requests that complete `superseded` and those that fail `unsupported`.

generate(rng) -> scenario dict (numbers as exact Fractions, written by to_json as decimals).

Where DESIGN.md leaves a tie or an end case open (a switch whose gap runs past the end of the
recording; an announcement exactly one frame from the end; a latency-0 request at a frame's
capture instant behind another kind of event less than a device tick before it; a turn and a
size change on one frame), the generator avoids it (`Ambiguous`), so every comparison is one the
contract decides. The device-tick tie rule ("Dynamic aspect ratio") is the requests' (and the
virtual swaps'): a posture switch ends the old camera at the frames whose session time is before
it, and a turn (`deviceOrientation`, one camera; `--split-on-rotation` when a scenario has one)
applies from the first frame whose session time is at or after it.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from fractions import Fraction

NS = 10**9
RATIOS = ["3x4", "4x3", "9x16", "16x9", "1x1"]


class Invalid(Exception):
    """The scenario breaks a rule DESIGN.md states: segrec must reject it."""


class Ambiguous(Exception):
    """DESIGN.md does not decide this scenario's outcome: the generator draws another."""


# ---------------------------------------------------------------- exact arithmetic

def rhaz(x: Fraction) -> int:
    """Round half away from zero (CoreMedia's default), exactly."""
    x = Fraction(x)
    n, d = abs(x.numerator), x.denominator
    q, r = divmod(n, d)
    if 2 * r >= d:
        q += 1
    return q if x >= 0 else -q


def ceil_frac(x: Fraction) -> int:
    x = Fraction(x)
    return -((-x.numerator) // x.denominator)


def dec(x) -> Fraction:
    """A JSON number or decimal string read exactly."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    return Fraction(str(x))


def parse_fps(v) -> Fraction:
    if isinstance(v, str) and "/" in v:
        a, b = v.split("/")
        return Fraction(int(a), int(b))
    return dec(v)


class Clock:
    """device_seconds = (host_seconds + offset_ns/1e9) * (1 + drift_ppb/1e9)."""

    def __init__(self, spec: dict | None):
        spec = spec or {}
        self.ts = int(spec.get("timescale", 1_000_000_000))
        self.off = rhaz(dec(spec.get("offsetSeconds", 0)) * NS)
        self.ppb = rhaz(dec(spec.get("driftPPM", 0)) * 1000)

    def to_device(self, host_ns: int) -> int:
        return rhaz(Fraction((host_ns + self.off) * (NS + self.ppb) * self.ts, NS * NS))

    def to_host(self, ticks: int) -> int:
        return rhaz(Fraction(ticks * NS * NS, self.ts * (NS + self.ppb)) - self.off)  # rounded once, whole


class Grid:
    """A camera's capture grid: D(i) = D0 + round(i * ts / fps), D0 = convert(sessionStart)."""

    def __init__(self, clock: Clock, fps: Fraction, session_start: int):
        self.clock, self.fps = clock, fps
        self.period = Fraction(clock.ts) / fps
        self.d0 = clock.to_device(session_start)

    def D(self, i: int) -> int:
        return self.d0 + rhaz(i * self.period)

    def T(self, i: int) -> int:
        return self.clock.to_host(self.D(i))

    def first_at_or_after_ticks(self, x: Fraction) -> int:
        """The first i >= 0 with D(i) >= x."""
        i = max(0, ceil_frac((Fraction(x) - self.d0) / self.period) - 2)
        while i > 0 and self.D(i - 1) >= x:
            i -= 1
        while self.D(i) < x:
            i += 1
        return i

    def first_host_at_or_after(self, h: int) -> int:
        """The first i >= 0 with T(i) >= h (T is nondecreasing)."""
        i = self.first_at_or_after_ticks(Fraction(self.clock.to_device(h)))
        while i > 0 and self.T(i - 1) >= h:
            i -= 1
        while self.T(i) < h:
            i += 1
        return i


def dims(side, ratio: str):
    """Square side S cropped to a:b; a fixed WxH format keeps its size."""
    if isinstance(side, tuple):
        return side
    a, b = (int(v) for v in ratio.split("x"))
    if a >= b:
        return side, 2 * rhaz(Fraction(side * b, a * 2))
    return 2 * rhaz(Fraction(side * a, b * 2)), side


# ---------------------------------------------------------------- cameras

SQUARE_FORMATS = {
    "front": {1280: 60, 1920: 60, 3840: 30, 4032: 30},
    "builtInOuterUltraWideCamera": {1280: 120, 1920: 120, 3840: 120},
    "builtInInnerUltraWideCamera": {1280: 60, 1920: 60},
}
BACK_FORMATS = {(1920, 1080): 60, (3840, 2160): 60}


@dataclass
class Cam:
    id: str
    type: str
    position: int          # position in `cameras` (stamp rows 16-31); 0 for one camera
    side: object           # int (square) or (W, H)
    grid: Grid
    ratios: tuple          # the ratios its format lists; () for the back camera

    @property
    def square(self):
        return bool(self.ratios)


def make_cam(cid, ctype, position, spec, session_start, one_camera=False):
    fmt = spec.get("format")
    fps = parse_fps(spec.get("fps", 30))
    if fps <= 0:
        raise Invalid(f"{cid}: fps {fps}")
    if ctype == "builtInDualWideCamera":
        if not isinstance(fmt, str) or "x" not in fmt:
            raise Invalid(f"{cid}: back format {fmt}")
        w, h = (int(v) for v in fmt.split("x"))
        if (w, h) not in BACK_FORMATS or fps > BACK_FORMATS[(w, h)]:
            raise Invalid(f"{cid}: format {fmt}@{fps}")
        side, ratios = (w, h), ()
    else:
        table = SQUARE_FORMATS["front" if one_camera else ctype]
        if fmt not in table or fps > table[fmt]:
            raise Invalid(f"{cid}: format {fmt}@{fps}")
        side = fmt
        ratios = ("3x4", "4x3") if fmt == 4032 else tuple(RATIOS)
    return Cam(cid, ctype, position, side, Grid(Clock(spec.get("clock")), fps, session_start), ratios)


# ---------------------------------------------------------------- prediction

@dataclass
class Frame:
    n: int                 # delivery index (the stamp)
    cam: str               # the producing camera's id (virtual: the constituent)
    position: int          # its position in `cameras` (stamp rows 16-31)
    i: int                 # index on the delivering grid
    grid_cam: str          # the clock the frame is on (virtual: virtualFront)
    D: int
    T: int
    width: int
    height: int
    ratio: str
    angle: int = 0         # the capture angle (one camera: portrait 0, landscapeLeft 90, …)


ANGLES = {"portrait": 0, "landscapeLeft": 90, "portraitUpsideDown": 180, "landscapeRight": 270}


def splits_on_rotation(sc: dict) -> bool:
    """A scenario with turns is recorded with --split-on-rotation (segment mode only)."""
    return any("deviceOrientation" in e for e in sc.get("events", []))


@dataclass
class Segment:
    first: int
    count: int
    width: int
    height: int
    start: int
    end: int
    reason: str
    camera: str | None
    change: dict | None
    angle: int = 0         # rotationDegrees: the capture angle of its first frame


@dataclass
class Prediction:
    frames: list
    segments: list = field(default_factory=list)
    stop_reason: str = "endOfStream"
    stop_time: int | None = None
    written: int = 0
    superseded: list = field(default_factory=list)   # event positions of requests completing superseded
    unsupported: list = field(default_factory=list)  # (event position, session ns) of failed requests
    switches: list = field(default_factory=list)     # (frame index, to, from, deviceTime, sessionTime)
    activations: list = field(default_factory=list)  # (camera, switch ns, frames delivered, requests, in gap)
    grid_end: int | None = None


@dataclass
class Request:
    pos: int               # position in `events`
    s: int                 # host ns
    ratio: str
    k: int                 # grid index it takes effect on (its activation's camera)
    completion_delay: int


def _events(sc, s0, dur_ns):
    out = []
    for pos, e in enumerate(sc.get("events", [])):
        at = dec(e["atSeconds"])
        if at < 0 or rhaz(at * NS) >= dur_ns:   # 0 <= atSeconds < durationSeconds (DESIGN.md, "Scenario files")
            raise Invalid(f"events[{pos}].atSeconds {at}")
        out.append((s0 + rhaz(at * NS), pos, e))
    out.sort(key=lambda t: (t[0], t[1]))
    return out


POSTURE_CAMERA = {"closed": "outer", "open": "inner"}


def predict(sc: dict, mode: str = "segment") -> Prediction:
    s0 = rhaz(dec(sc.get("sessionStartSeconds", 1)) * NS)
    dur_ns = rhaz(dec(sc["durationSeconds"]) * NS)
    end_ns = s0 + dur_ns
    if ("device" in sc) == ("cameras" in sc):
        raise Invalid("exactly one of device / cameras")
    events = _events(sc, s0, dur_ns)
    for _, pos, e in events:
        if "setDynamicAspectRatio" in e and e["setDynamicAspectRatio"] not in RATIOS:
            raise Invalid(f"events[{pos}].setDynamicAspectRatio {e['setDynamicAspectRatio']}: a bad ratio")
    if sc.get("initialAspectRatio", "16x9") not in RATIOS:
        raise Invalid("initialAspectRatio: a bad ratio")
    if "device" in sc:
        dev = sc["device"]
        cam = make_cam("front", "builtInUltraWideCamera", 0, dev, s0, one_camera=True)
        latency = int(dev.get("changeLatencyFrames", 2))
        delay = int(dev.get("completionDelayFrames", 0))
        initial = dev.get("initialAspectRatio", "16x9")
        if initial not in cam.ratios:
            raise Invalid(f"initialAspectRatio {initial}")
        frames, reqinfo = _individual({"front": cam}, "front", initial, latency, delay, events,
                                      end_ns, one_camera=True)
    else:
        cams = {}
        for p, c in enumerate(sc["cameras"]):
            cams[c["id"]] = make_cam(c["id"], c["type"], p, c, s0)
        latency = int(sc.get("changeLatencyFrames", 2))
        delay = int(sc.get("completionDelayFrames", 0))
        initial = sc.get("initialAspectRatio", "16x9")
        posture = sc.get("initialPosture", "closed")
        gap = rhaz(dec(sc.get("switchGapSeconds", Fraction(1, 4))) * NS)
        ids_by_type = {c.type: c.id for c in cams.values()}
        if sc.get("frontCamera", "individual") == "virtual":
            if any("fps" in c for c in sc["cameras"]):
                raise Invalid("a camera's fps in virtual mode (the Virtual Front Camera's virtual.fps is the rate)")
            v = sc["virtual"]
            if v.get("format") not in (1280, 1920) or parse_fps(v.get("fps", 30)) > 60:
                raise Invalid("virtual format above what inner and outer share")
            vcam = make_cam("virtualFront", "virtual", -1, v, s0, one_camera=True)
            frames, reqinfo = _virtual(vcam, cams, ids_by_type, posture, initial, latency, delay,
                                       events, end_ns)
        else:
            def select(p):
                if p == "openOuterDisplay":
                    t = "builtInDualWideCamera"
                    if t in ids_by_type:
                        return ids_by_type[t]
                    return ids_by_type["builtInOuterUltraWideCamera"]
                t = {"closed": "builtInOuterUltraWideCamera", "open": "builtInInnerUltraWideCamera"}[p]
                if t not in ids_by_type:
                    raise Ambiguous(f"posture {p} selects no listed camera")
                return ids_by_type[t]
            frames, reqinfo = _individual(cams, select(posture), initial, latency, delay, events,
                                          end_ns, select=select, gap=gap)
    pred = Prediction(frames=frames)
    pred.superseded = sorted(reqinfo["superseded"])
    pred.unsupported = reqinfo["unsupported"]
    pred.activations = [(a["cam"], a.get("switch"), a.get("delivered", 0), len(a.get("reqs", [])),
                         a.get("gap_requests", 0)) for a in reqinfo["acts"]]
    split = splits_on_rotation(sc) and mode == "segment"
    _segments(pred, frames, reqinfo, mode, "cameras" in sc, sc.get("frontCamera") == "virtual", split)
    return pred


def _individual(cams, start_cam, initial, latency, delay, events, end_ns, one_camera=False,
                select=None, gap=0):
    """One camera, or iPhone Duo individual cameras: activations of one camera at a time."""
    frames = []
    app_ratio = initial            # the ratio last set on a square camera
    superseded, unsupported = set(), []
    announce = {}                  # delivery index of a dimension change -> request
    # an activation: camera, first grid index, initial ratio, its requests
    act = {"cam": start_cam, "first": 0, "ratio": initial if cams[start_cam].square else None,
           "reqs": [], "stop": None}
    acts = [act]
    turns = []                     # (host ns, angle): one camera's capture angle from T >= s
    last_other = None              # host time of the latest event that is no request
    for s, pos, e in events:
        if "setDynamicAspectRatio" in e:
            r = e["setDynamicAspectRatio"]
            cam = cams[act["cam"]]
            if r not in cam.ratios:   # the back camera, or a ratio the format lacks: fails at its time
                unsupported.append((pos, s))
                continue
            app_ratio = r
            thr = Fraction(cam.grid.clock.to_device(s)) + latency * cam.grid.period
            k = cam.grid.first_at_or_after_ticks(thr)
            if last_other is not None and cam.grid.T(k) < last_other:
                raise Ambiguous("a request at a capture instant behind another event in the same device tick")
            act["reqs"].append(Request(pos, s, r, k, delay))
            continue
        last_other = s
        if "deviceOrientation" in e:
            if not one_camera:
                raise Ambiguous("turns are modelled for one camera")
            turns.append((s, ANGLES[e["deviceOrientation"]]))
        elif "posture" in e and select is not None:
            b = select(e["posture"])
            if b == act["cam"]:
                continue
            # the old activation ends at the frames captured before s
            act["stop"] = s
            nb = cams[b]
            first = nb.grid.first_at_or_after_ticks(Fraction(nb.grid.clock.to_device(s + gap)))
            act = {"cam": b, "first": first, "switch": s,
                   "ratio": (app_ratio if app_ratio in nb.ratios else None) if nb.square else None,
                   "reqs": [], "stop": None}
            acts.append(act)
        # zoom and other events change no dimensions
    n = 0
    switched_firsts = set()        # delivery indices of the first frame of a camera switched to
    for a in acts:
        if a.get("switch") is not None:
            switched_firsts.add(n)
        cam = cams[a["cam"]]
        g = cam.grid
        i = a["first"]
        reqs = sorted(a["reqs"], key=lambda q: q.pos)
        taken = set()
        while True:
            T = g.T(i)
            # the frames captured before the switch: session time before it (no device-tick tie)
            if T >= end_ns or (a["stop"] is not None and T >= a["stop"]):
                break
            ratio = a["ratio"]
            cur = None
            for q in reqs:           # requests in the order made; k nondecreasing
                if q.k <= i:
                    ratio, cur = q.ratio, q
            if cur is not None:
                taken.add(cur.pos)
                announce.setdefault((a["cam"], cur.pos), (n, cur))
            w, h = dims(cam.side, ratio) if ratio else cam.side
            angle = next((ang for t, ang in reversed(turns) if t <= T), 0)
            frames.append(Frame(n, cam.id, cam.position, i, cam.id, g.D(i), T, w, h, ratio, angle))
            n += 1
            i += 1
        a["last"] = i  # first grid index not delivered
        a["delivered"] = i - a["first"]
        a["gap_requests"] = sum(1 for q in reqs if a.get("switch") is not None and q.s >= a["switch"]
                                and (a["delivered"] == 0 or q.s < g.T(a["first"])))
        # a request later made for the same frame overrides an earlier one: superseded
        for x, q in enumerate(reqs):
            if any(r.k <= q.k for r in reqs[x + 1:]):
                superseded.add(q.pos)
            elif a["stop"] is not None and q.k >= a["last"]:
                superseded.add(q.pos)     # the camera was switched first
    return frames, {"superseded": superseded, "unsupported": unsupported,
                    "announce": announce, "acts": acts, "cams": cams, "switched_firsts": switched_firsts}


def _virtual(vcam, cams, ids_by_type, posture, initial, latency, delay, events, end_ns):
    def constituent(p):
        t = "builtInInnerUltraWideCamera" if p == "open" else "builtInOuterUltraWideCamera"
        if t not in ids_by_type:
            raise Ambiguous("virtual constituent not listed")
        return ids_by_type[t]
    g = vcam.grid
    reqs, swaps = [], []
    superseded = set()
    for s, pos, e in events:
        thr = Fraction(g.clock.to_device(s)) + latency * g.period
        k = g.first_at_or_after_ticks(thr)
        if "setDynamicAspectRatio" in e:
            reqs.append(Request(pos, s, e["setDynamicAspectRatio"], k, delay))
        elif "posture" in e:
            swaps.append((k, constituent(e["posture"])))
    for x, q in enumerate(reqs):
        if any(r.k <= q.k for r in reqs[x + 1:]):
            superseded.add(q.pos)
    frames, announce = [], {}
    i = 0
    while g.T(i) < end_ns:
        ratio, cur = initial, None
        for q in reqs:
            if q.k <= i:
                ratio, cur = q.ratio, q
        if cur is not None:
            announce.setdefault(("virtualFront", cur.pos), (i, cur))
        c = constituent(posture)
        for k, cc in swaps:
            if k <= i:
                c = cc
        w, h = dims(vcam.side, ratio)
        frames.append(Frame(i, c, cams[c].position, i, "virtualFront", g.D(i), g.T(i), w, h, ratio))
        i += 1
    acts = [{"cam": "virtualFront", "first": 0, "stop": None, "last": i}]
    return frames, {"superseded": superseded, "unsupported": [], "announce": announce,
                    "acts": acts, "cams": {"virtualFront": vcam, **cams}}


def _segments(pred, frames, info, mode, multi, virtual, split=False):
    cams = info["cams"]
    by_first = {n: q for (_, _), (n, q) in info["announce"].items()}
    segs = []
    last_n = frames[-1].n if frames else -1
    stop = None
    for f in frames:
        seg_cam = "virtualFront" if virtual else f.cam
        if segs:
            prev = frames[f.n - 1]
            prev_cam = "virtualFront" if virtual else prev.cam
            reason = None
            if seg_cam != prev_cam:
                reason = "cameraSwitched"
                change = {"camera": seg_cam, "previousCamera": prev_cam,
                          "deviceTime": (f.D, cams[f.grid_cam].grid.clock.ts), "sessionTime": f.T}
                pred.switches.append((f.n, seg_cam, prev_cam, f.D, f.T))
            elif split and f.angle != prev.angle:
                if (f.width, f.height) != (prev.width, prev.height):
                    raise Ambiguous("a turn and a size change on one frame")
                reason, change = "rotationChanged", None
            elif (f.width, f.height) != (prev.width, prev.height):
                reason = "dimensionsChanged"
                q = by_first.get(f.n)
                announced = None
                if q is None and f.n in info.get("switched_firsts", ()):
                    # the same camera resuming after a cancelled switch, its size the app's ratio
                    # carried over: no request made it, no completion announces it
                    announced = False
                if q is not None:
                    announced = f.n + q.completion_delay <= last_n
                    if abs(f.n + q.completion_delay - last_n) <= 1 and q.completion_delay > 0:
                        announced = None     # at the end: left open by DESIGN.md, not compared
                change = {"deviceTime": (f.D, cams[f.grid_cam].grid.clock.ts), "sessionTime": f.T,
                          "aspectRatio": f.ratio, "announced": announced}
            if reason:
                if mode == "stop-on-change":
                    stop = (reason, f.T)
                    break
                segs[-1].end = f.T
                segs.append(Segment(f.n, 0, f.width, f.height, f.T, None, reason,
                                    seg_cam if multi else None, change, f.angle))
        else:
            segs.append(Segment(f.n, 0, f.width, f.height, f.T, None, "recordingStarted",
                                seg_cam if multi else None, None, f.angle))
        segs[-1].count += 1
    if segs:
        if stop:
            pred.stop_reason, pred.stop_time = stop
            segs[-1].end = stop[1]
        else:
            lastf = frames[segs[-1].first + segs[-1].count - 1]
            g = cams[lastf.grid_cam].grid
            segs[-1].end = g.T(lastf.i + 1)
            pred.stop_time = segs[-1].end
        pred.written = sum(s.count for s in segs)
    pred.segments = segs


# ---------------------------------------------------------------- scenario files

def to_json(obj, indent=0) -> str:
    """JSON with Fractions written as exact decimals (every generated Fraction has a finite one)."""
    if isinstance(obj, Fraction):
        return frac_decimal(obj)
    if isinstance(obj, bool) or obj is None:
        return json.dumps(obj)
    if isinstance(obj, (int, str)):
        return json.dumps(obj)
    if isinstance(obj, list):
        return "[" + ", ".join(to_json(v) for v in obj) + "]"
    if isinstance(obj, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {to_json(v)}" for k, v in obj.items()) + "}"
    raise TypeError(type(obj))


def frac_decimal(x: Fraction) -> str:
    sign = "-" if x < 0 else ""
    x = abs(x)
    q, r = divmod(x.numerator, x.denominator)
    digits = []
    for _ in range(12):
        if r == 0:
            break
        r *= 10
        digits.append(str(r // x.denominator))
        r %= x.denominator
    if r:
        raise ValueError(f"{x} has no short decimal")
    return sign + str(q) + ("." + "".join(digits) if digits else ".0")


def load(text: str) -> dict:
    """A scenario read back with every number exact."""
    return json.loads(text, parse_float=Fraction, parse_int=int)


# ---------------------------------------------------------------- generator

def _ns(rng, lo_ms, hi_ms):
    """A time in whole nanoseconds, as Fraction seconds."""
    return Fraction(rng.randint(lo_ms * 10**6, hi_ms * 10**6), NS)


def _clock(rng):
    ts = rng.choice([90000, 24000000, 1000000000, 48000, 19200000, 600])
    r = rng.random()
    if r < 0.2:
        off = Fraction(0)
    elif r < 0.5:
        off = Fraction(rng.randint(-10**6, 10**6), 8)                 # eighths of a second
    elif r < 0.8:
        off = Fraction(rng.randint(-10**14, 10**14), NS)              # up to ±1e5 s, to the ns
    else:
        off = Fraction(rng.choice([-1, 1]) * rng.randint(10**5, 10**7), 4)  # days
    drift = Fraction(rng.randint(-200000, 200000), 1000) if rng.random() < 0.8 else Fraction(0)
    return {"timescale": ts, "offsetSeconds": off, "driftPPM": drift}


def _fps(rng, maxfps, low=True):
    choices = [5, 6, 10, 12, 15, "15000/1001", "24000/1001", 24, 25, "30000/1001", 30]
    if not low:
        choices += [48, 50, "60000/1001", 60, 120]
    while True:
        v = rng.choice(choices)
        if parse_fps(v) <= maxfps:
            return v


def _session_start(rng):
    r = rng.random()
    if r < 0.5:
        return _ns(rng, 0, 10000)
    if r < 0.8:
        return Fraction(rng.randint(0, 10**7), 2)                        # large, half seconds
    return Fraction(rng.randint(10**4, 3 * 10**7) * 1000 + rng.randint(0, 999), 1000)


def _request_times(rng, grid: Grid, s0, dur, latency, count):
    """Event times: random, and a few ns or one device tick from a frame's capture instant."""
    out = []
    for _ in range(count):
        r = rng.random()
        if r < 0.55:
            out.append(_ns(rng, 0, int(dur * 1000)))
            continue
        i = rng.randint(0, max(0, int(dur * grid.fps) - 1))
        T = grid.T(i)
        if r < 0.8:
            t = T + rng.randint(-3, 3) - s0
        else:
            # the host time whose conversion lands one tick either side of D(i) (or on it)
            want = grid.D(i) + rng.choice([-1, 0, 1])
            t = grid.clock.to_host(want) + rng.randint(-1, 1) - s0
        if latency == 0 and rng.random() < 0.5:
            t = T - s0
        if 0 <= t < rhaz(dur * NS):
            out.append(Fraction(t, NS))
    return out


def gen_one_camera(rng):
    fmt = rng.choices([1280, 1920, 3840, 4032], weights=[80, 12, 4, 4])[0]
    maxfps = 60 if fmt in (1280, 1920) else 30
    fps = _fps(rng, min(maxfps, 30 if fmt == 1280 else 15))
    ratios = ["3x4", "4x3"] if fmt == 4032 else RATIOS
    dev = {"format": fmt, "fps": fps, "initialAspectRatio": rng.choice(ratios),
           "clock": _clock(rng), "changeLatencyFrames": rng.randint(0, 4),
           "completionDelayFrames": rng.randint(-3, 4)}
    s0 = _session_start(rng)
    dur = _ns(rng, 300, 2000 if fmt == 1280 else 800)
    grid = Grid(Clock(dev["clock"]), parse_fps(fps), rhaz(s0 * NS))
    times = _request_times(rng, grid, rhaz(s0 * NS), dur, dev["changeLatencyFrames"], rng.randint(0, 6))
    events = []
    prev = dev["initialAspectRatio"]
    for t in sorted(times):
        r = prev if rng.random() < 0.2 else rng.choice(ratios)    # same-ratio requests too
        events.append({"atSeconds": t, "setDynamicAspectRatio": r})
        prev = r
        if rng.random() < 0.15:
            events.append({"atSeconds": t, "setDynamicAspectRatio": rng.choice(ratios)})
    if rng.random() < 0.2 and events:
        events.insert(rng.randrange(len(events)), {"atSeconds": events[0]["atSeconds"], "videoZoomFactor": Fraction(3, 2)})
    sc = {"device": dev, "sessionStartSeconds": s0, "durationSeconds": dur}
    if events:
        sc["events"] = events
    return sc


def drop_constituent_rates(sc):
    """In virtual mode the cameras take no `fps` (the Virtual Front Camera's `virtual.fps` is
    the rate; segrec refuses it): drawn like the others' to keep the random stream, then dropped."""
    if sc.get("frontCamera") == "virtual":
        for camera in sc["cameras"]:
            camera.pop("fps", None)
    return sc


def gen_duo(rng):
    virtual = rng.random() < 0.25
    cams = [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280,
             "fps": _fps(rng, 120, low=False), "clock": _clock(rng)},
            {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280,
             "fps": _fps(rng, 60), "clock": _clock(rng)}]
    if rng.random() < 0.5:
        cams.append({"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080",
                     "fps": _fps(rng, 30), "clock": _clock(rng)})
    rng.shuffle(cams)
    postures = ["closed", "open", "openOuterDisplay"]
    sc = {"cameras": cams, "frontCamera": "virtual" if virtual else "individual",
          "initialPosture": rng.choice(postures), "initialAspectRatio": rng.choice(RATIOS),
          "changeLatencyFrames": rng.randint(0, 4), "completionDelayFrames": rng.randint(-3, 4)}
    if virtual:
        sc["virtual"] = {"format": 1280, "fps": _fps(rng, 30), "clock": _clock(rng)}
    else:
        sc["switchGapSeconds"] = _ns(rng, 20, 400)
    s0 = _session_start(rng)
    dur = _ns(rng, 800, 2000)
    sc["sessionStartSeconds"] = s0
    sc["durationSeconds"] = dur
    events = []
    gap_ms = 0 if virtual else int(sc["switchGapSeconds"] * 1000) + 1
    last_posture_ms = int(dur * 1000) - gap_ms - 260
    for _ in range(rng.randint(0, 6)):
        kind = rng.random()
        if kind < 0.5 and last_posture_ms > 0:
            events.append({"atSeconds": _ns(rng, 0, last_posture_ms), "posture": rng.choice(postures)})
        else:
            events.append({"atSeconds": _ns(rng, 0, int(dur * 1000)),
                           "setDynamicAspectRatio": rng.choice(RATIOS)})
    # switches superseded inside a gap, and requests inside a gap
    if not virtual and events and rng.random() < 0.6:
        p = [e for e in events if "posture" in e]
        if p:
            e = rng.choice(p)
            inside = e["atSeconds"] + Fraction(rng.randint(1, max(1, rhaz(sc["switchGapSeconds"] * 1000) - 1)), 1000)
            events.append({"atSeconds": inside, "posture": rng.choice(postures)} if rng.random() < 0.5
                          else {"atSeconds": inside, "setDynamicAspectRatio": rng.choice(RATIOS)})
    events = [e for e in events if e["atSeconds"] < dur]
    events.sort(key=lambda e: e["atSeconds"])
    if events:
        sc["events"] = events
    return sc


def generate(rng: random.Random):
    """A random scenario DESIGN.md decides (redrawn while the model finds it ambiguous)."""
    while True:
        sc = drop_constituent_rates(gen_duo(rng)) if rng.random() < 0.5 else gen_one_camera(rng)
        try:
            pred = predict(sc)
            _check_end(sc, pred)
            return sc
        except (Ambiguous, Invalid):   # e.g. an event drawn at the very end (atSeconds == durationSeconds)
            continue


def generate_invalid(rng: random.Random):
    """A scenario breaking one rule DESIGN.md states (predict raises Invalid): segrec must refuse it."""
    while True:
        sc = generate(rng)
        one = "device" in sc
        kind = rng.randrange(7)
        if kind == 0:                      # a rate above the format's maximum
            if one:
                sc["device"]["fps"] = {1280: 61, 1920: 72, 3840: 31, 4032: 48}[sc["device"]["format"]]
            else:
                next(c for c in sc["cameras"] if c["id"] == "inner")["fps"] = 120
        elif kind == 1:                    # an event at or past the end
            late = Fraction(1, 1000) if rng.random() < 0.5 else Fraction(0)
            sc.setdefault("events", []).append({"atSeconds": sc["durationSeconds"] + late,
                                                "setDynamicAspectRatio": "1x1"})
        elif kind == 2:                    # a negative event time
            sc.setdefault("events", []).insert(0, {"atSeconds": Fraction(-1, 10), "setDynamicAspectRatio": "1x1"})
        elif kind == 3:                    # a ratio that is none of the five
            sc.setdefault("events", []).append({"atSeconds": Fraction(0), "setDynamicAspectRatio": "2x1"})
        elif kind == 4:                    # both device and cameras
            if one:
                sc["cameras"] = gen_duo(rng)["cameras"]
            else:
                sc["device"] = gen_one_camera(rng)["device"]
        elif kind == 5:                    # a format the camera does not have
            if one:
                sc["device"]["format"] = 2560
            else:
                next(c for c in sc["cameras"] if c["id"] == "inner")["format"] = 3840
        else:                              # a virtual format above what both cameras share
            if one or sc["frontCamera"] != "virtual":
                continue
            sc["virtual"]["format"] = 3840
        try:
            predict(sc)
        except Invalid:
            return sc
        except Ambiguous:
            continue
        raise AssertionError(f"invalid scenario {kind} predicted valid")


def _check_end(sc, pred):
    """A switch whose camera delivers nothing before the end leaves the last frame's end open."""
    if "cameras" not in sc or sc.get("frontCamera") == "virtual":
        return
    s0 = rhaz(dec(sc["sessionStartSeconds"]) * NS)
    end = s0 + rhaz(dec(sc["durationSeconds"]) * NS)
    gap = rhaz(dec(sc.get("switchGapSeconds", Fraction(1, 4))) * NS)
    for e in sc.get("events", []):
        if "posture" in e:
            s = s0 + rhaz(dec(e["atSeconds"]) * NS)
            if s + gap + rhaz(Fraction(NS, 4)) >= end:
                raise Ambiguous("a switch gap reaching the end")
    if not pred.frames:
        raise Ambiguous("no frame")


# ---------------------------------------------------------------- ties (Scripts/model-check --profile ties)

def _at(t_ns, s0):
    return Fraction(t_ns - s0, NS)


def gen_ties(rng):
    """Scenarios aimed at the contract's exact ties: a switch gap ending on (or one tick either side
    of) the new camera's capture instant, requests at capture instants on both Duo cameras and in a
    gap, virtual swaps at capture instants, with latency 0 or 1."""
    kind = rng.randrange(3)
    sc = gen_duo(rng)
    sc["changeLatencyFrames"] = rng.randint(0, 1)
    s0 = rhaz(sc["sessionStartSeconds"] * NS)
    cams = {c["id"]: c for c in sc["cameras"]}
    events = []
    if kind < 2:
        sc["frontCamera"] = "individual"
        sc.pop("virtual", None)
        sc.setdefault("switchGapSeconds", _ns(rng, 20, 200))
        sc["initialPosture"] = "closed"
        gap = rhaz(sc["switchGapSeconds"] * NS)
        inner = cams["inner"]
        g = Grid(Clock(inner["clock"]), parse_fps(inner["fps"]), s0)
        i = g.first_host_at_or_after(s0 + gap + rhaz(Fraction(3, 10) * NS)) + rng.randint(0, 3)
        # the posture time whose gap end converts to D(i) + delta ticks
        target = g.D(i) + rng.choice([-1, 0, 0, 1])
        s = g.clock.to_host(target) - gap
        while g.clock.to_device(s + gap) < target:
            s += 1
        while g.clock.to_device(s - 1 + gap) >= target:
            s -= 1
        s += rng.choice([0, 0, -1, 1])
        events.append({"atSeconds": _at(s, s0), "posture": "open"})
        # requests: at the inner camera's first frame instant, inside the gap, and on the outer camera
        events.append({"atSeconds": _at(g.T(i) + rng.randint(-2, 2), s0), "setDynamicAspectRatio": rng.choice(RATIOS)})
        events.append({"atSeconds": _at(s + rng.randint(1, gap - 1), s0), "setDynamicAspectRatio": rng.choice(RATIOS)})
        outer = cams["outer"]
        go = Grid(Clock(outer["clock"]), parse_fps(outer["fps"]), s0)
        j = rng.randint(0, max(0, go.first_host_at_or_after(s) - 1))
        events.append({"atSeconds": _at(go.T(j) + rng.randint(-1, 1), s0), "setDynamicAspectRatio": rng.choice(RATIOS)})
        if kind == 1:      # superseded inside the gap: back to outer or on to the back camera
            events.append({"atSeconds": _at(s + rng.randint(1, gap - 1), s0),
                           "posture": rng.choice(["closed", "openOuterDisplay"])})
        sc["durationSeconds"] = max(sc["durationSeconds"], Fraction(s - s0 + gap, NS) + Fraction(3, 5))
    else:
        sc["frontCamera"] = "virtual"
        sc.pop("switchGapSeconds", None)
        sc["virtual"] = {"format": 1280, "fps": _fps(rng, 30), "clock": _clock(rng)}
        g = Grid(Clock(sc["virtual"]["clock"]), parse_fps(sc["virtual"]["fps"]), s0)
        for _ in range(rng.randint(1, 4)):
            i = rng.randint(1, int(sc["durationSeconds"] * g.fps) - 1)
            t = g.clock.to_host(g.D(i)) + rng.randint(-1, 1)
            events.append({"atSeconds": _at(t, s0), "posture": rng.choice(["closed", "open", "openOuterDisplay"])}
                          if rng.random() < 0.6 else
                          {"atSeconds": _at(t, s0), "setDynamicAspectRatio": rng.choice(RATIOS)})
    events = [e for e in events if 0 <= e["atSeconds"] < sc["durationSeconds"]]
    events.sort(key=lambda e: e["atSeconds"])
    sc["events"] = events
    return drop_constituent_rates(sc)


def generate_ties(rng: random.Random):
    while True:
        sc = gen_ties(rng)
        try:
            pred = predict(sc)
            _check_end(sc, pred)
            return sc
        except (Ambiguous, Invalid):
            continue
