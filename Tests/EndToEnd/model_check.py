"""Runs segrec on scenarios and compares what it wrote with scenario_model's prediction.

check(binary, scenario, mode, workdir) -> list of mismatch strings (empty: they agree). The
comparison reads (a) manifest.json (exact rational sessionStart/End, counts, sizes, reasons,
cameras, changes, stop) and (b) the segment files back with ffprobe and ffmpeg (per file: width,
height, frame count, and every frame's index stamp, plus, with `cameras`, the producing camera's
position from rows 16-31), never segrec's own reader.

run(binary, count, seed, ...) draws `count` scenarios from random.Random(seed) and checks each;
a mismatching scenario is shrunk (events dropped one at a time while the mismatch stays) to a
minimal reproducing one.
"""
from __future__ import annotations

import json
import re
import pathlib
import random
import shutil
import subprocess
import tempfile
from fractions import Fraction

import coarse_ties
import scenario_model as sm

NS = 10**9


def _mt(obj):
    return Fraction(obj["value"], obj["timescale"])


def record(binary, scenario, mode, out):
    path = out.with_suffix(".json")
    path.write_text(sm.to_json(scenario))
    if out.exists():
        shutil.rmtree(out)
    cmd = [str(binary), "record", "--source", "synthetic", "--scenario", str(path), "--output", str(out),
           "--mode", mode, "--preset", "ultrafast", "--quiet", "--threads", "1",
           "--fragment-interval", "0", "--keyframe-interval", "250"]
    if sm.splits_on_rotation(scenario) and mode == "segment":
        cmd.append("--split-on-rotation")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def read_files(paths, multi, scratch):
    """For each file: (width, height, [(index stamp, camera stamp or None)]), read with one ffmpeg
    run (FFmpeg's demuxer gives each input's size; every picture decoded, never dropped or
    duplicated, cropped to rows 0-31 in gray)."""
    if not paths:
        return []
    cmd = ["ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-y"]
    for p in paths:
        cmd += ["-noautorotate", "-i", str(p)]
    outs = [scratch.with_name(f"{scratch.name}-raw{j}") for j in range(len(paths))]
    for j, o in enumerate(outs):
        cmd += ["-map", f"{j}:v:0", "-fps_mode", "passthrough", "-vf", "crop=iw:32:0:0", "-pix_fmt", "gray",
                "-f", "rawvideo", str(o)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"ffmpeg failed: {res.stderr[-600:]}")
    inputs = res.stderr.split("Stream mapping:")[0]
    sizes = {}
    for m in re.finditer(r"Stream #(\d+):\d+[^\n]*?: Video: [^\n]*?, (\d+)x(\d+)", inputs):
        sizes.setdefault(int(m.group(1)), (int(m.group(2)), int(m.group(3))))
    result = []
    for j, o in enumerate(outs):
        w, h = sizes[j]
        raw = o.read_bytes()
        o.unlink()
        size = w * 32
        stamps = [(_code(raw[off:off + size], w, 0), _code(raw[off:off + size], w, 16) if multi else None)
                  for off in range(0, len(raw) - size + 1, size)]
        result.append((w, h, stamps))
    return result


def _code(frame, width, top):
    block, value = width // 32, 0
    x_from, x_len = block // 4, max(1, block // 2)
    for bit in range(32):
        x0 = bit * block + x_from
        total = sum(frame[(top + row) * width + x] for row in range(4, 12) for x in range(x0, x0 + x_len))
        value = (value << 1) | (1 if total >= 128 * 8 * x_len else 0)
    return value


def compare(scenario, mode, pred, manifest, folder):
    read = {}
    present = [s["file"] for s in manifest["segments"] if (folder / s["file"]).exists()]
    for name, r in zip(present, read_files([folder / n for n in present], "cameras" in scenario, folder)):
        read[name] = r
    bad = []
    multi = "cameras" in scenario

    def want(what, expected, actual):
        if expected != actual:
            bad.append(f"{what}: expected {expected}, got {actual}")

    segs = manifest["segments"]
    want("segment count", len(pred.segments), len(segs))
    want("stopReason", pred.stop_reason, manifest["stopReason"])
    want("frames.written", pred.written, manifest["frames"]["written"])
    if mode == "segment":
        want("frames.received", len(pred.frames), manifest["frames"]["received"])
    if pred.stop_time is not None and manifest.get("stopTime"):
        want("stopTime", Fraction(pred.stop_time, NS), _mt(manifest["stopTime"]))
    for x, (p, s) in enumerate(zip(pred.segments, segs)):
        tag = f"segments[{x}]"
        want(f"{tag}.firstFrameIndex", p.first, s["firstFrameIndex"])
        want(f"{tag}.frameCount", p.count, s["frameCount"])
        want(f"{tag}.size", (p.width, p.height), (s["width"], s["height"]))
        want(f"{tag}.sessionStart", Fraction(p.start, NS), _mt(s["sessionStart"]))
        want(f"{tag}.sessionEnd", Fraction(p.end, NS), _mt(s["sessionEnd"]))
        want(f"{tag}.startReason", p.reason, s["startReason"])
        if sm.splits_on_rotation(scenario):
            want(f"{tag}.rotationDegrees", p.angle, s.get("rotationDegrees"))
        if multi:
            want(f"{tag}.camera", p.camera, s.get("camera"))
        ch = s.get("change")
        if p.change is None:
            want(f"{tag}.change", None, ch)
        elif ch is None:
            bad.append(f"{tag}.change: expected {p.change}, got null")
        else:
            d, ts = p.change["deviceTime"]
            want(f"{tag}.change.deviceTime", Fraction(d, ts), _mt(ch["deviceTime"]))
            want(f"{tag}.change.deviceTime.timescale", ts, ch["deviceTime"]["timescale"])
            want(f"{tag}.change.sessionTime", Fraction(p.change["sessionTime"], NS), _mt(ch["sessionTime"]))
            for key in ("camera", "previousCamera", "aspectRatio"):
                if key in p.change:
                    want(f"{tag}.change.{key}", p.change[key], ch.get(key))
            if p.change.get("announced") is not None:
                want(f"{tag}.change.announced", p.change["announced"], ch.get("announced"))
        # the file itself
        if s["file"] not in read:
            bad.append(f"{tag}: {s['file']} missing")
            continue
        w, h, stamps = read[s["file"]]
        want(f"{tag} file size (ffmpeg)", (p.width, p.height), (w, h))
        frames = pred.frames[p.first:p.first + p.count]
        want(f"{tag} file frame count (ffmpeg)", p.count, len(stamps))
        exp = [(fr.n, fr.position if multi else None) for fr in frames]
        if exp != stamps:
            diff = next((j for j, (a, b) in enumerate(zip(exp, stamps)) if a != b), min(len(exp), len(stamps)))
            bad.append(f"{tag} file stamps (index, camera) from frame {diff}: expected {exp[diff:diff + 3]}, "
                       f"got {stamps[diff:diff + 3]}")
    # warnings: only requests that reached the back camera (while recording: not after a stop)
    unsupported = [(pos, t) for pos, t in pred.unsupported
                   if mode == "segment" or pred.stop_reason == "endOfStream" or t < pred.stop_time]
    want("warnings count", len(unsupported), len(manifest.get("warnings", [])))
    if multi or unsupported:
        failed = [e for e in manifest.get("events", []) if e["kind"] == "aspectRatioRequestFailed"]
        want("aspectRatioRequestFailed times", [Fraction(t, NS) for _, t in unsupported],
             [_mt(e["sessionTime"]) for e in failed])
        if mode == "segment" and scenario.get("frontCamera") != "virtual":
            sw = [e for e in manifest.get("events", []) if e["kind"] == "cameraSwitched"]
            want("cameraSwitched events (frameIndex, to, from, sessionTime)",
                 [(n, to, fr, Fraction(t, NS)) for n, to, fr, _, t in pred.switches],
                 [(e.get("frameIndex"), e.get("to"), e.get("from"), _mt(e["sessionTime"])) for e in sw])
    return bad


def check(binary, scenario, mode, workdir: pathlib.Path, name="s"):
    """Mismatches between segrec and the model for one scenario and mode (empty: they agree)."""
    out = workdir / name
    try:
        pred = sm.predict(scenario, mode)
        invalid = None
    except sm.Invalid as e:
        pred, invalid = None, str(e)
    res = record(binary, scenario, mode, out)
    try:
        if invalid is not None:
            if res.returncode == 0:
                return [f"model says invalid ({invalid}) but segrec recorded it"]
            if res.returncode != 65 or out.with_suffix(".json").name not in res.stderr:
                return [f"invalid ({invalid}): expected exit 65 naming the file, got {res.returncode}: "
                        f"{res.stderr.strip()[-300:]}"]
            return []
        if res.returncode != 0:
            return [f"segrec exit {res.returncode}: {res.stderr.strip()[-400:]}"]
        manifest = json.loads((out / "manifest.json").read_text())
        return compare(scenario, mode, pred, manifest, out)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def shrink(binary, scenario, mode, workdir):
    """Drop events one at a time while a mismatch remains: a minimal reproducing scenario."""
    best = scenario
    changed = True
    while changed and best.get("events"):
        changed = False
        for j in range(len(best["events"])):
            cand = _deep_copy(best)
            del cand["events"][j]
            if not cand["events"]:
                del cand["events"]
            try:
                if check(binary, cand, mode, workdir, "shrink"):
                    best, changed = cand, True
                    break
            except Exception:
                continue
    return best


def _deep_copy(obj):
    if isinstance(obj, dict):
        return {k: _deep_copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_deep_copy(v) for v in obj]
    return obj


def modes_for(rng_index, scenario=None):
    """Every scenario in segment mode; every fourth also in stop-on-change mode (not one with
    turns: --split-on-rotation is segment mode's)."""
    if scenario is not None and sm.splits_on_rotation(scenario):
        return ["segment"]
    return ["segment", "stop-on-change"] if rng_index % 4 == 0 else ["segment"]


def scenarios(count, seed, profile="random"):
    rng = random.Random(seed)
    gen = {"ties": sm.generate_ties, "coarse-ties": coarse_ties.generate}.get(profile, sm.generate)
    return [gen(rng) for _ in range(count)]


def invalid_scenarios(count, seed):
    """Scenarios breaking one rule each, from their own generator (the valid sequence is unchanged)."""
    rng = random.Random(f"invalid-{seed}")
    return [sm.generate_invalid(rng) for _ in range(count)]


def run_invalid(binary, count, seed):
    """[(index, scenario, mismatches)] for `count` invalid scenarios: segrec must exit 65 naming the file."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="segrec-model-invalid-"))
    try:
        return [(x, sc, check(binary, sc, "segment", work, f"invalid{x}"))
                for x, sc in enumerate(invalid_scenarios(count, seed))]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_one(args):
    binary, x, scenario, workdir, do_shrink = args
    results = []
    for mode in modes_for(x, scenario):
        bad = check(binary, scenario, mode, pathlib.Path(workdir), f"s{x}-{mode}")
        minimal = shrink(binary, scenario, mode, pathlib.Path(workdir)) if bad and do_shrink else None
        results.append((x, mode, bad, minimal))
    return results


def run(binary, count, seed, jobs=1, do_shrink=True, progress=None, profile="random", drawn=None):
    """(checks, [(scenario index, mode, mismatches, minimal scenario)])."""
    shm = pathlib.Path("/dev/shm")  # fsyncs cost nothing there
    work = pathlib.Path(tempfile.mkdtemp(prefix="segrec-model-", dir=shm if shm.is_dir() else None))
    all_sc = drawn if drawn is not None else scenarios(count, seed, profile)
    tasks = [(binary, x, sc, str(work), do_shrink) for x, sc in enumerate(all_sc)]
    checks, mismatches = 0, []
    try:
        if jobs > 1:
            from concurrent.futures import ProcessPoolExecutor
            with ProcessPoolExecutor(jobs) as pool:
                it = pool.map(run_one, tasks)
                for res in it:
                    for r in res:
                        checks += 1
                        if r[2]:
                            mismatches.append(r)
                    if progress:
                        progress(checks, mismatches, res)
        else:
            for t in tasks:
                res = run_one(t)
                for r in res:
                    checks += 1
                    if r[2]:
                        mismatches.append(r)
                if progress:
                    progress(checks, mismatches, res)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return all_sc, checks, mismatches
