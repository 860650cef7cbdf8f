"""Scenarios for `Scripts/model-check --profile coarse-ties`: camera switches, postures and turns a
fraction of a device tick from a capture, on coarse device clocks (1 kHz and 600 ticks a second,
where half a tick is 0.5 ms and 0.83 ms), the window in which the device-tick tie rule of a request
and the session-clock rule of every other event disagree (Docs/DESIGN.md, "Dynamic aspect ratio").

Three kinds, drawn evenly: one camera with turns (`deviceOrientation`, recorded with
`--split-on-rotation`), a zoom and requests near capture instants; iPhone Duo individual cameras
with posture switches and requests near the streaming camera's capture instants (a posture that
selects the camera already streaming too); the Virtual Front Camera with postures near its capture
instants. Every time is in whole nanoseconds, so the scenario files say it exactly.
"""
from __future__ import annotations

import random
from fractions import Fraction

import scenario_model as sm

NS = sm.NS
ORIENTATIONS = list(sm.ANGLES)


def _clock(rng):
    ts = rng.choice([1000, 600])
    off = Fraction(0) if rng.random() < 0.4 else Fraction(rng.randint(-10**12, 10**12), NS)
    drift = Fraction(0) if rng.random() < 0.5 else Fraction(rng.randint(-200000, 200000), 1000)
    return {"timescale": ts, "offsetSeconds": off, "driftPPM": drift}


def _grid(spec, s0):
    return sm.Grid(sm.Clock(spec["clock"]), sm.parse_fps(spec["fps"]), s0)


def near_capture(rng, grid, i):
    """A host time (ns) around frame i's capture: at its session time, a few ns before, inside the
    half tick after it (converts to frame i's own tick), or later in that tick."""
    t, tick = grid.T(i), NS // grid.clock.ts
    r = rng.random()
    if r < 0.15:
        return t
    if r < 0.25:
        return t - rng.randint(1, 3)
    if r < 0.85:
        return t + rng.randint(1, tick // 2)
    return t + rng.randint(tick // 2, tick)


def _frame(rng, grid, start_ns, end_ns):
    """A random grid index whose capture lies in [start_ns, end_ns)."""
    lo = grid.first_host_at_or_after(start_ns)
    hi = grid.first_host_at_or_after(end_ns) - 1
    return rng.randint(lo, max(lo, hi))


def _event(t_ns, s0, **what):
    return dict({"atSeconds": Fraction(t_ns - s0, NS)}, **what)


def turns(rng):
    dev = {"format": 1280, "fps": sm._fps(rng, 30), "initialAspectRatio": rng.choice(sm.RATIOS), "clock": _clock(rng),
           "changeLatencyFrames": rng.randint(0, 2), "completionDelayFrames": rng.randint(-1, 2)}
    s0 = sm.rhaz(sm._session_start(rng) * NS)
    dur = sm._ns(rng, 400, 1200)
    sc = {"device": dev, "sessionStartSeconds": Fraction(s0, NS), "durationSeconds": dur}
    g, end = _grid(dev, s0), s0 + sm.rhaz(dur * NS)
    events = [_event(near_capture(rng, g, _frame(rng, g, s0, end)), s0, deviceOrientation=rng.choice(ORIENTATIONS))
              for _ in range(rng.randint(1, 4))]
    for _ in range(rng.randint(0, 2)):
        events.append(_event(near_capture(rng, g, _frame(rng, g, s0, end)), s0, setDynamicAspectRatio=rng.choice(sm.RATIOS)))
    if rng.random() < 0.3:
        events.append(_event(near_capture(rng, g, _frame(rng, g, s0, end)), s0, videoZoomFactor=Fraction(3, 2)))
    sc["events"] = sorted(events, key=lambda e: e["atSeconds"])
    return sc


def duo_individual(rng):
    cams = [{"id": "outer", "type": "builtInOuterUltraWideCamera", "format": 1280, "fps": sm._fps(rng, 120, low=False),
             "clock": _clock(rng)},
            {"id": "inner", "type": "builtInInnerUltraWideCamera", "format": 1280, "fps": sm._fps(rng, 60), "clock": _clock(rng)}]
    if rng.random() < 0.4:
        cams.append({"id": "back", "type": "builtInDualWideCamera", "format": "1920x1080", "fps": sm._fps(rng, 30),
                     "clock": _clock(rng)})
    rng.shuffle(cams)
    by_id = {c["id"]: c for c in cams}
    s0 = sm.rhaz(sm._session_start(rng) * NS)
    gap = sm._ns(rng, 20, 200)
    sc = {"cameras": cams, "frontCamera": "individual", "initialPosture": rng.choice(["closed", "open"]),
          "initialAspectRatio": rng.choice(sm.RATIOS), "changeLatencyFrames": rng.randint(0, 1),
          "completionDelayFrames": rng.randint(-1, 2), "switchGapSeconds": gap, "sessionStartSeconds": Fraction(s0, NS)}
    streaming = "outer" if sc["initialPosture"] == "closed" else "inner"
    t, events = s0, []
    for _ in range(rng.randint(1, 3)):
        g = _grid(by_id[streaming], s0)
        s = near_capture(rng, g, _frame(rng, g, t + NS // 20, t + NS // 2))
        posture = rng.choice(["closed", "open", "openOuterDisplay"])
        events.append(_event(s, s0, posture=posture))
        if rng.random() < 0.5:   # a request at a capture instant of the camera streaming before the switch
            events.append(_event(near_capture(rng, g, _frame(rng, g, t, s)), s0, setDynamicAspectRatio=rng.choice(sm.RATIOS)))
        streaming = {"closed": "outer", "open": "inner"}.get(posture, "back" if "back" in by_id else "outer")
        t = s + sm.rhaz(gap * NS)
    g = _grid(by_id[streaming], s0)
    events.append(_event(near_capture(rng, g, _frame(rng, g, t + NS // 10, t + NS // 2)), s0,
                         setDynamicAspectRatio=rng.choice(sm.RATIOS)))
    sc["durationSeconds"] = Fraction(t - s0, NS) + Fraction(3, 5)
    sc["events"] = sorted(events, key=lambda e: e["atSeconds"])
    return sc


def duo_virtual(rng):
    sc = sm.gen_duo(rng)
    sc.pop("switchGapSeconds", None)
    sc["frontCamera"] = "virtual"
    sc["changeLatencyFrames"] = rng.randint(0, 1)
    sc["virtual"] = {"format": 1280, "fps": sm._fps(rng, 30), "clock": _clock(rng)}
    s0 = sm.rhaz(sc["sessionStartSeconds"] * NS)
    g, end = _grid(sc["virtual"], s0), s0 + sm.rhaz(sc["durationSeconds"] * NS)
    events = []
    for _ in range(rng.randint(1, 4)):
        t = near_capture(rng, g, _frame(rng, g, s0 + 1, end))
        events.append(_event(t, s0, posture=rng.choice(["closed", "open", "openOuterDisplay"])) if rng.random() < 0.7
                      else _event(t, s0, setDynamicAspectRatio=rng.choice(sm.RATIOS)))
    sc["events"] = sorted(events, key=lambda e: e["atSeconds"])
    return sm.drop_constituent_rates(sc)


def generate(rng: random.Random):
    """A coarse-clock tie scenario DESIGN.md decides (redrawn while the model finds it ambiguous)."""
    while True:
        sc = rng.choice([turns, duo_individual, duo_virtual])(rng)
        sc["events"] = [e for e in sc["events"] if 0 <= e["atSeconds"] < sc["durationSeconds"]]
        if not sc["events"]:
            continue
        try:
            sm._check_end(sc, sm.predict(sc))
            return sc
        except (sm.Ambiguous, sm.Invalid):
            continue
