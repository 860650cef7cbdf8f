"""segrec against an independent exact model of DESIGN.md (scenario_model.py), on random scenarios.

The model is pinned first to the figures DESIGN.md and clocks.md work by hand, then a CI-sized
run (MODEL_COUNT scenarios from random.Random(MODEL_SEED), every fourth also in stop-on-change
mode) compares every scenario's manifest and files, read back with ffprobe/ffmpeg, with it.
`Scripts/model-check --count 1000 --seed 24` is the full run (Docs/recording.md, "Model check").
"""
import random
from fractions import Fraction

import model_check as mc
import scenario_model as sm

MODEL_COUNT = 60
MODEL_SEED = 2024


def test_model_clock_matches_the_worked_example():
    # clocks.md: 24 MHz, 12.5 s ahead, 50 ppm fast; session start 1 s is tick 324 016 200; frame
    # 63 at 30 fps is tick 374 416 200, session time 3 099 895 005 ns.
    clock = sm.Clock({"timescale": 24000000, "offsetSeconds": Fraction(25, 2), "driftPPM": 50})
    grid = sm.Grid(clock, Fraction(30), 10**9)
    assert grid.d0 == 324016200
    assert grid.D(63) == 374416200
    assert grid.T(63) == 3099895005


def test_model_dimensions_match_the_contract():
    assert sm.dims(1920, "16x9") == (1920, 1080)
    assert sm.dims(1920, "9x16") == (1080, 1920)
    assert sm.dims(1920, "4x3") == (1920, 1440)
    assert sm.dims(1920, "1x1") == (1920, 1920)
    assert sm.dims(1280, "3x4") == (960, 1280)
    assert sm.dims(4032, "4x3") == (4032, 3024)


def test_model_rounds_once_half_away_from_zero():
    assert sm.rhaz(Fraction(5, 2)) == 3 and sm.rhaz(Fraction(-5, 2)) == -3
    # device → host: the whole value (offset included) is rounded once: …083.5 ns → …084
    clock = sm.Clock({"timescale": 19200000, "offsetSeconds": Fraction("-76989.429387646"), "driftPPM": 0})
    assert clock.to_host(-1478131908222) == 3392501084


def test_model_request_at_a_capture_instant_takes_that_frame():
    # latency 0, a request at the very host time frame 7 is captured: it takes effect on frame 7
    sc = {"device": {"format": 1280, "fps": 30, "initialAspectRatio": "9x16",
                     "clock": {"timescale": 90000, "offsetSeconds": Fraction(1, 10**6), "driftPPM": 7},
                     "changeLatencyFrames": 0, "completionDelayFrames": 0},
          "sessionStartSeconds": 1, "durationSeconds": Fraction(1, 2)}
    grid = sm.Grid(sm.Clock(sc["device"]["clock"]), Fraction(30), 10**9)
    at = grid.clock.to_host(grid.D(7)) - 10**9
    # the request time whose conversion is D(7) exactly, even where D(7) converts back just before it
    while grid.clock.to_device(10**9 + at) < grid.D(7):
        at += 1
    sc["events"] = [{"atSeconds": Fraction(at, 10**9), "setDynamicAspectRatio": "16x9"}]
    pred = sm.predict(sc)
    assert [s.first for s in pred.segments] == [0, 7]
    assert pred.segments[1].start == grid.T(7)


def test_generator_is_deterministic_and_varied():
    a = mc.scenarios(20, MODEL_SEED)
    b = mc.scenarios(20, MODEL_SEED)
    assert [sm.to_json(x) for x in a] == [sm.to_json(x) for x in b]
    kinds = {("device" in x, x.get("frontCamera")) for x in a}
    assert kinds == {(True, None), (False, "individual"), (False, "virtual")}
    assert any("posture" in e for x in a for e in x.get("events", []))


def test_a_ratio_the_format_lacks_fails_at_its_time(binary, tmp_path):
    # 4032 lists only 3x4 and 4x3: a 16x9 request fails (warning, event) and the recording goes on
    sc = {"device": {"format": 4032, "fps": 10, "initialAspectRatio": "3x4",
                     "clock": {"timescale": 24000000, "offsetSeconds": Fraction("3.75"), "driftPPM": -20},
                     "changeLatencyFrames": 1, "completionDelayFrames": 0},
          "sessionStartSeconds": 100, "durationSeconds": Fraction("0.6"),
          "events": [{"atSeconds": Fraction("0.1"), "setDynamicAspectRatio": "16x9"},
                     {"atSeconds": Fraction("0.2"), "setDynamicAspectRatio": "4x3"}]}
    pred = sm.predict(sc)
    assert [(s.first, s.count, s.width, s.height) for s in pred.segments] == [(0, 3, 3024, 4032), (3, 3, 4032, 3024)]
    assert pred.unsupported == [(0, 100_100_000_000)]
    assert mc.check(binary, sc, "segment", tmp_path) == []


def test_invalid_scenarios_are_refused(binary):
    refused = mc.run_invalid(binary, 10, MODEL_SEED)
    bad = [f"{x}: {'; '.join(b)}\n  {sm.to_json(sc)}" for x, sc, b in refused if b]
    assert not bad, "\n".join(bad)


def test_random_scenarios_match_the_model(binary):
    scenarios, checks, mismatches = mc.run(binary, MODEL_COUNT, MODEL_SEED, jobs=2, do_shrink=False)
    report = []
    for x, mode, bad, _ in mismatches:
        report.append(f"scenario {x} ({mode}): " + "; ".join(bad) + f"\n  {sm.to_json(scenarios[x])}")
    assert checks >= MODEL_COUNT
    assert not mismatches, f"{len(mismatches)} of {checks} checks differ from the model:\n" + "\n".join(report)
